"""Migrations under the advisory lock, and connections that die between requests."""

from __future__ import annotations

import concurrent.futures
import json
from uuid import UUID

import psycopg
import pytest
from psycopg import sql

from engram.core.db import connection
from engram.schema.migrate import Migration, MigrationDrift, apply_migrations
from engram_local import gateway
from engram_local.lambda_runtime import invoke


@pytest.fixture
def fresh_db(stack):
    """An empty database in the same server, dropped afterwards."""
    name = "engram_migrate_test"
    base = stack.dsn.rsplit("/", 1)[0]
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield f"{base}/{name}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def test_concurrent_migrators_apply_each_file_once(fresh_db):
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: apply_migrations(fresh_db), range(4)))
    applied = [v for r in results for v in r]
    with psycopg.connect(fresh_db) as conn:
        recorded = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert sorted(applied) == recorded  # every file applied by exactly one of the four
    assert recorded[0] == "0001_core"
    assert apply_migrations(fresh_db) == []  # idempotent


def test_an_edited_applied_migration_is_reported(fresh_db, monkeypatch):
    apply_migrations(fresh_db)
    from engram.schema import migrate

    original = migrate.available_migrations()
    edited = [Migration(original[0].version, original[0].sql + "\n-- edited"), *original[1:]]
    monkeypatch.setattr(migrate, "available_migrations", lambda: edited)
    with pytest.raises(MigrationDrift):
        apply_migrations(fresh_db)


def test_a_graph_built_before_0017_is_rebuilt_with_ef_construction_128(fresh_db, monkeypatch):
    """A deployment whose HNSW graph was built with pgvector's ef_construction 64: the migration records
    128 on it, so REINDEX rebuilds it with 128; a graph built now gets 128 from the start."""
    from engram.indexing.vectors import hnsw_index_name, hnsw_index_sql
    from engram.schema import migrate

    everything = migrate.available_migrations()
    before = [m for m in everything if m.version < "0017"]
    monkeypatch.setattr(migrate, "available_migrations", lambda: before)
    apply_migrations(fresh_db)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        conn.execute(
            "CREATE INDEX chunks_embedding_hnsw_384 ON chunks USING hnsw ((embedding::halfvec(384))"
            " halfvec_cosine_ops) WITH (m = 16, ef_construction = 64) WHERE embedding_dim = 384"
        )
    monkeypatch.setattr(migrate, "available_migrations", lambda: everything)
    assert "0017_hnsw_ef_construction" in apply_migrations(fresh_db)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        conn.execute("REINDEX INDEX CONCURRENTLY chunks_embedding_hnsw_384")
        conn.execute(hnsw_index_sql(768))
        options = dict(
            conn.execute(
                "SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)",
                ([hnsw_index_name(384), hnsw_index_name(768)],),
            ).fetchall()
        )
    assert options == {hnsw_index_name(d): ["m=16", "ef_construction=128"] for d in (384, 768)}


def test_conversation_chunks_stored_before_0019_get_their_neighbours_as_keyword_context(fresh_db, monkeypatch):
    """Migration 0019 gives every conversation chunk already stored the words of the turns beside it
    (same day only) in its keyword index, and leaves memory chunks without context."""
    from engram.schema import migrate

    everything = migrate.available_migrations()
    monkeypatch.setattr(migrate, "available_migrations", lambda: [m for m in everything if m.version < "0019"])
    apply_migrations(fresh_db)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        tenant = conn.execute("INSERT INTO tenants (name) VALUES ('t') RETURNING id").fetchone()[0]
        conv = conn.execute("INSERT INTO conversations (tenant_id) VALUES (%s) RETURNING id", (tenant,)).fetchone()[0]
        said = [("research adoption agencies", "2023-05-08"), ("a big step", "2023-05-08"), ("camping", "2023-05-20")]
        for seq, (content, day) in enumerate(said, 1):
            conn.execute(
                "INSERT INTO messages (tenant_id, conversation_id, seq, role, content, created_at)"
                " VALUES (%s, %s, %s, 'user', %s, %s)",
                (tenant, conv, seq, content, day),
            )
            conn.execute(
                "INSERT INTO chunks (tenant_id, conversation_id, namespace, kind, occurred_at, position, text,"
                " seq_from, seq_to) VALUES (%s, %s, 'default', 'conversation', %s, %s, %s, %s, %s)",
                (tenant, conv, day, seq - 1, content, seq, seq),
            )
    monkeypatch.setattr(migrate, "available_migrations", lambda: everything)
    assert "0019_turn_context" in apply_migrations(fresh_db)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        rows = conn.execute("SELECT seq_from, context FROM chunks ORDER BY seq_from").fetchall()
        assert rows == [(1, "a big step"), (2, "research adoption agencies"), (3, None)]
        matched = conn.execute(
            "SELECT seq_from FROM chunks WHERE tsv @@ plainto_tsquery('english', 'adoption') ORDER BY seq_from"
        ).fetchall()
        assert matched == [(1,), (2,)]
        assert conn.execute("SELECT count(*) FROM tenant_chunks").fetchone() is not None  # the view is back


def _said_before_0061(dsn: str, monkeypatch: pytest.MonkeyPatch, *, stray: bool) -> tuple[UUID, UUID]:
    """A database at 0060 with two tenants' conversations of three turns, the first tenant's memory
    learned from its turns; `stray`: one of the second tenant's messages names the first tenant (the
    foreign key on the tenant alone allowed it). Returns the two conversations' ids."""
    from engram.schema import migrate

    everything = migrate.available_migrations()
    monkeypatch.setattr(migrate, "available_migrations", lambda: [m for m in everything if m.version < "0061"])
    apply_migrations(dsn)
    monkeypatch.setattr(migrate, "available_migrations", lambda: everything)
    with psycopg.connect(dsn, autocommit=True) as conn:
        a, b = (conn.execute("INSERT INTO tenants (name) VALUES (%s) RETURNING id", (n,)).fetchone()[0] for n in "ab")
        conversations = []
        for tenant in (a, b):
            conv = conn.execute("INSERT INTO conversations (tenant_id) VALUES (%s) RETURNING id", (tenant,)).fetchone()
            conversations.append(conv[0])
            for seq in (1, 2, 3):
                named = a if stray and tenant == b and seq == 3 else tenant
                conn.execute(
                    "INSERT INTO messages (tenant_id, conversation_id, seq, role, content)"
                    " VALUES (%s, %s, %s, 'user', 'x')",
                    (named, conv[0], seq),
                )
        memory = conn.execute(
            "INSERT INTO memories (tenant_id, content, content_hash) VALUES (%s, 'learned', '\\x01') RETURNING id", (a,)
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO memory_evidence (tenant_id, memory_id, conversation_id, message_id)"
            " SELECT tenant_id, %s, conversation_id, id FROM messages WHERE conversation_id = %s",
            (memory, conversations[0]),
        )
    return conversations[0], conversations[1]


def test_a_database_with_conversations_upgrades_through_0061_and_0062(fresh_db, monkeypatch):
    """Messages and evidence move to their conversation's key with every row kept, and deleting a
    conversation still takes its turns and their evidence, and nobody else's."""
    first, second = _said_before_0061(fresh_db, monkeypatch, stray=False)
    assert apply_migrations(fresh_db)[:2] == ["0061_keys_found_by_index", "0062_tenant_policies_planned_once"]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone() == (6,)
        assert conn.execute("SELECT count(*) FROM memory_evidence").fetchone() == (3,)
        conn.execute("DELETE FROM conversations WHERE id = %s", (first,))
        left = conn.execute("SELECT DISTINCT conversation_id FROM messages").fetchall()
        assert left == [(second,)]
        assert conn.execute("SELECT count(*) FROM memory_evidence").fetchone() == (0,)


def test_a_message_naming_another_tenant_than_its_conversation_stops_the_upgrade(fresh_db, monkeypatch):
    """0061 holds a message's tenant to its conversation's: a row that breaks it fails the migration
    whole (the deploy fails and rolls back), and the database stays at 0060 with its rows."""
    _said_before_0061(fresh_db, monkeypatch, stray=True)
    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        apply_migrations(fresh_db)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        latest = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
        assert latest == ("0060_chunks_namespace_tags",)
        assert conn.execute("SELECT count(*) FROM messages").fetchone() == (6,)
        indexes = conn.execute("SELECT count(*) FROM pg_indexes WHERE indexname = 'memory_evidence_message'").fetchone()
        assert indexes == (0,)


def test_a_connection_killed_between_requests_is_replaced_transparently(api, stack):
    assert api.post("/v1/memories", {"content": "before the restart", "namespace": "dead"}).status == 201
    pid = connection().info.backend_pid  # the gateway runs handlers on this thread: same connection
    with psycopg.connect(stack.dsn, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    after = api.post("/v1/memories", {"content": "after the restart", "namespace": "dead"})
    assert after.status == 201, after.body
    assert connection().info.backend_pid != pid


def test_database_down_is_a_503_naming_the_dependency(api, tenant, monkeypatch):
    from engram.core import config, db

    monkeypatch.setenv("ENGRAM_DATABASE_URL", "postgresql://nobody@127.0.0.1:9/none")
    monkeypatch.setenv("ENGRAM_DB_CONNECT_WAIT_S", "0")
    monkeypatch.setenv("ENGRAM_DB_CONNECT_TIMEOUT_S", "1")
    config.reload_settings()
    db.reset_connections()
    try:
        # The authorizer cannot check the key: it leaves it to the route, which answers 503, not a 500.
        down = api.get("/v1/memories")
        assert down.status == 503 and down.body["error"]["details"]["dependency"] == "database", down.body
        assert down.headers["retry-after"] == "10"
        # A route whose caller was already authorized (cached authorizer result) answers 503.
        route = gateway.match("GET", "/v1/memories")
        assert route is not None
        event = gateway.build_event("GET", "/v1/memories", {}, b"", *route)
        event["requestContext"]["authorizer"] = {
            "lambda": {"tenant_id": tenant.id, "key_id": tenant.id, "scopes": "read"}
        }
        reply = invoke("memories", event)
        assert reply["statusCode"] == 503
        assert json.loads(reply["body"])["error"]["details"]["dependency"] == "database"
    finally:
        monkeypatch.undo()
        config.reload_settings()
        db.reset_connections()

"""The SQL of exports and imports: the job rows, the export's readers (server-side cursors, so a big
tenant streams through a few thousand rows at a time) and what an import writes besides memories
(versions, links, conversations, messages), in the caller's transaction. Rows come back typed."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, scalar_row, tuple_row

from engram.core.db import Conn
from engram.core.select_lists import select_list
from engram.portability.records import ConversationRecord, LinkRecord, MessageRecord, VersionRecord
from engram.portability.rows import (
    ConversationExportRow,
    ExportRow,
    ImportRow,
    LinkExportRow,
    MemoryExportRow,
    MessageExportRow,
    TopicExportRow,
)

FETCH_ROWS = 500  # rows per round trip of a server-side cursor

Row = TypeVar("Row")


_EXPORT_COLUMNS = select_list(ExportRow)
_IMPORT_COLUMNS = select_list(ImportRow, expressions={"size_bytes": sql.Identifier("declared_bytes")})

# ---- jobs ---------------------------------------------------------------------------------------


def _one(conn: Conn, row_type: type[Row], query: sql.Composed | str, params: Sequence[Any]) -> Row | None:
    with conn.cursor(row_factory=class_row(row_type)) as cur:
        return cur.execute(query, params).fetchone()


def insert_export(conn: Conn, tenant_id: UUID, namespace: str | None, key_of: Callable[[UUID], str]) -> ExportRow:
    """A queued export job, its file's key named by `key_of(export_id)`."""
    row = _one(
        conn,
        ExportRow,
        sql.SQL("INSERT INTO exports (tenant_id, namespace, s3_key) VALUES (%s, %s, '') RETURNING {}").format(
            _EXPORT_COLUMNS
        ),
        (tenant_id, namespace),
    )
    assert row is not None
    row = dataclasses.replace(row, s3_key=key_of(row.id))
    conn.execute("UPDATE exports SET s3_key = %s WHERE id = %s", (row.s3_key, row.id))
    return row


def export_row(conn: Conn, export_id: UUID) -> ExportRow | None:
    return _one(conn, ExportRow, sql.SQL("SELECT {} FROM exports WHERE id = %s").format(_EXPORT_COLUMNS), (export_id,))


def claim_export(conn: Conn, export_id: UUID) -> ExportRow | None:
    """Queued (or running: a worker that died mid-way, its message delivered again) -> running."""
    return _one(
        conn,
        ExportRow,
        sql.SQL(
            "UPDATE exports SET status = 'running', attempts = attempts + 1, started_at = now()"
            " WHERE id = %s AND status IN ('queued', 'running') RETURNING {}"
        ).format(_EXPORT_COLUMNS),
        (export_id,),
    )


def export_claim_visible(conn: Conn, export_id: UUID, attempts: int) -> bool:
    """This snapshot sees the export's claim (claim_export's `attempts`), so it holds everything
    committed before the export started: a reader that lags shows the older attempt or none."""
    seen = conn.execute("SELECT 1 FROM exports WHERE id = %s AND attempts >= %s", (export_id, attempts)).fetchone()
    return seen is not None


def settle_export(
    conn: Conn, export_id: UUID, *, counts: dict[str, int] | None, size: int | None, error: str | None
) -> None:
    conn.execute(
        "UPDATE exports SET status = %s, counts = %s, bytes = %s, error = %s, finished_at = now() WHERE id = %s",
        ("failed" if error else "ready", json.dumps(counts or {}), size, error, export_id),
    )


def insert_import(
    conn: Conn,
    tenant_id: UUID,
    *,
    namespace: str | None,
    id_policy: str,
    size: int,
    sha256: bytes | None,
    expires_at: datetime,
    key_of: Callable[[UUID], str],
) -> ImportRow:
    """A pending import job, its file's key named by `key_of(import_id)`."""
    row = _one(
        conn,
        ImportRow,
        sql.SQL(
            "INSERT INTO imports (tenant_id, namespace, id_policy, declared_bytes, sha256, s3_key, expires_at)"
            " VALUES (%s, %s, %s, %s, %s, '', %s) RETURNING {}"
        ).format(_IMPORT_COLUMNS),
        (tenant_id, namespace, id_policy, size, sha256, expires_at),
    )
    assert row is not None
    row = dataclasses.replace(row, s3_key=key_of(row.id))
    conn.execute("UPDATE imports SET s3_key = %s WHERE id = %s", (row.s3_key, row.id))
    return row


def import_row(conn: Conn, import_id: UUID, *, lock: bool = False) -> ImportRow | None:
    query = sql.SQL("SELECT {} FROM imports WHERE id = %s {}").format(
        _IMPORT_COLUMNS, sql.SQL("FOR UPDATE" if lock else "")
    )
    return _one(conn, ImportRow, query, (import_id,))


def settle_import(conn: Conn, import_id: UUID, *, report: dict[str, Any] | None, error: str | None) -> ImportRow:
    row = _one(
        conn,
        ImportRow,
        sql.SQL(
            "UPDATE imports SET status = %s, report = %s, error = %s, updated_at = now() WHERE id = %s RETURNING {}"
        ).format(_IMPORT_COLUMNS),
        ("failed" if error else "done", json.dumps(report) if report is not None else None, error, import_id),
    )
    assert row is not None
    return row


def expire_import(conn: Conn, import_id: UUID, reason: str) -> ImportRow | None:
    """A pending import whose upload URL expired long ago -> failed. Never waits for, nor overrides, an
    import a worker holds (it settles the row itself): that row is skipped, and None returned."""
    return _one(
        conn,
        ImportRow,
        sql.SQL(
            "UPDATE imports SET status = 'failed', error = %s, updated_at = now() WHERE id ="
            " (SELECT id FROM imports WHERE id = %s AND status = 'pending' FOR UPDATE SKIP LOCKED) RETURNING {}"
        ).format(_IMPORT_COLUMNS),
        (reason, import_id),
    )


# ---- export readers (one snapshot: the caller's repeatable-read transaction) ------------------------

# Memories with what travels with them: versions, a document's chunks and body, evidence turns.
_MEMORY_EXTRAS = {
    "sha256": sql.SQL("encode(m.content_hash, 'hex')"),
    "versions": sql.SQL(
        "(SELECT COALESCE(json_agg(json_build_object('version', v.version, 'content', v.content, 'kind', v.kind,"
        " 'importance', v.importance, 'tags', v.tags, 'source', v.source, 'metadata', v.metadata,"
        " 'valid_from', v.valid_from, 'valid_to', v.valid_to, 'changed_at', v.changed_at) ORDER BY v.version), '[]')"
        " FROM memory_versions v WHERE v.memory_id = m.id)"
    ),
    "chunks": sql.SQL(
        "CASE WHEN m.document_tier IS NOT NULL THEN (SELECT json_agg(json_build_object('position', c.position,"
        " 'char_start', c.char_start, 'text', c.text) ORDER BY c.position) FROM chunks c WHERE c.memory_id = m.id)"
        " END"
    ),
    "body": sql.SQL("d.body"),
    "content_type": sql.SQL("d.content_type"),
    "id_proof": sql.SQL("engram_id_proof(m.id)"),
    # A derived memory's evidence, by turn number; in a namespace's export, the turns of its conversations.
    "evidence": sql.SQL(
        "(SELECT COALESCE(json_agg(json_build_object('conversation_id', e.conversation_id, 'seq', msg.seq,"
        " 'run_id', e.run_id) ORDER BY e.conversation_id, msg.seq), '[]')"
        " FROM memory_evidence e JOIN messages msg ON msg.id = e.message_id"
        " JOIN conversations c ON c.id = e.conversation_id"
        " WHERE e.memory_id = m.id AND (%(ns)s::text IS NULL OR c.namespace = %(ns)s))"
    ),
}
_MEMORIES = sql.SQL(
    "SELECT {} FROM memories m LEFT JOIN documents d ON d.memory_id = m.id"
    " WHERE %(ns)s::text IS NULL OR m.namespace = %(ns)s ORDER BY m.created_at, m.id"
).format(select_list(MemoryExportRow, "m", expressions=_MEMORY_EXTRAS))
_LINKS = sql.SQL(
    "SELECT {} FROM links l"
    " WHERE %(ns)s::text IS NULL OR (EXISTS (SELECT 1 FROM memories f WHERE f.id = l.from_id AND f.namespace = %(ns)s)"
    "  AND EXISTS (SELECT 1 FROM memories t WHERE t.id = l.to_id AND t.namespace = %(ns)s))"
    " ORDER BY l.created_at, l.id"
).format(select_list(LinkExportRow, "l", expressions={"id_proof": sql.SQL("engram_id_proof(l.id)")}))
_CONVERSATIONS = sql.SQL(
    "SELECT {} FROM conversations WHERE %(ns)s::text IS NULL OR namespace = %(ns)s ORDER BY created_at, id"
).format(select_list(ConversationExportRow, expressions={"id_proof": sql.SQL("engram_id_proof(id)")}))
_MESSAGES = sql.SQL(
    "SELECT {} FROM messages m JOIN conversations c ON c.id = m.conversation_id"
    " WHERE %(ns)s::text IS NULL OR c.namespace = %(ns)s ORDER BY c.created_at, c.id, m.seq"
).format(select_list(MessageExportRow, "m"))
_TOPICS = sql.SQL(
    "SELECT {} FROM topics t WHERE %(ns)s::text IS NULL OR t.namespace = %(ns)s ORDER BY t.namespace, t.depth, t.id"
).format(
    select_list(
        TopicExportRow,
        "t",
        expressions={
            "member_ids": sql.SQL(
                "ARRAY(SELECT tm.memory_id FROM topic_members tm WHERE tm.topic_id = t.id ORDER BY tm.memory_id)"
            )
        },
    )
)


def stream_rows(
    conn: Conn, name: str, query: sql.Composed, namespace: str | None, row_type: type[Row]
) -> Iterator[Row]:
    """Every row of one query, FETCH_ROWS per round trip (a server-side cursor)."""
    with conn.cursor(name=f"export_{name}", row_factory=class_row(row_type)) as cur:
        cur.itersize = FETCH_ROWS
        cur.execute(query, {"ns": namespace})
        yield from cur


def stream_memories(conn: Conn, namespace: str | None) -> Iterator[MemoryExportRow]:
    """Memories with their versions, a document's chunks and Tier 2 body, oldest first."""
    return stream_rows(conn, "memory", _MEMORIES, namespace, MemoryExportRow)


def stream_links(conn: Conn, namespace: str | None) -> Iterator[LinkExportRow]:
    """Links whose two ends are in the namespace (all: every link)."""
    return stream_rows(conn, "link", _LINKS, namespace, LinkExportRow)


def stream_conversations(conn: Conn, namespace: str | None) -> Iterator[ConversationExportRow]:
    return stream_rows(conn, "conversation", _CONVERSATIONS, namespace, ConversationExportRow)


def stream_messages(conn: Conn, namespace: str | None) -> Iterator[MessageExportRow]:
    return stream_rows(conn, "message", _MESSAGES, namespace, MessageExportRow)


def stream_topics(conn: Conn, namespace: str | None) -> Iterator[TopicExportRow]:
    return stream_rows(conn, "topic", _TOPICS, namespace, TopicExportRow)


def active_model(conn: Conn) -> str | None:
    with conn.cursor(row_factory=scalar_row) as cur:
        model: str | None = cur.execute("SELECT model_id FROM embedding_spaces WHERE active").fetchone()
    return model


# ---- import writers --------------------------------------------------------------------------------


def taken_ids(conn: Conn, table: str, ids: Sequence[UUID]) -> set[UUID]:
    """Which of `ids` any tenant's rows of `table` hold (memories, links, conversations)."""
    if not ids:
        return set()
    with conn.cursor(row_factory=scalar_row) as cur:
        return set(cur.execute("SELECT engram_ids_taken FROM engram_ids_taken(%s, %s)", (table, list(ids))).fetchall())


def own_ids(conn: Conn, proofs: Sequence[tuple[UUID, str | None]]) -> set[UUID]:
    """Which ids come with the proof this tenant's exports write beside its own ids (migration 0020)."""
    claimed = [(i, p) for i, p in proofs if p is not None]
    if not claimed:
        return set()
    with conn.cursor(row_factory=scalar_row) as cur:
        rows = cur.execute(
            "SELECT k.id FROM unnest(%s::uuid[], %s::text[]) AS k(id, proof) WHERE engram_id_proof(k.id) = k.proof",
            ([i for i, _ in claimed], [p for _, p in claimed]),
        ).fetchall()
    return set(rows)


def existing_memories(
    conn: Conn, keys: Sequence[tuple[str, bytes, str, datetime]]
) -> dict[tuple[str, bytes, str, datetime | None], UUID]:
    """The tenant's memories already holding these (namespace, content hash, status, created_at): an
    active one matches on namespace and hash (the dedupe rule of every write), a trashed one also on
    its creation time. Keys come back with created_at None for active matches. Active ones are looked
    up per namespace, so each hash is one probe of the partial dedupe index."""
    found: dict[tuple[str, bytes, str, datetime | None], UUID] = {}
    by_namespace: dict[str, list[bytes]] = {}
    for namespace, digest, status, _ in keys:
        if status == "active":
            by_namespace.setdefault(namespace, []).append(digest)
    for namespace, digests in by_namespace.items():  # one index probe per hash, all in one statement
        active: list[tuple[UUID, bytes]] = (
            conn.cursor(row_factory=tuple_row)
            .execute(
                "SELECT id, content_hash FROM memories"
                " WHERE namespace = %s AND content_hash = ANY(%s::bytea[]) AND status = 'active'",
                (namespace, digests),
            )
            .fetchall()
        )
        found |= {(namespace, bytes(digest), "active", None): memory_id for memory_id, digest in active}
    trashed = [k for k in keys if k[2] == "deleted"]
    if trashed:
        deleted: list[tuple[UUID, str, bytes, datetime]] = (
            conn.cursor(row_factory=tuple_row)
            .execute(
                "SELECT m.id, m.namespace, m.content_hash, m.created_at"
                " FROM unnest(%s::text[], %s::bytea[], %s::timestamptz[]) AS k(ns, hash, created_at)"
                " JOIN memories m ON m.namespace = k.ns AND m.content_hash = k.hash AND m.status = 'deleted'"
                "  AND m.created_at = k.created_at",
                ([k[0] for k in trashed], [k[1] for k in trashed], [k[3] for k in trashed]),
            )
            .fetchall()
        )
        found |= {(ns, bytes(digest), "deleted", at): memory_id for memory_id, ns, digest, at in deleted}
    return found


def insert_versions(conn: Conn, tenant_id: UUID, versions: Sequence[tuple[UUID, VersionRecord]]) -> None:
    """Previous versions of imported memories, as the history trigger would have kept them."""
    if not versions:
        return
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO memory_versions (tenant_id, memory_id, version, content, kind, importance, tags, source,"
            " metadata, valid_from, valid_to, changed_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (memory_id, version) DO NOTHING",
            [
                (
                    tenant_id,
                    memory_id,
                    v.version,
                    v.content,
                    v.kind,
                    v.importance,
                    v.tags,
                    v.source,
                    json.dumps(v.metadata),
                    v.valid_from,
                    v.valid_to,
                    v.changed_at,
                )
                for memory_id, v in versions
            ],
        )


def existing_conversations(
    conn: Conn, keys: Sequence[tuple[UUID, str, datetime, str | None, str | None]]
) -> dict[UUID, UUID]:
    """Conversations of the tenant that are these records already: the same id, or the same namespace,
    creation time, title and agent. Returns the record's id -> the existing conversation's id."""
    if not keys:
        return {}
    pairs: list[tuple[UUID, UUID]] = (
        conn.cursor(row_factory=tuple_row)
        .execute(
            "SELECT DISTINCT ON (k.id) k.id, c.id FROM unnest(%s::uuid[], %s::text[], %s::timestamptz[],"
            " %s::text[], %s::text[]) AS k(id, ns, created_at, title, agent_id)"
            " JOIN conversations c ON c.id = k.id OR (c.namespace = k.ns AND c.created_at = k.created_at"
            "  AND c.title IS NOT DISTINCT FROM k.title AND c.agent_id IS NOT DISTINCT FROM k.agent_id)"
            " ORDER BY k.id, c.id <> k.id",
            (
                [k[0] for k in keys],
                [k[1] for k in keys],
                [k[2] for k in keys],
                [k[3] for k in keys],
                [k[4] for k in keys],
            ),
        )
        .fetchall()
    )
    return dict(pairs)


def insert_conversation(
    conn: Conn, tenant_id: UUID, conversation_id: UUID, record: ConversationRecord, namespace: str, messages: int
) -> None:
    conn.execute(
        "INSERT INTO conversations (id, tenant_id, namespace, title, agent_id, tags, metadata, next_seq,"
        " message_count, created_at, updated_at, summary, summary_updated_at, extracted_seq, extraction_queued_seq)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, COALESCE(%s, now()), %s, %s, %s, %s)",
        (
            conversation_id,
            tenant_id,
            namespace,
            record.title,
            record.agent_id,
            record.tags,
            json.dumps(record.metadata),
            messages + 1,
            messages,
            record.created_at,
            record.updated_at,
            record.summary,
            record.summary_updated_at,
            record.extracted_seq,
            record.extracted_seq,  # read up to there: the sweep queues only the turns after it
        ),
    )


def insert_messages(conn: Conn, tenant_id: UUID, rows: Sequence[tuple[UUID, MessageRecord]]) -> None:
    """Messages with their sequence numbers, in one statement; each conversation's last_message_at follows."""
    if not rows:
        return
    conn.execute(
        "INSERT INTO messages (tenant_id, conversation_id, seq, role, content, tool_call_id, tool_name, metadata,"
        " created_at, redacted_at) SELECT %s, u.cid, u.seq, u.role, u.content, u.tool_call_id, u.tool_name,"
        " u.metadata::json, COALESCE(u.created_at, now()), u.redacted_at FROM unnest(%s::uuid[], %s::int[],"
        " %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::timestamptz[], %s::timestamptz[])"
        " AS u(cid, seq, role, content, tool_call_id, tool_name, metadata, created_at, redacted_at)",
        (
            tenant_id,
            [cid for cid, _ in rows],
            [m.seq for _, m in rows],
            [m.role for _, m in rows],
            [m.content for _, m in rows],
            [m.tool_call_id for _, m in rows],
            [m.tool_name for _, m in rows],
            [json.dumps(m.metadata, ensure_ascii=False) for _, m in rows],
            [m.created_at for _, m in rows],
            [m.redacted_at for _, m in rows],
        ),
    )
    conn.execute(
        "UPDATE conversations c SET last_message_at = x.last FROM (SELECT conversation_id, max(created_at) AS last"
        " FROM messages WHERE conversation_id = ANY(%s) GROUP BY conversation_id) x WHERE c.id = x.conversation_id",
        (list({cid for cid, _ in rows}),),
    )


def overlapping_links(conn: Conn, links: Sequence[tuple[UUID, UUID, str, datetime, datetime | None]]) -> set[int]:
    """Which of these (from, to, relation, valid_from, valid_to) already hold during part of their
    validity (the database would refuse them: an import counts them as already there), by index."""
    if not links:
        return set()
    with conn.cursor(row_factory=scalar_row) as cur:
        found = cur.execute(
            "SELECT k.n FROM unnest(%s::uuid[], %s::uuid[], %s::text[], %s::timestamptz[], %s::timestamptz[])"
            " WITH ORDINALITY AS k(from_id, to_id, relation, valid_from, valid_to, n)"
            " WHERE EXISTS (SELECT 1 FROM links l WHERE l.from_id = k.from_id AND l.to_id = k.to_id"
            "  AND l.relation = k.relation"
            "  AND tstzrange(l.valid_from, l.valid_to) && tstzrange(k.valid_from, k.valid_to))",
            tuple([link[i] for link in links] for i in range(5)),
        ).fetchall()
    return {n - 1 for n in found}


_INSERT_LINKS = (
    "INSERT INTO links (id, tenant_id, from_id, to_id, relation, strength, valid_from, valid_to, metadata,"
    " created_by, run_id, created_at, ended_at, ended_reason, valid_to_before_end, supersede_applied,"
    " superseded_valid_to_before, superseded_valid_to_set)"
    " SELECT u.id, %s, u.from_id, u.to_id, u.relation, u.strength, u.valid_from, u.valid_to, u.metadata::jsonb,"
    " u.created_by, u.run_id, COALESCE(u.created_at, now()), u.ended_at, u.ended_reason, u.valid_to_before_end,"
    " u.applied, u.before, u.set"
    " FROM unnest(%s::uuid[], %s::uuid[], %s::uuid[], %s::text[], %s::real[], %s::timestamptz[], %s::timestamptz[],"
    " %s::text[], %s::text[], %s::uuid[], %s::timestamptz[], %s::timestamptz[], %s::text[], %s::timestamptz[],"
    " %s::boolean[], %s::timestamptz[], %s::timestamptz[])"
    " AS u(id, from_id, to_id, relation, strength, valid_from, valid_to, metadata, created_by, run_id, created_at,"
    " ended_at, ended_reason, valid_to_before_end, applied, before, set)"
)


def insert_links(conn: Conn, tenant_id: UUID, links: Sequence[tuple[UUID, UUID, UUID, LinkRecord]]) -> None:
    """Links as they were, (id, from_id, to_id, the record), in one statement: their validity,
    end and creator, and for a supersedes link what it took of the older memory's validity (so
    deleting it, or undoing the extraction run that made it, gives that back). The older memory's
    valid_to was exported as it was, so a supersedes link is not applied again."""
    if not links:
        return
    records = [r for _, _, _, r in links]
    conn.execute(
        _INSERT_LINKS,
        (
            tenant_id,
            [link_id for link_id, _, _, _ in links],
            [from_id for _, from_id, _, _ in links],
            [to_id for _, _, to_id, _ in links],
            [r.relation for r in records],
            [r.strength for r in records],
            [r.valid_from for r in records],
            [r.valid_to for r in records],
            [json.dumps(r.metadata) for r in records],
            [r.created_by for r in records],
            [r.run_id for r in records],
            [r.created_at for r in records],
            [r.ended_at for r in records],
            [r.ended_reason for r in records],
            [r.valid_to_before_end for r in records],
            [r.supersede_applied for r in records],
            [r.superseded_valid_to_before for r in records],
            [r.superseded_valid_to_set for r in records],
        ),
    )

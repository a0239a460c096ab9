"""The SQL of erasure: functions that take the caller's connection (a tenant transaction, or the
owner's for a tenant). Erasure reaches into every table that may hold a copy, so unlike other
capabilities it names their tables here; what it changes in topics goes through the topic service."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, LiteralString
from uuid import UUID

from psycopg import sql
from psycopg.abc import Params
from psycopg.rows import class_row, scalar_row, tuple_row
from psycopg.types.json import Jsonb

from engram.core.db import Conn
from engram.core.select_lists import field_names, select_list
from engram.erasure.models import Erasure, Selector
from engram.erasure.rows import (
    CopyCounts,
    Image,
    NamedAction,
    NewErasure,
    RetiredExport,
    TenantRows,
    TrashedMemory,
    TreeImage,
)

UUID_RE = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


# ---- what a selector covers -----------------------------------------------------------------------


def _filters(selector: Selector, alias: str) -> tuple[list[sql.Composable], list[Any]]:
    """The selector's conditions on memories or conversations (both have namespace, tags, metadata,
    created_at)."""
    where: list[sql.Composable] = []
    params: list[Any] = []
    a = sql.Identifier(alias)
    if selector.namespace is not None:
        where.append(sql.SQL("{}.namespace = %s").format(a))
        params.append(selector.namespace)
    if selector.tags:
        where.append(sql.SQL("{}.tags @> %s").format(a))
        params.append(list(selector.tags))
    if selector.metadata:
        where.append(sql.SQL("{}.metadata @> %s").format(a))
        params.append(Jsonb(selector.metadata))
    if selector.since is not None:
        where.append(sql.SQL("{}.created_at >= %s").format(a))
        params.append(selector.since)
    if selector.until is not None:
        where.append(sql.SQL("{}.created_at < %s").format(a))
        params.append(selector.until)
    return where, params


def _ids(conn: Conn, query: LiteralString | sql.Composed, params: Params) -> list[UUID]:
    """The first column of every row (ids, in the statement's order)."""
    return conn.cursor(row_factory=scalar_row).execute(query, params).fetchall()


def selected_memories(conn: Conn, selector: Selector) -> list[UUID]:
    """Memories (active and trashed) the selector covers; a conversation-only selector covers none."""
    where, params = _filters(selector, "m")
    if selector.conversation_id is not None:
        return []
    query = sql.SQL("SELECT m.id FROM memories m WHERE {} ORDER BY m.id").format(sql.SQL(" AND ").join(where))
    return _ids(conn, query, params)


def selected_conversations(conn: Conn, selector: Selector) -> list[UUID]:
    where, params = _filters(selector, "c")
    if selector.conversation_id is not None:
        where.append(sql.SQL("c.id = %s"))
        params.append(selector.conversation_id)
    query = sql.SQL("SELECT c.id FROM conversations c WHERE {} ORDER BY c.id").format(sql.SQL(" AND ").join(where))
    return _ids(conn, query, params)


def existing_memories(conn: Conn, ids: Sequence[UUID]) -> list[UUID]:
    """Those of `ids` that exist, locked: a concurrent erasure of one waits, then finds it gone."""
    return _ids(conn, "SELECT id FROM memories WHERE id = ANY(%s) ORDER BY id FOR UPDATE", (list(ids),))


def derived_from(conn: Conn, ids: Sequence[UUID]) -> list[UUID]:
    """Memories derived (derived_from links, followed transitively) from any of `ids`, not in `ids`.
    Every link counts, ended ones too: a text once derived from a memory may still repeat it."""
    return _ids(
        conn,
        "WITH RECURSIVE d(id) AS (SELECT unnest(%(ids)s::uuid[])"
        " UNION SELECT l.from_id FROM links l JOIN d ON l.to_id = d.id WHERE l.relation = 'derived_from')"
        " SELECT id FROM d WHERE NOT (id = ANY(%(ids)s::uuid[])) ORDER BY id",
        {"ids": list(ids)},
    )


def memory_texts(conn: Conn, ids: Sequence[UUID]) -> list[str]:
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute("SELECT content FROM memories WHERE id = ANY(%s)", (list(ids),)).fetchall()


def namespaces_of(conn: Conn, memory_ids: Sequence[UUID], conversation_ids: Sequence[UUID]) -> list[str]:
    cur = conn.cursor(row_factory=scalar_row)
    found: list[str] = cur.execute(
        "SELECT namespace FROM memories WHERE id = ANY(%s)"
        " UNION SELECT namespace FROM conversations WHERE id = ANY(%s)",
        (list(memory_ids), list(conversation_ids)),
    ).fetchall()
    return sorted(found)


# Each count of CopyCounts: the rows of its table that name a memory (%(m)s) or a conversation (%(c)s).
_COPIES = {
    "versions": sql.SQL("(SELECT count(*) FROM memory_versions WHERE memory_id = ANY(%(m)s))"),
    "chunks": sql.SQL("(SELECT count(*) FROM chunks WHERE memory_id = ANY(%(m)s) OR conversation_id = ANY(%(c)s))"),
    "links": sql.SQL("(SELECT count(*) FROM links WHERE from_id = ANY(%(m)s) OR to_id = ANY(%(m)s))"),
    "documents": sql.SQL("(SELECT count(*) FROM documents WHERE memory_id = ANY(%(m)s))"),
    "document_pages": sql.SQL("(SELECT count(*) FROM document_pages WHERE memory_id = ANY(%(m)s))"),
    "uploads": sql.SQL("(SELECT count(*) FROM document_uploads WHERE memory_id = ANY(%(m)s))"),
    "messages": sql.SQL("(SELECT count(*) FROM messages WHERE conversation_id = ANY(%(c)s))"),
}


def copy_counts(conn: Conn, memory_ids: Sequence[UUID], conversation_ids: Sequence[UUID]) -> CopyCounts:
    """How many rows go with these memories and conversations."""
    query = sql.SQL("SELECT {}").format(select_list(CopyCounts, expressions=_COPIES))
    row = (
        conn.cursor(row_factory=class_row(CopyCounts))
        .execute(query, {"m": list(memory_ids), "c": list(conversation_ids)})
        .fetchone()
    )
    assert row is not None
    return row


# ---- erasing ----------------------------------------------------------------------------------------


def trash_active(conn: Conn, ids: Sequence[UUID]) -> None:
    """Through the trash first, so the database ends their links as a deletion does: an older memory a
    supersedes link had ended becomes current again (a hard delete alone would drop the link and leave
    it ended). That is the run's own effect taken back, not an edit: such a memory keeps its updated_at,
    so an undo of the run that superseded it still applies to it."""
    cur = conn.cursor(row_factory=tuple_row)
    kept: list[tuple[UUID, datetime]] = cur.execute(
        "SELECT DISTINCT m.id, m.updated_at FROM links l JOIN memories m ON m.id = l.to_id"
        " WHERE l.tenant_id = engram_current_tenant() AND l.from_id = ANY(%(ids)s) AND l.relation = 'supersedes'"
        " AND l.supersede_applied AND l.ended_at IS NULL AND NOT (l.to_id = ANY(%(ids)s))",
        {"ids": list(ids)},
    ).fetchall()
    conn.execute(
        "UPDATE memories SET status = 'deleted', deleted_at = now(), updated_at = now()"
        " WHERE id = ANY(%s) AND status = 'active'",
        (list(ids),),
    )
    if kept:
        conn.execute(
            "UPDATE memories m SET updated_at = k.updated_at FROM unnest(%s::uuid[], %s::timestamptz[])"
            " AS k(id, updated_at) WHERE m.id = k.id",
            ([memory_id for memory_id, _ in kept], [updated_at for _, updated_at in kept]),
        )


def delete_uploads(conn: Conn, memory_ids: Sequence[UUID]) -> list[str]:
    """Upload records of these memories (their params hold tags and metadata); returns their S3 keys."""
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute(
        "DELETE FROM document_uploads WHERE memory_id = ANY(%s) RETURNING s3_key", (list(memory_ids),)
    ).fetchall()


def delete_verdicts(conn: Conn, memory_ids: Sequence[UUID]) -> None:
    conn.execute(
        "DELETE FROM consolidation_verdicts WHERE memory_a = ANY(%(m)s) OR memory_b = ANY(%(m)s)",
        {"m": list(memory_ids)},
    )


def delete_memories(conn: Conn, ids: Sequence[UUID]) -> None:
    """Rows gone for good; chunks, versions, links, documents, pages and leaf membership go with them
    (ON DELETE CASCADE). Links first, by tenant: their indexes lead with it."""
    conn.execute(
        "DELETE FROM links WHERE tenant_id = engram_current_tenant() AND (from_id = ANY(%(m)s) OR to_id = ANY(%(m)s))",
        {"m": list(ids)},
    )
    conn.execute("DELETE FROM memories WHERE id = ANY(%s)", (list(ids),))


def delete_conversations(conn: Conn, ids: Sequence[UUID]) -> None:
    """Messages, appends and windows (chunks) go with them (ON DELETE CASCADE)."""
    conn.execute("DELETE FROM conversations WHERE id = ANY(%s)", (list(ids),))


def delete_idempotent_answers(conn: Conn, ids: Sequence[UUID]) -> int:
    """Stored answers naming any of `ids` (a create's answer holds the whole memory). The key is free
    again: a retry after the erasure writes anew, as any new request would."""
    if not ids:
        return 0
    rows = conn.execute(
        "DELETE FROM idempotency_keys k WHERE k.tenant_id = engram_current_tenant() AND EXISTS ("
        " SELECT 1 FROM regexp_matches(k.answer::text, %s, 'g') AS f(m) WHERE f.m[1]::uuid = ANY(%s))"
        " RETURNING 1",
        (f"({UUID_RE})", list(ids)),
    ).fetchall()
    return len(rows)


# ---- consolidation's records ------------------------------------------------------------------------

ERASED_TEXT = "[erased]"
_KEPT_STRING = r"^([a-z_]{1,32}|t[0-9]+)$"  # enum words (layers, relations, field names) and topic ids


def _scrub_value(value: Any) -> Any:
    """Details without free text: numbers, booleans, ids and enum words stay; other strings (names,
    an LLM's words) become ERASED_TEXT."""
    import re

    if isinstance(value, dict):
        return {k: ERASED_TEXT if k == "name" else _scrub_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_value(v) for v in value]
    if isinstance(value, str):
        if re.fullmatch(UUID_RE, value) or re.fullmatch(_KEPT_STRING, value):
            return value
        return ERASED_TEXT
    return value


def _scrub_image(image: Image | None, erased: set[str]) -> Image | None:
    """The before-image without the erased memories: their rows, chunks, decay entries and the ids of
    memories the run wrote (which undo would delete: they are gone). `erased` lists what was removed."""
    if not image:
        return image
    out = dict(image)
    gone: list[str] = []
    if "memories" in out:
        gone += [m["id"] for m in out["memories"] if m.get("id") in erased]
        out["memories"] = [m for m in out["memories"] if m.get("id") not in erased]
    if out.get("chunks"):
        gone += [k for k in out["chunks"] if k in erased]
        out["chunks"] = {k: v for k, v in out["chunks"].items() if k not in erased}
    if "decay" in out:
        out["decay"] = [d for d in out["decay"] if d.get("id") not in erased]
    if out.get("created"):
        gone += [i for i in out["created"] if i in erased]
        out["created"] = [i for i in out["created"] if i not in erased]
    out["erased"] = sorted(set(out.get("erased", [])) | set(gone))
    return out


def scrub_actions(conn: Conn, ids: Sequence[UUID]) -> tuple[int, list[UUID]]:
    """Every consolidation action naming an erased memory loses its text: the memory's row and chunk
    images (undo restores the rest and names what it cannot), the reason and the free text of the
    details; the run lists the memory in erased_memories. Returns (actions changed, runs)."""
    query = sql.SQL("SELECT {} FROM consolidation_actions WHERE memory_ids && %s::uuid[] ORDER BY run_id, seq").format(
        select_list(NamedAction)
    )
    rows = conn.cursor(row_factory=class_row(NamedAction)).execute(query, (list(ids),)).fetchall()
    erased = {str(i) for i in ids}
    runs: dict[UUID, set[UUID]] = {}
    with conn.cursor() as cur:
        cur.executemany(
            "UPDATE consolidation_actions SET memory_ids = %s, reason = %s, details = %s, before_image = %s"
            " WHERE run_id = %s AND seq = %s",
            [
                (
                    [m for m in r.memory_ids if str(m) not in erased],
                    f"{r.step} {r.action} (reason removed: a memory it named was erased)",
                    Jsonb(_scrub_value(r.details)),
                    Jsonb(img) if (img := _scrub_image(r.before_image, erased)) is not None else None,
                    r.run_id,
                    r.seq,
                )
                for r in rows
            ],
        )
    for r in rows:
        runs.setdefault(r.run_id, set()).update(m for m in r.memory_ids if str(m) in erased)
    for run_id, gone in runs.items():
        conn.execute(
            "UPDATE consolidation_runs SET erased_memories ="
            " ARRAY(SELECT DISTINCT unnest(erased_memories || %s::uuid[])) WHERE id = %s",
            (sorted(gone), run_id),
        )
    return len(rows), sorted(runs)


def tree_images_with(conn: Conn, ids: Sequence[UUID]) -> list[TreeImage]:
    """Topic-tree before-images (a rebuild's undo) in which an erased memory was a member."""
    query = sql.SQL(
        "SELECT {} FROM consolidation_actions WHERE action = 'topic_tree'"
        " AND before_image->'topic_tree'->'members'->'memory_id' ?| %s::text[]"
    ).format(select_list(TreeImage))
    return conn.cursor(row_factory=class_row(TreeImage)).execute(query, ([str(i) for i in ids],)).fetchall()


def replace_tree_image(conn: Conn, run_id: UUID, seq: int, image: Image) -> None:
    conn.execute(
        "UPDATE consolidation_actions SET before_image = %s WHERE run_id = %s AND seq = %s",
        (Jsonb(image), run_id, seq),
    )


def rename_in_lineage(conn: Conn, topic_id: str, old: str, new: str) -> None:
    """A renamed topic's old name out of the distill actions and consolidation links that quoted it."""
    conn.execute(
        "UPDATE consolidation_actions SET reason = replace(reason, %(old)s, %(new)s),"
        " details = CASE WHEN details ? 'name' THEN jsonb_set(details, '{name}', to_jsonb(%(new)s::text))"
        " ELSE details END WHERE step = 'distill' AND details->>'leaf' = %(id)s",
        {"old": old, "new": new, "id": topic_id},
    )
    conn.execute(
        "UPDATE links SET metadata = jsonb_set(metadata, '{reason}', to_jsonb(replace(metadata->>'reason', %(old)s,"
        " %(new)s))) WHERE tenant_id = engram_current_tenant() AND created_by = 'consolidation'"
        " AND metadata->>'reason' LIKE %(like)s",
        {"old": old, "new": new, "like": f"topic {topic_id} (%"},
    )


# ---- exports -----------------------------------------------------------------------------------------


def retire_exports(conn: Conn, namespaces: Sequence[str], erasure_id: UUID) -> list[RetiredExport]:
    """Export files that may hold an erased item (of the whole tenant, or of one of `namespaces`): the
    job is failed with the reason and its file is deleted after commit."""
    query = sql.SQL(
        "UPDATE exports SET status = 'failed', error = %s, finished_at = now()"
        " WHERE status IN ('queued', 'ready') AND (namespace IS NULL OR namespace = ANY(%s)) RETURNING {}"
    ).format(select_list(RetiredExport))
    reason = f"deleted by erasure {erasure_id}: it may have held erased data; start a new export"
    return conn.cursor(row_factory=class_row(RetiredExport)).execute(query, (reason, list(namespaces))).fetchall()


# ---- the audit record --------------------------------------------------------------------------------

_COLUMNS = select_list(
    Erasure, expressions={"cascade": sql.Identifier("cascade_mode"), "ids": sql.Identifier("erased_ids")}
)


def insert_erasure(conn: Conn, tenant_id: UUID, record: NewErasure) -> Erasure:
    cur = conn.cursor(row_factory=class_row(Erasure))
    written = cur.execute(
        sql.SQL(
            "INSERT INTO erasures (id, tenant_id, scope, actor, key_id, selector, dry_run, cascade_mode, status,"
            " counts, erased_ids, namespaces, finished_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now()) RETURNING {}"
        ).format(_COLUMNS),
        (
            record.id,
            tenant_id,
            record.scope,
            record.actor,
            record.key_id,
            Jsonb(record.selector),
            record.dry_run,
            record.cascade,
            "done",
            Jsonb(record.counts),
            Jsonb(record.ids),
            record.namespaces,
        ),
    ).fetchone()
    assert written is not None
    return written


def read_erasure(conn: Conn, erasure_id: UUID) -> Erasure | None:
    cur = conn.cursor(row_factory=class_row(Erasure))
    return cur.execute(sql.SQL("SELECT {} FROM erasures WHERE id = %s").format(_COLUMNS), (erasure_id,)).fetchone()


def erasure_of_memory(conn: Conn, memory_id: UUID) -> Erasure | None:
    """The erasure that took this memory (asked for by its id, or as part of a subject)."""
    cur = conn.cursor(row_factory=class_row(Erasure))
    return cur.execute(
        sql.SQL(
            "SELECT {} FROM erasures WHERE NOT dry_run AND (erased_ids->'memories') ? %s"
            " ORDER BY created_at DESC LIMIT 1"
        ).format(_COLUMNS),
        (str(memory_id),),
    ).fetchone()


def tenant_row_counts(conn: Conn) -> TenantRows:
    counts = {
        table: sql.SQL("(SELECT count(*) FROM {})").format(sql.Identifier(table)) for table in field_names(TenantRows)
    }
    query = sql.SQL("SELECT {}").format(select_list(TenantRows, expressions=counts))
    found = conn.cursor(row_factory=class_row(TenantRows)).execute(query).fetchone()
    assert found is not None
    return found


def erase_tenant(conn: Conn, tenant_id: UUID) -> None:
    """Every row of the tenant, through the definer function (the request role cannot delete tenants)."""
    conn.execute("SELECT engram_erase_tenant(%s)", (tenant_id,))


def expired_trash(conn: Conn, days: int, limit: int) -> list[TrashedMemory]:
    """Memories in the trash for longer than `days`, across tenants (definer)."""
    return (
        conn.cursor(row_factory=class_row(TrashedMemory))
        .execute("SELECT tenant_id, memory_id FROM engram_expired_trash(make_interval(days => %s), %s)", (days, limit))
        .fetchall()
    )


def tenant_exists(conn: Conn) -> bool:
    return conn.execute("SELECT 1 FROM tenants WHERE id = engram_current_tenant()").fetchone() is not None


def tenant_object_keys(conn: Conn) -> list[str]:
    """Every S3 key the tenant's rows name: uploads, exports, imports."""
    cur = conn.cursor(row_factory=scalar_row)
    keys: list[str] = cur.execute(
        "SELECT s3_key FROM document_uploads UNION SELECT s3_key FROM exports WHERE s3_key <> ''"
        " UNION SELECT s3_key FROM imports"
    ).fetchall()
    return sorted(keys)

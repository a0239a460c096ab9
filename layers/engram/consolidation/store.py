"""The SQL of consolidation: functions that take the caller's connection (a tenant transaction).

Memories a run may act on are "live": active (not in the trash) and still valid (not superseded).
Before-images are taken by the database itself (`to_jsonb` of the row), so undo writes back
exactly what was there.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from engram.core.errors import Conflict

Row = dict[str, Any]

LIVE = sql.SQL("m.status = 'active' AND (m.valid_to IS NULL OR m.valid_to > now())")
MEMORY_FIELDS = sql.SQL(
    "m.id, m.namespace, m.kind, m.layer, m.content, m.importance, m.tags, m.source, m.access_count,"
    " m.repetition_count, m.last_accessed, m.created_at, m.updated_at, m.valid_from, m.valid_to, m.status,"
    " m.layer_epoch, m.gate_rejections, m.gate_retry_epoch, m.version"
)
RUN_COLUMNS = sql.SQL(
    "r.id, r.namespace, r.status, r.dry_run, r.trigger, r.steps, r.step_index, r.step_cursor, r.step_counts,"
    " r.next_action_seq, r.epoch, r.llm_calls, r.llm_input_tokens, r.llm_output_tokens, r.llm_capped, r.error,"
    " r.cycles, r.created_at, r.started_at, r.finished_at, r.updated_at, r.undone_at, r.worker_started_at,"
    " r.interruptions, r.erased_memories"
)
# Generated or identity columns cannot be written back; the primary key and tenant never change.
_NOT_RESTORED = {"id", "tenant_id", "tsv"}


# --- runs ---------------------------------------------------------------------------------------


def insert_run(
    conn: psycopg.Connection[Any], tenant_id: UUID, namespace: str, dry_run: bool, steps: Sequence[str], trigger: str
) -> UUID:
    try:
        with conn.transaction():  # a savepoint: a refused insert leaves the caller's transaction usable
            row = conn.execute(
                "INSERT INTO consolidation_runs (tenant_id, namespace, dry_run, trigger, steps)"
                " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                (tenant_id, namespace, dry_run, trigger, list(steps)),
            ).fetchone()
    except psycopg.errors.UniqueViolation as exc:  # consolidation_runs_one_open: another writer won the race
        raise Conflict(
            f"an applying run of namespace {namespace!r} is already open; wait for it to finish",
            {"namespace": namespace},
        ) from exc
    assert row is not None
    return UUID(str(row["id"]))


def read_run(conn: psycopg.Connection[Any], run_id: UUID, *, lock: bool = False) -> Row | None:
    query = sql.SQL("SELECT {} FROM consolidation_runs r WHERE r.id = %s {}").format(
        RUN_COLUMNS, sql.SQL("FOR UPDATE") if lock else sql.SQL("")
    )
    return conn.execute(query, (run_id,)).fetchone()


# The session advisory lock a worker holds while it works on a run (migration 0018 reads it back).
WORKER_LOCK_CLASS = 1701734258


def hold_run(conn: psycopg.Connection[Any], run_id: UUID, wait_s: float) -> bool:
    """Take the run's worker lock for this session (outside any transaction of the caller), waiting
    up to `wait_s`: the backend of a worker that just died may still be ending. False when a live
    worker holds it."""
    try:
        with conn.transaction():
            conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(f"{int(wait_s * 1000)}ms")))
            conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s::text))", (WORKER_LOCK_CLASS, run_id))
    except psycopg.errors.LockNotAvailable:
        return False
    return True


def clear_worker_mark(conn: psycopg.Connection[Any], run_id: UUID) -> None:
    """The worker is done with the run for now (not an edit of the run: updated_at stays)."""
    conn.execute(
        "UPDATE consolidation_runs SET worker_started_at = NULL WHERE id = %s AND worker_started_at IS NOT NULL",
        (run_id,),
    )


def let_go_of_run(conn: psycopg.Connection[Any], run_id: UUID) -> None:
    conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s::text))", (WORKER_LOCK_CLASS, run_id))
    conn.commit()


def later_applied_run(conn: psycopg.Connection[Any], run: Row) -> Row | None:
    """An applied run of the same namespace started after this one and not undone."""
    return conn.execute(
        "SELECT id, status FROM consolidation_runs WHERE namespace = %s AND NOT dry_run AND id <> %s"
        " AND created_at > %s AND status IN ('queued', 'running', 'done', 'failed') AND started_at IS NOT NULL"
        " ORDER BY created_at LIMIT 1",
        (run["namespace"], run["id"], run["created_at"]),
    ).fetchone()


def update_run(conn: psycopg.Connection[Any], run_id: UUID, changes: dict[str, Any]) -> None:
    sets = [sql.SQL("{} = %s").format(sql.Identifier(k)) for k in changes]
    params = [Jsonb(v) if k in ("step_cursor", "step_counts") and v is not None else v for k, v in changes.items()]
    conn.execute(
        sql.SQL("UPDATE consolidation_runs SET {}, updated_at = now() WHERE id = %s").format(sql.SQL(", ").join(sets)),
        [*params, run_id],
    )


def list_runs(
    conn: psycopg.Connection[Any], namespace: str | None, before: tuple[datetime, UUID] | None, limit: int
) -> list[Row]:
    where = [sql.SQL("true")]
    params: list[Any] = []
    if namespace:
        where.append(sql.SQL("r.namespace = %s"))
        params.append(namespace)
    if before:
        where.append(sql.SQL("(r.created_at, r.id) < (%s, %s)"))
        params += list(before)
    query = sql.SQL(
        "SELECT {} FROM consolidation_runs r WHERE {} ORDER BY r.created_at DESC, r.id DESC LIMIT %s"
    ).format(RUN_COLUMNS, sql.SQL(" AND ").join(where))
    return conn.execute(query, [*params, limit]).fetchall()


def advance_epoch(conn: psycopg.Connection[Any], tenant_id: UUID, namespace: str) -> tuple[int, datetime | None]:
    """One more active epoch for the namespace; returns it and when the previous applied run started."""
    before = conn.execute(
        "SELECT last_run_at FROM consolidation_namespaces WHERE namespace = %s FOR UPDATE", (namespace,)
    ).fetchone()
    row = conn.execute(
        "INSERT INTO consolidation_namespaces (tenant_id, namespace, epoch) VALUES (%s, %s, 1)"
        " ON CONFLICT (tenant_id, namespace) DO UPDATE SET epoch = consolidation_namespaces.epoch + 1"
        " RETURNING epoch",
        (tenant_id, namespace),
    ).fetchone()
    assert row is not None
    return int(row["epoch"]), before["last_run_at"] if before else None


def namespace_clock(conn: psycopg.Connection[Any], namespace: str) -> tuple[int, datetime | None]:
    """The namespace's current epoch and the start of its last applied run (a dry run reads, never advances)."""
    row = conn.execute(
        "SELECT epoch, last_run_at FROM consolidation_namespaces WHERE namespace = %s", (namespace,)
    ).fetchone()
    return (int(row["epoch"]), row["last_run_at"]) if row else (0, None)


def rewind_namespace(conn: psycopg.Connection[Any], run: Row) -> None:
    """Undo of an applied run: the namespace's clock as before it (its epoch back by one, the last
    applied run the previous one still done), so decay, promotion and gate cooldowns do not count
    the undone run, and the next run looks again at the pairs this one handled."""
    conn.execute(
        "UPDATE consolidation_namespaces SET epoch = epoch - 1, (last_run_id, last_run_at) = ("
        "  SELECT r.id, r.started_at FROM consolidation_runs r WHERE r.namespace = %(ns)s AND NOT r.dry_run"
        "  AND r.status = 'done' AND r.id <> %(run)s AND r.created_at < %(at)s ORDER BY r.created_at DESC LIMIT 1)"
        " WHERE namespace = %(ns)s AND epoch = %(epoch)s",
        {"ns": run["namespace"], "run": run["id"], "at": run["created_at"], "epoch": run["epoch"]},
    )


def finish_namespace_run(conn: psycopg.Connection[Any], namespace: str, run_id: UUID, started_at: datetime) -> None:
    conn.execute(
        "UPDATE consolidation_namespaces SET last_run_id = %s, last_run_at = %s WHERE namespace = %s",
        (run_id, started_at, namespace),
    )


def lock_namespace(conn: psycopg.Connection[Any], tenant_id: UUID, namespace: str) -> None:
    """Batches of two runs of one namespace never interleave inside a transaction."""
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"engram.consolidation:{tenant_id}:{namespace}",)
    )


# --- actions ------------------------------------------------------------------------------------


def insert_actions(
    conn: psycopg.Connection[Any], tenant_id: UUID, run_id: UUID, first_seq: int, actions: Sequence[Row]
) -> None:
    if not actions:
        return
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO consolidation_actions (run_id, seq, tenant_id, step, action, memory_ids, reason, details,"
            " applied, before_image, links_created) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [
                (
                    run_id,
                    first_seq + i,
                    tenant_id,
                    a["step"],
                    a["action"],
                    a["memory_ids"],
                    a["reason"],
                    Jsonb(a["details"]),
                    a["applied"],
                    Jsonb(a["before_image"]) if a["before_image"] else None,
                    a["links_created"],
                )
                for i, a in enumerate(actions)
            ],
        )


def list_actions(conn: psycopg.Connection[Any], run_id: UUID, after_seq: int, limit: int) -> list[Row]:
    return conn.execute(
        "SELECT seq, step, action, memory_ids, reason, details, applied, created_at FROM consolidation_actions"
        " WHERE run_id = %s AND seq > %s ORDER BY seq LIMIT %s",
        (run_id, after_seq, limit),
    ).fetchall()


def applied_actions(conn: psycopg.Connection[Any], run_id: UUID) -> list[Row]:
    return conn.execute(
        "SELECT seq, step, action, memory_ids, before_image, links_created, created_at FROM consolidation_actions"
        " WHERE run_id = %s AND applied ORDER BY seq",
        (run_id,),
    ).fetchall()


def pair_seen_in_run(conn: psycopg.Connection[Any], run_id: UUID, a: UUID, b: UUID) -> bool:
    row = conn.execute(
        "SELECT 1 FROM consolidation_actions WHERE run_id = %s AND step IN ('dedupe', 'reconcile')"
        " AND memory_ids @> %s LIMIT 1",
        (run_id, [a, b]),
    ).fetchone()
    return row is not None


def changed_since_run(conn: psycopg.Connection[Any], run_id: UUID) -> list[UUID]:
    """Memories this run touched that changed afterwards (a later write moved updated_at past the
    run's last action on them), or that are gone."""
    rows = conn.execute(
        "WITH touched AS (SELECT unnest(memory_ids) AS id, max(created_at) AS at FROM consolidation_actions"
        " WHERE run_id = %s AND applied GROUP BY 1)"
        " SELECT t.id FROM touched t LEFT JOIN memories m ON m.id = t.id"
        " WHERE m.id IS NULL OR m.updated_at > t.at ORDER BY t.id",
        (run_id,),
    ).fetchall()
    return [r["id"] for r in rows]


# --- verdicts -----------------------------------------------------------------------------------


def fresh_verdict(conn: psycopg.Connection[Any], a: UUID, b: UUID, question: str) -> str | None:
    """The LLM's earlier verdict on this pair, unless one side changed since."""
    lo, hi = sorted((a, b), key=str)
    row = conn.execute(
        "SELECT v.verdict FROM consolidation_verdicts v WHERE v.memory_a = %s AND v.memory_b = %s"
        " AND v.question = %s AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id IN (v.memory_a, v.memory_b)"
        " AND m.updated_at > v.decided_at)",
        (lo, hi, question),
    ).fetchone()
    return row["verdict"] if row else None


def record_verdict(
    conn: psycopg.Connection[Any], tenant_id: UUID, a: UUID, b: UUID, question: str, verdict: str, run_id: UUID
) -> None:
    lo, hi = sorted((a, b), key=str)
    conn.execute(
        "INSERT INTO consolidation_verdicts (tenant_id, memory_a, memory_b, question, verdict, run_id)"
        " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (tenant_id, memory_a, memory_b, question)"
        " DO UPDATE SET verdict = EXCLUDED.verdict, run_id = EXCLUDED.run_id, decided_at = now()",
        (tenant_id, lo, hi, question, verdict, run_id),
    )


def delete_run_verdicts(conn: psycopg.Connection[Any], run_id: UUID) -> None:
    conn.execute("DELETE FROM consolidation_verdicts WHERE run_id = %s", (run_id,))


def distillation_answered(conn: psycopg.Connection[Any], ids: Sequence[UUID]) -> bool:
    """The LLM was asked to distil exactly these memories by a run not undone, refused or declined,
    and none of them changed since: asking again would get the same answer."""
    row = conn.execute(
        "SELECT 1 FROM consolidation_actions a JOIN consolidation_runs r ON r.id = a.run_id"
        " WHERE a.step = 'distill' AND a.action IN ('distill_refused', 'distill_declined') AND r.status <> 'undone'"
        " AND a.memory_ids @> %(ids)s::uuid[] AND a.memory_ids <@ %(ids)s::uuid[]"
        " AND a.created_at >= (SELECT max(m.updated_at) FROM memories m WHERE m.id = ANY(%(ids)s::uuid[])) LIMIT 1",
        {"ids": list(ids)},
    ).fetchone()
    return row is not None


# --- memories -----------------------------------------------------------------------------------


def live_memories(
    conn: psycopg.Connection[Any],
    namespace: str,
    *,
    layer: str | None = None,
    after: UUID | None = None,
    limit: int,
    lock: bool = False,
    extra: sql.Composable | None = None,
    extra_params: Sequence[Any] = (),
) -> list[Row]:
    """Live memories of a namespace in id order, from `after`, with their before-image."""
    where: list[sql.Composable] = [sql.SQL("m.namespace = %s"), LIVE]
    params: list[Any] = [namespace]
    if layer:
        where.append(sql.SQL("m.layer = %s"))
        params.append(layer)
    if after:
        where.append(sql.SQL("m.id > %s"))
        params.append(after)
    if extra is not None:
        where.append(extra)
        params += list(extra_params)
    query = sql.SQL(
        "SELECT {fields}, to_jsonb(m) AS image FROM memories m WHERE {where} ORDER BY m.id LIMIT %s {lock}"
    ).format(
        fields=MEMORY_FIELDS, where=sql.SQL(" AND ").join(where), lock=sql.SQL("FOR UPDATE") if lock else sql.SQL("")
    )
    return conn.execute(query, [*params, limit]).fetchall()


def memories_by_id(conn: psycopg.Connection[Any], ids: Sequence[UUID], *, lock: bool = False) -> dict[UUID, Row]:
    """Live memories among `ids`, with their before-image."""
    query = sql.SQL(
        "SELECT {fields}, to_jsonb(m) AS image FROM memories m WHERE m.id = ANY(%s) AND {live} ORDER BY m.id {lock}"
    ).format(fields=MEMORY_FIELDS, live=LIVE, lock=sql.SQL("FOR UPDATE") if lock else sql.SQL(""))
    return {r["id"]: r for r in conn.execute(query, (list(ids),)).fetchall()}


def buffer_weights(conn: psycopg.Connection[Any], namespace: str) -> list[Row]:
    """What eviction needs of every live buffer memory (no content)."""
    return conn.execute(
        "SELECT m.id, m.kind, m.layer, m.importance, m.access_count, m.repetition_count, m.created_at"
        " FROM memories m WHERE m.namespace = %s AND m.layer = 'buffer' AND m.status = 'active'"
        " AND (m.valid_to IS NULL OR m.valid_to > now())",
        (namespace,),
    ).fetchall()


def decay_images(conn: psycopg.Connection[Any], namespace: str, after: UUID | None, limit: int) -> list[Row]:
    """A batch of live memories with the fields decay changes, locked, and their image."""
    return conn.execute(
        "SELECT m.id, m.kind, m.importance, m.layer_epoch, jsonb_build_object('id', m.id, 'importance', m.importance,"
        " 'layer_epoch', m.layer_epoch, 'access_count', m.access_count, 'last_accessed', m.last_accessed) AS image"
        " FROM memories m WHERE m.namespace = %s AND m.status = 'active'"
        " AND (m.valid_to IS NULL OR m.valid_to > now()) AND (%s::uuid IS NULL OR m.id > %s::uuid)"
        " ORDER BY m.id LIMIT %s FOR UPDATE",
        (namespace, after, after, limit),
    ).fetchall()


def apply_decay(conn: psycopg.Connection[Any], updates: Sequence[tuple[UUID, float, int]]) -> None:
    """(id, importance, layer_epoch) for each memory; updated_at stays: decay is not an edit."""
    if not updates:
        return
    conn.execute(
        "UPDATE memories m SET importance = u.importance, layer_epoch = u.layer_epoch"
        " FROM unnest(%s::uuid[], %s::real[], %s::int[]) AS u(id, importance, layer_epoch) WHERE m.id = u.id",
        ([u[0] for u in updates], [u[1] for u in updates], [u[2] for u in updates]),
    )


def restore_decay(conn: psycopg.Connection[Any], images: Sequence[Row]) -> None:
    conn.execute(
        "UPDATE memories m SET importance = d.importance, layer_epoch = d.layer_epoch, access_count = d.access_count,"
        " last_accessed = d.last_accessed FROM jsonb_to_recordset(%s) AS d(id uuid, importance real,"
        " layer_epoch int, access_count int, last_accessed timestamptz) WHERE m.id = d.id",
        (Jsonb(list(images)),),
    )


def update_memory(conn: psycopg.Connection[Any], memory_id: UUID, changes: dict[str, Any]) -> None:
    """A lifecycle change (layer, counts, tags, content): updated_at moves, so a later undo can tell
    whether someone changed the memory after the run."""
    sets = [sql.SQL("{} = %s").format(sql.Identifier(k)) for k in changes]
    conn.execute(
        sql.SQL("UPDATE memories SET {}, updated_at = now() WHERE id = %s").format(sql.SQL(", ").join(sets)),
        [*changes.values(), memory_id],
    )
    if changes.keys() & {"tags", "kind", "source"}:
        conn.execute(
            "UPDATE chunks c SET tags = m.tags, kind = m.kind, source = m.source FROM memories m"
            " WHERE c.memory_id = m.id AND m.id = %s",
            (memory_id,),
        )


def trash_memories(conn: psycopg.Connection[Any], ids: Sequence[UUID]) -> None:
    """To the trash, as DELETE /v1/memories/{id} does: restorable, out of recall."""
    conn.execute(
        "UPDATE memories SET status = 'deleted', deleted_at = now(), updated_at = now()"
        " WHERE id = ANY(%s) AND status = 'active'",
        (list(ids),),
    )
    conn.execute("UPDATE chunks SET active = false WHERE memory_id = ANY(%s)", (list(ids),))


def delete_created_memories(conn: psycopg.Connection[Any], ids: Sequence[UUID]) -> None:
    """Undo of memories a run wrote: deleted for good (their chunks, versions, leaf membership and
    links ended since go with them), so the tables read as before the run. Refused while a link not
    of the run (whose own links are removed first) that still holds reaches one: deleting the
    memory would lose that link."""
    linked = conn.execute(
        "SELECT DISTINCT m.id FROM links l JOIN memories m ON m.id IN (l.from_id, l.to_id)"
        " WHERE m.id = ANY(%s) AND l.ended_at IS NULL ORDER BY m.id",
        (list(ids),),
    ).fetchall()
    if linked:
        shown = [str(r["id"]) for r in linked]
        raise Conflict(
            f"memories the run wrote have links made since: {', '.join(shown)} (delete the links, then undo again)",
            {"changed_memories": shown},
        )
    conn.execute("DELETE FROM memories WHERE id = ANY(%s)", (list(ids),))


def chunk_images(conn: psycopg.Connection[Any], memory_id: UUID) -> list[Row]:
    rows = conn.execute(
        "SELECT to_jsonb(c) - 'tsv' AS image FROM chunks c WHERE c.memory_id = %s ORDER BY c.position", (memory_id,)
    ).fetchall()
    return [r["image"] for r in rows]


def delete_chunks(conn: psycopg.Connection[Any], memory_id: UUID) -> None:
    conn.execute("DELETE FROM chunks WHERE memory_id = %s", (memory_id,))


def table_columns(conn: psycopg.Connection[Any], table: str) -> list[str]:
    """The columns of a table that a row image can write back (generated ones left out)."""
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
        " AND table_name = %s AND is_generated = 'NEVER' ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [r["column_name"] for r in rows]


def restore_memory_images(conn: psycopg.Connection[Any], images: Sequence[Row], columns: Sequence[str]) -> None:
    """Write each row back exactly as its image holds it (of `columns`, table_columns of memories:
    those the image has; others untouched)."""
    for image in images:
        cols = [c for c in columns if c in image and c not in _NOT_RESTORED]
        try:
            conn.execute(
                sql.SQL(
                    "UPDATE memories m SET ({cols}) = (SELECT {src} FROM jsonb_populate_record(NULL::memories, %s)"
                    " r) WHERE m.id = %s"
                ).format(
                    cols=sql.SQL(", ").join(map(sql.Identifier, cols)),
                    src=sql.SQL(", ").join(sql.Identifier("r", c) for c in cols),
                ),
                (Jsonb(image), image["id"]),
            )
        except (psycopg.errors.UniqueViolation, psycopg.errors.ExclusionViolation) as exc:
            if exc.diag.constraint_name != "memories_dedupe":  # links_no_overlap / links_one_open
                raise Conflict(
                    f"memory {image['id']} cannot come back from the trash: a link its deletion ended would"
                    " overlap a link between the same memories with the same relation written since"
                    f" ({exc.diag.message_primary}); end that link, then undo again",
                    {"changed_memories": [str(image["id"])]},
                ) from exc
            raise Conflict(
                f"memory {image['id']} cannot come back from the trash: an active memory with the same"
                " content was written since (delete it, then undo again)",
                {"changed_memories": [str(image["id"])]},
            ) from exc
        # Chunks copy these fields from their memory: they follow it back.
        conn.execute(
            "UPDATE chunks c SET active = (m.status = 'active'), tags = m.tags, kind = m.kind,"
            " source = m.source FROM memories m WHERE c.memory_id = m.id AND m.id = %s",
            (image["id"],),
        )


def restore_chunk_images(
    conn: psycopg.Connection[Any], memory_id: UUID, images: Sequence[Row], columns: Sequence[str]
) -> None:
    """The chunks of a memory as they were (vectors included: nothing to re-embed); `columns`:
    table_columns of chunks."""
    delete_chunks(conn, memory_id)
    if not images:
        return
    cols = [c for c in columns if c in images[0] and c != "tsv"]
    conn.execute(
        sql.SQL("INSERT INTO chunks ({cols}) SELECT {cols} FROM jsonb_populate_recordset(NULL::chunks, %s)").format(
            cols=sql.SQL(", ").join(map(sql.Identifier, cols))
        ),
        (Jsonb(list(images)),),
    )


# --- neighbours ---------------------------------------------------------------------------------


def scan_candidates(
    conn: psycopg.Connection[Any], namespace: str, after: UUID | None, since: datetime | None, limit: int
) -> list[UUID]:
    """Live memories to look for neighbours of, in id order: all of them on a namespace's first run,
    afterwards those written, changed or embedded since the previous applied run started (pairs of
    two older memories were looked at then)."""
    rows = conn.execute(
        "SELECT m.id FROM memories m WHERE m.namespace = %s AND m.status = 'active'"
        " AND (m.valid_to IS NULL OR m.valid_to > now()) AND (%s::uuid IS NULL OR m.id > %s::uuid)"
        " AND (%s::timestamptz IS NULL OR m.updated_at >= %s OR EXISTS (SELECT 1 FROM chunks c"
        " WHERE c.memory_id = m.id AND c.embedded_at >= %s)) ORDER BY m.id LIMIT %s",
        (namespace, after, after, since, since, since, limit),
    ).fetchall()
    return [r["id"] for r in rows]


def live_contents(conn: psycopg.Connection[Any], namespace: str) -> Iterator[str]:
    """The text of every live memory of a namespace, streamed (a server-side cursor: a large
    namespace is never held in memory at once)."""
    with conn.cursor(name="consolidation_live_contents") as cur:
        cur.itersize = 2000
        query = sql.SQL("SELECT m.content FROM memories m WHERE m.namespace = %s AND {}").format(LIVE)
        cur.execute(query, (namespace,))
        for row in cur:
            yield row["content"]


def neighbours(
    conn: psycopg.Connection[Any],
    namespace: str,
    ids: Sequence[UUID],
    model_id: str,
    dimension: int,
    k: int,
    min_cosine: float,
) -> list[Row]:
    """For each memory in `ids`, its k nearest live memories of the namespace (first chunks, the
    active embedding space) with cosine >= min_cosine: one query for the batch."""
    if not ids:
        return []
    d = sql.Literal(int(dimension))
    conn.execute(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true)",
        (str(max(40, 8 * k)),),
    )
    query = sql.SQL(
        "SELECT q.memory_id AS a, n.memory_id AS b, n.cosine FROM chunks q CROSS JOIN LATERAL ("
        "  SELECT c.memory_id, 1 - (c.embedding::halfvec({d}) <=> q.embedding::halfvec({d})) AS cosine"
        "  FROM chunks c WHERE c.embedding_dim = {d} AND c.model_id = %(model)s AND c.namespace = %(ns)s"
        "  AND c.active AND c.memory_id IS NOT NULL AND c.position = 0 AND c.memory_id <> q.memory_id"
        "  ORDER BY c.embedding::halfvec({d}) <=> q.embedding::halfvec({d}) LIMIT %(k)s) n"
        " JOIN memories m ON m.id = n.memory_id"
        " WHERE q.memory_id = ANY(%(ids)s) AND q.position = 0 AND q.embedding_dim = {d} AND q.model_id = %(model)s"
        " AND n.cosine >= %(min)s AND m.status = 'active' AND (m.valid_to IS NULL OR m.valid_to > now())"
        " ORDER BY q.memory_id, n.cosine DESC"
    ).format(d=d)
    # Never prepared: after a few executions on one connection PostgreSQL may switch to a generic plan,
    # which cannot see LIMIT k, guesses 10,000 neighbours per memory and hash-joins them against every
    # memory of the table (a 500-memory batch took over 80 s at 100k memories instead of about 1 s).
    params = {"model": model_id, "ns": namespace, "k": k, "ids": list(ids), "min": min_cosine}
    return conn.execute(query, params, prepare=False).fetchall()


def space_thresholds(conn: psycopg.Connection[Any]) -> Row | None:
    return conn.execute(
        "SELECT model_id, dimension, consolidation_thresholds FROM embedding_spaces WHERE active"
    ).fetchone()

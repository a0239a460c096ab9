"""The SQL recall runs: the scan settings and counts, the candidates (composed by
engram.recall.candidate_store from a plan, engram.recall.plan_store), the candidates' vectors, the touch,
the commit's setting, and trace's lookups."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from psycopg import sql
from psycopg.rows import args_row, class_row, scalar_row, tuple_row

from engram.core.db import Conn
from engram.core.select_lists import select_list
from engram.recall.candidate_store import CandidateQuery, ScanStrategy, candidate_statement, vector_sql
from engram.recall.plan_store import RecallPlan
from engram.recall.rows import CandidateRow, TraceTarget


def chunk_vectors(conn: Conn, chunk_ids: list[UUID]) -> dict[UUID, list[float]]:
    """The stored vectors of these chunks (those that have one). As float4 arrays in binary: psycopg reads
    them in C, six times faster than parsing pgvector's text (400 x 384-d: ~60 ms against ~390)."""
    with conn.cursor(binary=True, row_factory=tuple_row) as cur:
        rows: list[tuple[UUID, list[float]]] = cur.execute(
            "SELECT id, embedding::real[] FROM chunks WHERE id = ANY(%s) AND embedding IS NOT NULL", (chunk_ids,)
        ).fetchall()
    return dict(rows)


# The pending-vector count stops here: recall only says "N+" beyond it.
PENDING_COUNT_LIMIT = 1000


def _scan_settings_and_pending_sql(
    where: sql.Composable, scope: sql.Composable | None = None, critical: sql.Composable | None = None
) -> sql.Composed:
    """One round trip: the HNSW scan settings for this transaction, the pending-vector count (n), with
    `critical` whether any critical memory is in the namespaces read (memories_critical), and,
    with a scope, its rows (scope_rows; index-only on chunks_scope) beside the planner's estimate of
    the table's rows (table_rows: pg_class, no scan; -1 before the first ANALYZE). The count stops one
    past the most rows an exact scan could take at this table size: %(exact_max_rows)s, or up to
    %(sparse_rows)s when %(sparse_share)s of the table is more (a tag that 1 in 7 rows carry is
    counted through ~7 index entries per row that passes). It counts at least %(idf_rows)s rows too,
    so the keyword side's word weights take the scope's size from it instead of counting again."""
    scope_rows = (
        sql.SQL(
            ", (SELECT count(*) FROM (SELECT 1 FROM chunks c WHERE {scope} LIMIT (SELECT GREATEST(%(exact_max_rows)s,"
            " %(idf_rows)s, LEAST(%(sparse_rows)s, %(sparse_share)s * reltuples))::bigint + 1"
            " FROM pg_class WHERE oid = 'chunks'::regclass)) s) AS scope_rows,"
            " (SELECT reltuples FROM pg_class WHERE oid = 'chunks'::regclass) AS table_rows"
        ).format(scope=scope)
        if scope is not None
        else sql.SQL("")
    )
    critical_found = (
        sql.SQL(", EXISTS (SELECT 1 FROM memories m WHERE m.critical AND m.status = 'active' AND {critical})").format(
            critical=critical
        )
        if critical is not None
        else sql.SQL(", NULL::boolean")
    )
    return sql.SQL(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
        " set_config('hnsw.ef_search', %(ef_search)s, true),"
        " set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true),"
        " (SELECT count(*) FROM (SELECT 1 FROM chunks c WHERE c.embedding IS NULL AND {where}"
        " LIMIT {pending_limit}) p)"
        " AS n{critical_found}{scope_rows}"
    ).format(
        where=where,
        critical_found=critical_found,
        scope_rows=scope_rows,
        pending_limit=sql.Literal(PENDING_COUNT_LIMIT),
    )


@dataclass(frozen=True)
class ScanCounts:
    """What scan_settings_and_pending counted: pending vectors (n, at most PENDING_COUNT_LIMIT), whether
    a critical memory is in the namespaces read (None: not asked) and, with the scope, the rows it
    leaves (bounded) and the planner's estimate of the table's rows."""

    n: int
    critical: bool | None
    scope_rows: int | None
    table_rows: float | None


@dataclass(frozen=True)
class ScanSettings:
    """The HNSW walk's settings for the transaction and the bounds of an exact scan (the settings
    hnsw_ef_search, hnsw_max_scan_tuples, recall_exact_scan_*); count_scope False: no exact scan
    (recall_exact_scan_max_rows 0), the scope's rows are not counted."""

    ef_search: int
    max_scan_tuples: int
    exact_max_rows: int
    sparse_rows: int
    sparse_share: float
    count_scope: bool = True
    idf_rows: int = 0  # the count goes at least this far (CandidateQuery.idf_rows): the keyword side reuses it
    critical: bool = False  # ask whether a critical memory is in the namespaces read


def scan_settings_and_pending(conn: Conn, plan: RecallPlan, scan: ScanSettings) -> ScanCounts | None:
    """One round trip: the HNSW scan settings for this transaction, the pending-vector count, with
    scan.critical whether a critical memory is in the plan's namespaces, and, with scan.count_scope, the
    plan's scope's rows beside the planner's estimate of the table's rows."""
    params = plan.params | {
        "ef_search": str(int(scan.ef_search)),
        "max_scan_tuples": str(int(scan.max_scan_tuples)),
        "exact_max_rows": scan.exact_max_rows,
        "sparse_rows": scan.sparse_rows,
        "sparse_share": scan.sparse_share,
        "idf_rows": scan.idf_rows,
    }
    critical = (
        sql.SQL("m.namespace = ANY(%(namespaces)s)" if "namespaces" in plan.params else "true")
        if scan.critical
        else None
    )
    statement = _scan_settings_and_pending_sql(plan.where, plan.counted_scope if scan.count_scope else None, critical)
    with conn.cursor(row_factory=tuple_row) as cur:
        row = cur.execute(statement, params).fetchone()
    if row is None:
        return None
    # three set_config results, the pending count, the critical memories' presence, the scope's two counts
    _, _, _, n, critical_found, *scope = row
    return ScanCounts(
        n=n, critical=critical_found, scope_rows=scope[0] if scope else None, table_rows=scope[1] if scope else None
    )


def vector_ids(conn: Conn, plan: RecallPlan, q: CandidateQuery, exact: bool) -> list[UUID]:
    """The vector top-k's chunk ids, best first (candidate_store.vector_sql)."""
    assert q.vector is not None
    params = plan.params | {"qvec": q.vector.literal, "model": q.vector.model_id, "k": q.k}
    with conn.cursor(row_factory=scalar_row) as cur:
        return list(cur.execute(vector_sql(plan, q.vector.dimension, exact), params).fetchall())


# Planning the candidate statement took 1.2 ms at 10k chunks, more than its vector side ran: through the
# shared indexes (the HNSW walk, the text index) its plan does not depend on the values, so that
# statement is prepared and planned once per connection, generic. The setting is the transaction's
# while the statement runs and is put back after it, in the same round trip: the exact scan's
# statements keep the default choice (forced generic, one read a namespace by sequential scan).
_GENERIC_PLAN = (
    "SELECT set_config('engram.plan_cache_mode', current_setting('plan_cache_mode'), true),"
    " set_config('plan_cache_mode', 'force_generic_plan', true)"
)
_PLAN_AS_BEFORE = "SELECT set_config('plan_cache_mode', current_setting('engram.plan_cache_mode'), true)"


def candidate_rows(conn: Conn, plan: RecallPlan, q: CandidateQuery, strategy: ScanStrategy) -> list[CandidateRow]:
    """The candidate statement's rows (candidate_store.candidate_statement), typed. Read in binary and
    built from positional values (the SELECT list is CandidateRow's fields in order, select_list): a recall
    reads a few hundred rows, and parsing their ids and instants as text and building each one from
    keyword arguments was two thirds of the fetch."""
    statement, params = candidate_statement(plan, q, strategy)
    with conn.cursor(row_factory=args_row(CandidateRow), binary=True) as cur:
        if strategy.exact or strategy.keyword_scope:
            # Never prepared: a prepared statement is planned generic once PostgreSQL finds that plan no
            # dearer than the first five, and for a namespace and tag at 100k the generic plan took 47 ms
            # a recall against 20 planned for its values. An unnamed statement is planned for its values
            # every time, and parsing it again costs no measurable time (8.71 ms against 8.82 prepared).
            return cur.execute(statement, params, prepare=False).fetchall()
        with conn.pipeline():
            conn.execute(_GENERIC_PLAN)
            cur.execute(statement, params, prepare=True)
            conn.execute(_PLAN_AS_BEFORE)
        return cur.fetchall()


# Engram-rs's activation boost: what keeps being recalled resists consolidation's decay. Rows are
# locked in id order and a row another transaction holds is skipped, not waited for: concurrent
# recalls of overlapping memories in other orders deadlocked (40P01, a 409 to the client) when each
# waited for the other's rows. A skipped row misses one touch, which only nudges a heuristic.
_TOUCH = (
    "UPDATE memories m SET access_count = LEAST(m.access_count::bigint + 1, %s), last_accessed = now(),"
    " importance = LEAST(1, m.importance + %s)"
    " FROM (SELECT id FROM memories WHERE id = ANY(%s) ORDER BY id FOR UPDATE SKIP LOCKED) free WHERE m.id = free.id"
)


def touch_memories(conn: Conn, memory_ids: Sequence[UUID], boost: float, max_count: int) -> None:
    """Count an access of each memory (capped at max_count) and raise its importance by boost."""
    conn.execute(_TOUCH, (max_count, boost, list(memory_ids)))


def defer_wal_flush(conn: Conn) -> None:
    """This transaction's commit returns before its WAL reaches disk. A recall writes only what a read
    leaves behind (its recall event, the touch, the namespace's activity note): a database crash in the
    next ~0.6 s (three wal_writer_delay) may lose those and nothing else, and PostgreSQL's asynchronous
    commit leaves the database as if they had rolled back. Waiting was a WAL flush on every recall of
    `make dev` and a storage quorum's acknowledgement on Aurora. LOCAL: the pooled connection's next
    transaction (a write the caller was promised) commits as before."""
    conn.execute("SET LOCAL synchronous_commit = off")


# What trace reads of each expected chunk: its filter fields, its memory's status and validity, whether a
# live supersedes link replaced it, whether it holds a query word and whether it has a vector.
_TRACE_FIELDS: dict[str, sql.Composable] = {
    "chunk_id": sql.SQL("c.id"),
    "pending": sql.SQL("c.embedding IS NULL"),
    **{name: sql.SQL(f"m.{name}") for name in ("status", "layer", "valid_from", "valid_to", "created_at")},
    "superseded": sql.SQL(
        "EXISTS (SELECT 1 FROM links l WHERE l.to_id = m.id AND l.relation = 'supersedes' AND l.ended_at IS NULL)"
    ),
    "keyword_match": sql.SQL(
        "COALESCE(c.tsv @@ NULLIF(replace(plainto_tsquery('english', %(query)s)::text, ' & ', ' | '), '')::tsquery,"
        " false)"
    ),
}


def trace_targets(
    conn: Conn, memory_ids: list[UUID], phrases: list[str], query: str, per_phrase: int
) -> list[TraceTarget]:
    """The chunks of the expected memories (`expected`: the id as text) and, for each phrase, the newest
    chunks holding it (`expected`: the phrase), whatever recall's filters: trace says which one left them out."""
    columns = select_list(TraceTarget, "c", expressions=_TRACE_FIELDS, leave_out=("expected",))
    query_sql = sql.SQL(
        "SELECT m.id::text AS expected, {columns}"
        " FROM memories m JOIN chunks c ON c.memory_id = m.id WHERE m.id = ANY(%(ids)s)"
        " UNION ALL"
        " SELECT x.* FROM unnest(%(phrases)s::text[]) p(phrase) CROSS JOIN LATERAL (SELECT p.phrase AS expected,"
        " {columns} FROM chunks c LEFT JOIN memories m ON m.id = c.memory_id"
        " WHERE strpos(lower(c.text), lower(p.phrase)) > 0 ORDER BY c.occurred_at DESC, c.id LIMIT %(per_phrase)s) x"
    ).format(columns=columns)
    params = {"ids": memory_ids, "phrases": phrases, "query": query, "per_phrase": per_phrase}
    with conn.cursor(row_factory=class_row(TraceTarget)) as cur:
        return cur.execute(query_sql, params).fetchall()

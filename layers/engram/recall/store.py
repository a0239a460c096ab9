"""The SQL of recall: filters and the one-round-trip candidate query (vector + keyword)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString
from uuid import UUID

from psycopg import sql
from psycopg.rows import DictRow

from engram.core.db import Conn
from engram.recall.models import RecallRequest


def recall_filters(req: RecallRequest) -> tuple[sql.Composable, dict[str, Any]]:
    """The request's filters on chunks `c`: constant conditions with named parameters."""
    clauses: list[LiteralString] = ["c.active"]
    params: dict[str, Any] = {}
    namespaces = list(req.namespaces or []) + ([req.namespace] if req.namespace else [])
    if namespaces:
        clauses.append("c.namespace = ANY(%(namespaces)s)")
        params["namespaces"] = namespaces
    if req.tags:
        clauses.append("c.tags @> %(tags)s")
        params["tags"] = req.tags
    if req.kinds:  # memory kinds and/or 'conversation' (conversation windows)
        clauses.append("c.kind = ANY(%(kinds)s)")
        params["kinds"] = list(req.kinds)
    if req.conversation_id:
        clauses.append("c.conversation_id = %(conversation_id)s")
        params["conversation_id"] = req.conversation_id
    if req.source:
        clauses.append("c.source = %(source)s")
        params["source"] = req.source
    if req.layers:  # in the query, so matches below the first k are found too; windows have no layer
        clauses.append("EXISTS (SELECT 1 FROM memories m WHERE m.id = c.memory_id AND m.layer = ANY(%(layers)s))")
        params["layers"] = list(req.layers)
    if req.topics:  # the topics' memories: engram.topics looks them up inside the recall's transaction
        clauses.append("c.memory_id = ANY(%(topic_memories)s)")
    if req.since:
        clauses.append("c.occurred_at >= %(since)s")
        params["since"] = req.since
    if req.until:
        clauses.append("c.occurred_at < %(until)s")
        params["until"] = req.until
    return sql.SQL(" AND ").join(map(sql.SQL, clauses)), params


def chunk_vectors(conn: Conn, chunk_ids: list[UUID]) -> dict[UUID, list[float]]:
    """The stored vectors of these chunks (those that have one). As float4 arrays in binary: psycopg reads
    them in C, six times faster than parsing pgvector's text (400 x 384-d: ~60 ms against ~390)."""
    with conn.cursor(binary=True) as cur:
        rows = cur.execute(
            "SELECT id, embedding::real[] AS embedding FROM chunks WHERE id = ANY(%s) AND embedding IS NOT NULL",
            (chunk_ids,),
        ).fetchall()
    return {r["id"]: r["embedding"] for r in rows}


def scope_filter(req: RecallRequest) -> sql.Composable:
    """The part of the filters an index finds rows by (tenant, namespaces, conversation; tags, which
    chunks_scope carries since migration 0016), with recall_filters' parameter names: the rows an exact
    scan reads. `embedding IS NOT NULL` is chunks_scope's predicate (migration 0009): only this
    condition lets a query use that index."""
    clauses: list[LiteralString] = ["c.embedding IS NOT NULL"]
    if req.namespaces or req.namespace:
        clauses.append("c.namespace = ANY(%(namespaces)s)")
    if req.conversation_id:
        clauses.append("c.conversation_id = %(conversation_id)s")
    if req.tags:
        clauses.append("c.tags @> %(tags)s")
    return sql.SQL(" AND ").join(map(sql.SQL, clauses))


# The pending-vector count stops here: recall only says "N+" beyond it.
PENDING_COUNT_LIMIT = 1000


def scan_settings_and_pending_sql(where: sql.Composable, scope: sql.Composable | None = None) -> sql.Composed:
    """One round trip: the HNSW scan settings for this transaction, the pending-vector count (n) and,
    with a scope, its rows (scope_rows; index-only on chunks_scope) beside the planner's estimate of
    the table's rows (table_rows: pg_class, no scan; -1 before the first ANALYZE). The count stops one
    past the most rows an exact scan could take at this table size: %(exact_max_rows)s, or up to
    %(sparse_rows)s when %(sparse_share)s of the table is more (a tag that 1 in 7 rows carry is
    counted through ~7 index entries per row that passes)."""
    scope_rows = (
        sql.SQL(
            ", (SELECT count(*) FROM (SELECT 1 FROM chunks c WHERE {scope} LIMIT (SELECT"
            " GREATEST(%(exact_max_rows)s, LEAST(%(sparse_rows)s, %(sparse_share)s * reltuples))::bigint + 1"
            " FROM pg_class WHERE oid = 'chunks'::regclass)) s) AS scope_rows,"
            " (SELECT reltuples FROM pg_class WHERE oid = 'chunks'::regclass) AS table_rows"
        ).format(scope=scope)
        if scope is not None
        else sql.SQL("")
    )
    return sql.SQL(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
        " set_config('hnsw.ef_search', %(ef_search)s, true),"
        " set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true),"
        " (SELECT count(*) FROM (SELECT 1 FROM chunks c WHERE c.embedding IS NULL AND {where}"
        " LIMIT {pending_limit}) p)"
        " AS n{scope_rows}"
    ).format(where=where, scope_rows=scope_rows, pending_limit=sql.Literal(PENDING_COUNT_LIMIT))


@dataclass(frozen=True)
class ScanCounts:
    """What scan_settings_and_pending_sql counted: pending vectors (n, at most PENDING_COUNT_LIMIT) and,
    with a scope, the rows it leaves (bounded) and the planner's estimate of the table's rows."""

    n: int
    scope_rows: int | None
    table_rows: float | None


def scan_settings_and_pending(
    conn: Conn, where: sql.Composable, scope: sql.Composable | None, params: dict[str, Any]
) -> ScanCounts | None:
    row = conn.execute(scan_settings_and_pending_sql(where, scope), params).fetchone()
    if row is None:
        return None
    return ScanCounts(n=row["n"], scope_rows=row.get("scope_rows"), table_rows=row.get("table_rows"))


def vector_ids(
    conn: Conn, where: sql.Composable, dimension: int, exact: sql.Composable | None, params: dict[str, Any]
) -> list[UUID]:
    """The vector top-k's chunk ids, best first (vector_sql)."""
    return [r["id"] for r in conn.execute(vector_sql(where, dimension, exact), params).fetchall()]


def candidate_rows(conn: Conn, query: sql.Composed, params: dict[str, Any]) -> list[DictRow]:
    """The candidate query's rows (candidate_sql). They stay dict rows: ranking's Candidate carries
    each one whole, and its unit tests build candidates from plain dicts."""
    return conn.execute(query, params).fetchall()


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


def _distance(dimension: int) -> sql.Composed:
    # The dimension is a literal in the query so the planner matches the partial HNSW index of that dimension.
    d = sql.Literal(int(dimension))
    return sql.SQL("c.embedding::halfvec({d}) <=> %(qvec)s::vector::halfvec({d})").format(d=d)


def vector_sql(where: sql.Composable, dimension: int, exact: sql.Composable | None) -> sql.Composed:
    """The vector top-k (id, sim). Approximate: the shared HNSW graph, walked iteratively until k rows
    pass the filter. Exact (`exact`: scope_filter's condition): every row the filter leaves, found
    through chunks_scope, ordered by its distance; OFFSET 0 keeps the ORDER BY off the HNSW index."""
    distance = _distance(dimension)
    rows = sql.SQL("FROM chunks c WHERE c.embedding_dim = {d} AND c.model_id = %(model)s AND {where}").format(
        d=sql.Literal(int(dimension)), where=where
    )
    if exact is not None:
        return sql.SQL(
            "SELECT id, 1 - dist AS sim FROM (SELECT c.id, {distance} AS dist {rows} AND {scope}"
            " OFFSET 0) s ORDER BY dist LIMIT %(k)s"
        ).format(distance=distance, rows=rows, scope=exact)
    return sql.SQL("SELECT c.id, 1 - ({distance}) AS sim {rows} ORDER BY {distance} LIMIT %(k)s").format(
        distance=distance, rows=rows
    )


def candidate_sql(
    where: sql.Composable,
    dimension: int | None,
    use_keyword: bool,
    *,
    exact: sql.Composable | None = None,
    keyword_scope: sql.Composable | None = None,
    keyword_idf: bool = False,
    count_scope: sql.Composable | None = None,
    neighbour_weight: float = 0.0,
    pending: bool = True,
    feedback: bool = False,
    critical: bool = False,
) -> sql.Composed:
    """The candidates of both retrievals in one query. `exact`: vector_sql's. `keyword_scope`
    (scope_filter's condition, when the rows it leaves are few): the keyword side reads those rows
    by index and matches each, instead of walking the table-wide text index.

    When both sides scan the scope, one pass reads its rows (`scoped`: each row's words and distance)
    and both rank from it: the rows of a big tenant's narrow filter are scattered over the table, and
    reading them is most of the cost (1,143 rows of an 80k-row tenant: 17-26 ms a pass). There a
    conversation turn's vector score is its cosine plus `neighbour_weight` x the higher cosine of the
    turns beside it said the same day (ranking.NEIGHBOUR_VECTOR_WEIGHT): the answer is often the reply
    to the turn that matches the question.

    `pending`: whether the filters leave rows without a vector (the count scan_settings_and_pending made
    in this transaction: %(pending_rows)s, or NULL past PENDING_COUNT_LIMIT); without any, the scope's
    pending half is not read. `feedback`: each row's stored feedback weight (feedback_weight,
    feedback_updated_at; engram.feedback decays it). `critical`: the critical memories the filters leave
    follow the candidates (critical_rows' query, critical_rank 1, 2, ...; every candidate's is NULL), so
    recall reads them in the same round trip."""
    shared = use_keyword and keyword_scope is not None
    scoped: sql.Composable = sql.SQL("")
    if shared:
        dist = (
            sql.SQL("CASE WHEN c.embedding_dim = {d} AND c.model_id = %(model)s THEN {distance} END").format(
                d=sql.Literal(int(dimension)), distance=_distance(dimension)
            )
            if dimension and exact is not None
            else sql.SQL("NULL::float8")
        )
        pending_rows = (
            sql.SQL(
                " UNION ALL SELECT c.id, c.tsv, c.conversation_id, c.seq_from,"
                " (c.occurred_at AT TIME ZONE 'UTC')::date,"
                " NULL::float8 FROM chunks c WHERE c.embedding IS NULL AND {where}"
            ).format(where=where)
            if pending
            else sql.SQL("")
        )
        scoped = sql.SQL(
            "scoped AS MATERIALIZED (SELECT c.id, c.tsv, c.conversation_id, c.seq_from,"
            " (c.occurred_at AT TIME ZONE 'UTC')::date AS day, {dist} AS dist FROM chunks c WHERE {scope} AND {where}"
            "{pending_rows}), "
        ).format(dist=dist, scope=keyword_scope, where=where, pending_rows=pending_rows)
    if dimension and shared and exact is not None and neighbour_weight > 0:
        vec: sql.Composable = sql.SQL(
            "vec AS MATERIALIZED (SELECT id, sim FROM (SELECT id, 1 - dist + {w} * GREATEST("
            "CASE WHEN lag(day) OVER w = day THEN 1 - lag(dist) OVER w END,"
            " CASE WHEN lead(day) OVER w = day THEN 1 - lead(dist) OVER w END, 0) AS sim"
            " FROM scoped WHERE dist IS NOT NULL AND conversation_id IS NOT NULL"
            " WINDOW w AS (PARTITION BY conversation_id ORDER BY seq_from)"
            " UNION ALL SELECT id, 1 - dist FROM scoped WHERE dist IS NOT NULL AND conversation_id IS NULL) n"
            " ORDER BY sim DESC LIMIT %(k)s)"
        ).format(w=sql.Literal(float(neighbour_weight)))
    elif dimension and shared and exact is not None:
        vec = sql.SQL(
            "vec AS MATERIALIZED (SELECT id, 1 - dist AS sim FROM scoped WHERE dist IS NOT NULL"
            " ORDER BY dist LIMIT %(k)s)"
        )
    elif dimension:
        vec = sql.SQL("vec AS MATERIALIZED ({q})").format(q=vector_sql(where, dimension, exact))
    else:
        vec = sql.SQL("vec AS (SELECT NULL::uuid AS id, NULL::float8 AS sim WHERE false)")
    kw = _keyword_sql(where, shared, keyword_idf, count_scope) if use_keyword else _NO_KEYWORD
    weights = _FEEDBACK_WEIGHTS if feedback else _NO_FEEDBACK_WEIGHTS
    pinned = sql.SQL(" UNION ALL ({critical})").format(critical=_critical_sql(where)) if critical else sql.SQL("")
    sessions = keyword_idf and use_keyword
    return sql.SQL("WITH {scoped}{vec}, {kw}, {found} {validity}){sessions} {rows}{pinned}").format(
        scoped=scoped,
        vec=vec,
        kw=kw,
        found=_FOUND.format(weights=weights[0], weights_join=weights[1]),
        validity=_VALID_AT,
        sessions=_SESSIONS if sessions else sql.SQL(""),
        rows=_CANDIDATE_ROWS.format(
            session_total=sql.SQL("s.total" if sessions else "NULL::float8"),
            sessions_join=_SESSIONS_JOIN if sessions else sql.SQL(""),
        ),
        pinned=pinned,
    )


# A query word found only in a turn's neighbours (chunks.context, weight D) counts this share of its
# weight: the turn is found by it but ranks below one that says the word itself (bench/dialogue_recall.py).
CONTEXT_WORD_WEIGHT = 0.5

_NO_KEYWORD = sql.SQL("kw AS (SELECT NULL::uuid AS id, NULL::float8 AS rank, NULL::text[] AS terms WHERE false)")


def _keyword_sql(
    where: sql.Composable, scoped_rows: bool, keyword_idf: bool, count_scope: sql.Composable | None = None
) -> sql.Composed:
    """The keyword top-k (id, rank, terms), ranked by BM25's inverse document frequency of each query
    word among the rows the filters leave (a word most rows share, a speaker's name or "work", weighs
    little beside a rare one); a word a conversation turn holds only in its neighbours (chunks.context,
    weight D) counts CONTEXT_WORD_WEIGHT of it. Turns are short, so term frequency and length are left
    out. Any query word may match (OR): questions rarely share every word. `terms`: the query words a
    conversation turn holds itself (candidate_sql adds their weights up per session: `_SESSIONS`).

    Each query word finds its rows once (`matches`: one index probe per word), and that one pass gives
    both the words' document frequencies and each row's rank: no per-row subquery, no second count.
    Matches are grouped and joined by the word's text, not its tsquery (sorting tsqueries is slow).
    Rows holding the same words tie on their weights; the one with fewer distinct words leads by a
    millionth, so ties break by content (an id would not survive an export and import).
    The rows a word may match come from one of two sources. Without a scope: the GIN index on tsv
    through tenant_chunks (migration 0004). With `scoped_rows` (the scope's rows are few): candidate_sql's
    `scoped` rows, found by the partial indexes that find a tenant's rows, read once and matched in
    memory (the shared text index walks every tenant's rows holding a word: a small tenant beside a big
    one holding common words was 2-3x slower than the big one). The scope's size counts at most
    %(idf_rows)s rows (index-only, through chunks_scope: `count_scope`), so a word in that many rows or
    more weighs about nothing and a large namespace costs no more than that.
    """
    if not keyword_idf:
        rows = sql.SQL("scoped c" if scoped_rows else "tenant_chunks c")
        match = sql.SQL("" if scoped_rows else " AND {where}").format(where=where)
        return sql.SQL(
            "tq AS (SELECT NULLIF(replace(plainto_tsquery('english', %(query)s)::text, ' & ', ' | '), '')::tsquery"
            " AS q),"
            " kw AS MATERIALIZED (SELECT c.id, ts_rank_cd(c.tsv, tq.q, 32) AS rank, NULL::text[] AS terms"
            " FROM {rows}, tq WHERE tq.q IS NOT NULL AND c.tsv @@ tq.q{match} ORDER BY rank DESC LIMIT %(k)s)"
        ).format(rows=rows, match=match)
    found: sql.Composable
    total: sql.Composable
    if scoped_rows:
        found = sql.SQL("scoped c ON c.tsv @@ words.tq")
        total = sql.SQL("LEAST((SELECT count(*) FROM scoped), %(idf_rows)s)")
    else:
        found = sql.SQL("tenant_chunks c ON c.tsv @@ words.tq AND {where}").format(where=where)
        # Counted in two halves, embedded and pending: only those conditions match the partial indexes
        # (counted whole, a 50-row tenant's count read the entire table).
        # The pending half is the count this transaction made already (scan_settings_and_pending), unless
        # that one stopped at its limit.
        total = sql.SQL(
            "(SELECT count(*) FROM (SELECT 1 FROM tenant_chunks c WHERE {scope} LIMIT %(idf_rows)s) s)"
            " + COALESCE(%(pending_rows)s::bigint, (SELECT count(*) FROM (SELECT 1 FROM tenant_chunks c"
            " WHERE c.embedding IS NULL AND {where} LIMIT %(idf_rows)s) p))"
        ).format(scope=count_scope if count_scope is not None else sql.SQL("c.embedding IS NOT NULL"), where=where)
    return sql.SQL(
        "words AS (SELECT DISTINCT w AS q, quote_literal(w)::tsquery AS tq, (quote_literal(w) || ':A')::tsquery AS qa"
        " FROM unnest(tsvector_to_array(to_tsvector('english', %(query)s))) AS w),"
        " matches AS MATERIALIZED (SELECT words.q, c.id, c.tsv @@ words.qa AS own,"
        " c.conversation_id IS NOT NULL AS turn, length(c.tsv) AS lexemes FROM words JOIN {found}),"
        " idf AS MATERIALIZED (SELECT d.q, ln(1 + (GREATEST(t.n, d.df) - d.df + 0.5) / (d.df + 0.5)) AS w"
        " FROM (SELECT q, count(*) AS df FROM matches GROUP BY q) d, (SELECT {total} AS n) t),"
        " kw AS MATERIALIZED (SELECT m.id, sum(CASE WHEN m.own THEN idf.w ELSE {context} * idf.w END)"
        " + 1e-6 / (1 + min(m.lexemes)) AS rank,"
        " array_agg(m.q) FILTER (WHERE m.own AND m.turn) AS terms"
        " FROM matches m JOIN idf ON idf.q = m.q GROUP BY m.id ORDER BY rank DESC, m.id LIMIT %(k)s)"
    ).format(found=found, total=total, context=sql.Literal(CONTEXT_WORD_WEIGHT))


_FOUND = sql.SQL(
    # Both lists' rows grouped by id, not joined back to each list: with the keyword list's row estimate
    # (~2), the planner joined it as a nested loop that compared every row with every other (400 x 400).
    "ids AS (SELECT id, max(sim) AS sim, max(rank) AS rank, max(terms) AS terms"
    " FROM (SELECT id, sim, NULL::float8 AS rank, NULL::text[] AS terms FROM vec"
    " UNION ALL SELECT id, NULL, rank, terms FROM kw) both_lists GROUP BY id),"
    # A chunk belongs to a memory or to a conversation (chunks_one_owner): memory fields get
    # conversation equivalents (neutral importance, no layer, created_at = the window's last turn).
    " found AS (SELECT c.id AS chunk_id, c.memory_id, c.conversation_id, c.seq_from, c.seq_to, c.text,"
    " c.position, c.char_start, c.occurred_at, ids.sim, ids.rank, c.namespace, c.kind, m.layer,"
    " COALESCE(m.tags, c.tags) AS tags, COALESCE(m.importance, 0.5) AS importance, c.source,"
    " COALESCE(m.created_at, c.occurred_at) AS created_at, m.last_accessed, {weights},"
    " CASE WHEN c.conversation_id IS NOT NULL THEN ids.terms END AS terms"
    " FROM ids JOIN chunks c ON c.id = ids.id LEFT JOIN memories m ON m.id = c.memory_id{weights_join}"
    " WHERE (m.status = 'active' OR c.conversation_id IS NOT NULL)"
)
# ranking.rank_sessions' session list: each session's (a conversation's turns of one UTC day) sum of the
# query words' weights that its candidate turns hold themselves, each word once. Summed here: read back
# as each row's words, parsing them was a third of the rows' fetch. The weights are numeric, so the sum
# does not depend on the order: sessions holding the same words tie.
_SESSIONS = sql.SQL(
    ", sessions AS (SELECT s.conversation_id, s.day, sum(idf.w)::float8 AS total"
    " FROM (SELECT DISTINCT f.conversation_id, (f.occurred_at AT TIME ZONE 'UTC')::date AS day, t.q"
    " FROM found f, unnest(f.terms) AS t(q) WHERE f.terms IS NOT NULL) s"
    " JOIN idf ON idf.q = s.q GROUP BY s.conversation_id, s.day)"
)
_SESSIONS_JOIN = sql.SQL(
    " LEFT JOIN sessions s ON s.conversation_id = f.conversation_id"
    " AND s.day = (f.occurred_at AT TIME ZONE 'UTC')::date"
)
_CANDIDATE_ROWS = sql.SQL(
    "SELECT f.chunk_id, f.memory_id, f.conversation_id, f.seq_from, f.seq_to, f.text, f.position, f.char_start,"
    " f.occurred_at, f.sim, f.rank, f.namespace, f.kind, f.layer, f.tags, f.importance, f.source, f.created_at,"
    " f.last_accessed, f.feedback_weight, f.feedback_updated_at, {session_total} AS session_total,"
    " NULL::bigint AS critical_rank FROM found f{sessions_join}"
)
# Feedback's weight of a result (engram.feedback decays it): its memory's, or a conversation window's own
# (its chunk id); one per tenant and target (the key; row-level security keeps the tenant's).
_FEEDBACK_WEIGHTS = (
    sql.SQL("fw.weight::float8 AS feedback_weight, fw.updated_at AS feedback_updated_at"),
    sql.SQL(" LEFT JOIN feedback_weights fw ON fw.target_id = COALESCE(c.memory_id, c.id)"),
)
_NO_FEEDBACK_WEIGHTS = (
    sql.SQL("NULL::float8 AS feedback_weight, NULL::timestamptz AS feedback_updated_at"),
    sql.SQL(""),
)
# What is valid at an instant, as_of or else now: valid_from (or, without one, the creation time)
# <= as_of < valid_to; a conversation turn counts from when it was said. A memory whose validity
# ended (superseded, expired) is history, only with include_expired; one not valid yet never is.
_VALID_AT = sql.SQL(
    "AND COALESCE(m.valid_from, m.created_at, c.occurred_at) <= COALESCE(%(as_of)s::timestamptz, now())"
    " AND (%(include_expired)s OR m.valid_to IS NULL OR m.valid_to > COALESCE(%(as_of)s::timestamptz, now()))"
)


def _critical_sql(where: sql.Composable) -> sql.Composed:
    """The critical memories the filters leave, valid now (or at as_of), as candidate rows (each memory's
    first chunk) numbered by critical_rank: most important first, then newest; at most
    %(critical_limit)s. Found through memories_critical (migration 0030)."""
    return sql.SQL(
        "SELECT f.*, row_number() OVER (ORDER BY importance DESC, created_at DESC, memory_id) AS critical_rank"
        " FROM (SELECT DISTINCT ON (m.id) c.id AS chunk_id, c.memory_id, c.conversation_id, c.seq_from,"
        " c.seq_to, c.text, c.position, c.char_start, c.occurred_at, NULL::float8 AS sim, NULL::float8 AS rank,"
        " c.namespace, c.kind, m.layer, m.tags, m.importance, c.source, m.created_at, m.last_accessed,"
        " NULL::float8 AS feedback_weight, NULL::timestamptz AS feedback_updated_at, NULL::float8 AS session_total"
        " FROM memories m JOIN chunks c ON c.memory_id = m.id"
        " WHERE m.critical AND m.status = 'active' AND {where} {validity} ORDER BY m.id, c.position) f"
        " ORDER BY critical_rank LIMIT %(critical_limit)s"
    ).format(where=where, validity=_VALID_AT)


# What trace reads of each expected chunk: its filter fields, its memory's status and validity, whether a
# live supersedes link replaced it, whether it holds a query word and whether it has a vector.
_TRACE_COLUMNS = sql.SQL(
    "c.id AS chunk_id, c.memory_id, c.conversation_id, c.namespace, c.kind, c.tags, c.source, c.occurred_at,"
    " c.active, c.embedding IS NULL AS pending, m.status, m.layer, m.valid_from, m.valid_to, m.created_at,"
    " EXISTS (SELECT 1 FROM links l WHERE l.to_id = m.id AND l.relation = 'supersedes' AND l.ended_at IS NULL)"
    " AS superseded,"
    " COALESCE(c.tsv @@ NULLIF(replace(plainto_tsquery('english', %(query)s)::text, ' & ', ' | '), '')::tsquery,"
    " false) AS keyword_match"
)


def trace_targets(conn: Conn, memory_ids: list[UUID], phrases: list[str], query: str, per_phrase: int) -> list[DictRow]:
    """The chunks of the expected memories (`expected`: the id as text) and, for each phrase, the newest
    chunks holding it (`expected`: the phrase), whatever recall's filters: trace says which one left them out."""
    query_sql = sql.SQL(
        "SELECT m.id::text AS expected, {columns}"
        " FROM memories m JOIN chunks c ON c.memory_id = m.id WHERE m.id = ANY(%(ids)s)"
        " UNION ALL"
        " SELECT x.* FROM unnest(%(phrases)s::text[]) p(phrase) CROSS JOIN LATERAL (SELECT p.phrase AS expected,"
        " {columns} FROM chunks c LEFT JOIN memories m ON m.id = c.memory_id"
        " WHERE strpos(lower(c.text), lower(p.phrase)) > 0 ORDER BY c.occurred_at DESC, c.id LIMIT %(per_phrase)s) x"
    ).format(columns=_TRACE_COLUMNS)
    params = {"ids": memory_ids, "phrases": phrases, "query": query, "per_phrase": per_phrase}
    return conn.execute(query_sql, params).fetchall()

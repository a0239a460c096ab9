"""The one-round-trip candidate statement (vector + keyword, with the feedback weights, the sessions' sums
and the critical memories) that a plan (engram.recall.plan_store.RecallPlan), a query (CandidateQuery)
and a scan strategy (ScanStrategy) make. The service never sees SQL; engram.recall.store runs what this
module composes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import sql

from engram.core.select_lists import select_list
from engram.recall.plan_store import SCOPE_TABLE, RecallPlan
from engram.recall.rows import CandidateRow


@dataclass(frozen=True)
class QueryVector:
    """The query's vector (a pgvector literal) in the active embedding space."""

    literal: str
    model_id: str
    dimension: int


@dataclass(frozen=True)
class ScanStrategy:
    """How each side reads (engram.recall.service.scan_strategy): `exact`, the vector side scores the
    scope's rows exactly (else the HNSW walk); `keyword_scope`, the keyword side matches the scope's rows
    (else the table-wide text index). `pending_rows`: the filters' rows without a vector, as counted in
    this transaction (None: past the count's limit). `scope_rows`: the scope's embedded rows as counted
    in this transaction, at least up to CandidateQuery.idf_rows (None: not counted). `critical`: False when
    this transaction found no critical memory in the namespaces read, so the statement leaves out the
    part that reads them (planning it was a fifth of the statement's planning time)."""

    exact: bool = False
    keyword_scope: bool = False
    pending_rows: int | None = None
    scope_rows: int | None = None
    critical: bool = True


@dataclass(frozen=True)
class CandidateQuery:
    """One candidate statement's question: its words, its vector (None: keyword only), the candidates
    per list (`k`), the instant it reads, and what the ranking needs beside the rows (engram.recall.ranking's
    constants; feedback's weights; at most `critical_limit` critical memories, 0: none)."""

    query: str
    vector: QueryVector | None
    k: int
    use_keyword: bool = True
    as_of: datetime | None = None
    include_expired: bool = False
    keyword_idf: bool = True
    idf_rows: int = 2000
    context_word_weight: float = 0.5
    neighbour_weight: float = 0.0
    feedback: bool = False
    critical_limit: int = 0


def candidate_statement(
    plan: RecallPlan, q: CandidateQuery, strategy: ScanStrategy
) -> tuple[sql.Composed, dict[str, Any]]:
    """The candidates of both retrievals in one statement, as CandidateRow. With `strategy.exact`, the
    vector side scores the scope's rows exactly; with `strategy.keyword_scope` (the rows the scope leaves
    are few), the keyword side reads those rows by index and matches each, instead of walking the
    table-wide text index.

    When both sides scan the scope, one pass reads its rows (`scoped`: each row's words and distance)
    and both rank from it: the rows of a big tenant's narrow filter are scattered over the table, and
    reading them is most of the cost (1,143 rows of an 80k-row tenant: 17-26 ms a pass). There a
    conversation turn's vector score is its cosine plus `neighbour_weight` x the higher cosine of the
    turns beside it said the same day (ranking.NEIGHBOUR_VECTOR_WEIGHT): the answer is often the reply
    to the turn that matches the question. Without pending rows (strategy.pending_rows 0) the scope's
    pending half is not read.

    Each row carries its stored feedback weight (q.feedback; engram.feedback decays it) and, for a
    conversation turn, its session's sum of the query words' weights; the critical memories the filters
    leave follow the candidates (critical_rank 1, 2, ...; every candidate's is NULL), so recall reads
    them in the same round trip."""
    where, dimension = plan.where, q.vector.dimension if q.vector else None
    exact = plan.scope if strategy.exact and dimension else None
    shared = q.use_keyword and strategy.keyword_scope
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
                " (c.occurred_at AT TIME ZONE 'UTC')::date, NULL::float8 FROM chunks c"
                " WHERE c.embedding IS NULL AND {where}"
            ).format(where=where)
            if strategy.pending_rows != 0
            else sql.SQL("")
        )
        scoped = sql.SQL(
            "scoped AS MATERIALIZED (SELECT c.id, c.tsv, c.conversation_id, c.seq_from,"
            " (c.occurred_at AT TIME ZONE 'UTC')::date AS day, {dist} AS dist FROM {table} c"
            " WHERE {scope} AND {beyond}"
            "{pending_rows}), "
        ).format(
            dist=dist,
            table=sql.SQL(SCOPE_TABLE),
            scope=plan.scope,
            beyond=plan.beyond_scope,
            pending_rows=pending_rows,
        )
    if dimension and shared and exact is not None and q.neighbour_weight > 0:
        vec: sql.Composable = sql.SQL(
            "vec AS MATERIALIZED (SELECT id, sim FROM (SELECT id, 1 - dist + {w} * GREATEST("
            "CASE WHEN lag(day) OVER w = day THEN 1 - lag(dist) OVER w END,"
            " CASE WHEN lead(day) OVER w = day THEN 1 - lead(dist) OVER w END, 0) AS sim"
            " FROM scoped WHERE dist IS NOT NULL AND conversation_id IS NOT NULL"
            " WINDOW w AS (PARTITION BY conversation_id ORDER BY seq_from)"
            " UNION ALL SELECT id, 1 - dist FROM scoped WHERE dist IS NOT NULL AND conversation_id IS NULL) n"
            " ORDER BY sim DESC LIMIT %(k)s)"
        ).format(w=sql.Literal(float(q.neighbour_weight)))
    elif dimension and shared and exact is not None:
        vec = sql.SQL(
            "vec AS MATERIALIZED (SELECT id, 1 - dist AS sim FROM scoped WHERE dist IS NOT NULL"
            " ORDER BY dist LIMIT %(k)s)"
        )
    elif dimension:
        vec = sql.SQL("vec AS MATERIALIZED ({q})").format(q=vector_sql(plan, dimension, strategy.exact))
    else:
        vec = sql.SQL("vec AS (SELECT NULL::uuid AS id, NULL::float8 AS sim WHERE false)")
    kw = _keyword_sql(plan, shared, q, strategy.scope_rows) if q.use_keyword else _NO_KEYWORD
    sessions = q.keyword_idf and q.use_keyword
    weights = _FEEDBACK_WEIGHTS if q.feedback else _NO_FEEDBACK_WEIGHTS
    pinned = (
        sql.SQL(" UNION ALL ({critical})").format(critical=_critical_sql(where))
        if q.critical_limit and strategy.critical
        else sql.SQL("")
    )
    statement = sql.SQL(
        "WITH {scoped}{vec}, {kw}, {found} {validity}){sessions} SELECT {rows} FROM found f{join}{pinned}"
    ).format(
        scoped=scoped,
        vec=vec,
        kw=kw,
        found=_FOUND.format(columns=_FOUND_COLUMNS[q.feedback], weights_join=weights[1]),
        validity=_VALID_AT,
        sessions=_SESSIONS if sessions else sql.SQL(""),
        rows=_OUTER_COLUMNS[sessions],
        join=_SESSIONS_JOIN if sessions else sql.SQL(""),
        pinned=pinned,
    )
    params = plan.params | {
        "query": q.query,
        "k": q.k,
        "as_of": q.as_of,
        "include_expired": q.include_expired,
        "idf_rows": q.idf_rows,
        "pending_rows": strategy.pending_rows,
        "scope_rows": strategy.scope_rows,
        "critical_limit": q.critical_limit,
    }
    if q.vector is not None:
        params |= {"qvec": q.vector.literal, "model": q.vector.model_id}
    return statement, params


def _distance(dimension: int) -> sql.Composed:
    # The dimension is a literal in the query so the planner matches the partial HNSW index of that dimension.
    d = sql.Literal(int(dimension))
    return sql.SQL("c.embedding::halfvec({d}) <=> (SELECT %(qvec)s::vector::halfvec({d}))").format(d=d)


def vector_sql(plan: RecallPlan, dimension: int, exact: bool) -> sql.Composed:
    """The vector top-k (id, sim). Approximate: the shared HNSW graph, walked iteratively until k rows
    pass the filter. Exact: every row the plan's scope leaves, found through chunks_scope (and a tag's
    GIN index: SCOPE_TABLE), ordered by its distance; OFFSET 0 keeps the ORDER BY off the HNSW index."""
    distance = _distance(dimension)
    rows = sql.SQL("FROM {table} c WHERE c.embedding_dim = {d} AND c.model_id = %(model)s AND {where}").format(
        table=sql.SQL(SCOPE_TABLE if exact else "chunks"),
        d=sql.Literal(int(dimension)),
        where=sql.SQL("{scope} AND {beyond}").format(scope=plan.scope, beyond=plan.beyond_scope)
        if exact
        else plan.where,
    )
    if exact:
        return sql.SQL(
            "SELECT id, 1 - dist AS sim FROM (SELECT c.id, {distance} AS dist {rows} OFFSET 0) s"
            " ORDER BY dist LIMIT %(k)s"
        ).format(distance=distance, rows=rows)
    return sql.SQL("SELECT c.id, 1 - ({distance}) AS sim {rows} ORDER BY {distance} LIMIT %(k)s").format(
        distance=distance, rows=rows
    )


_NO_KEYWORD = sql.SQL("kw AS (SELECT NULL::uuid AS id, NULL::float8 AS rank, NULL::text[] AS terms WHERE false)")


def _keyword_sql(plan: RecallPlan, scoped_rows: bool, q: CandidateQuery, counted: int | None) -> sql.Composed:
    """The keyword top-k (id, rank, terms), ranked by BM25's inverse document frequency of each query
    word among the rows the filters leave (a word most rows share, a speaker's name or "work", weighs
    little beside a rare one); a word a conversation turn holds only in its neighbours (chunks.context,
    weight D) counts ranking.CONTEXT_WORD_WEIGHT of it. Turns are short, so term frequency and length are left
    out. Any query word may match (OR): questions rarely share every word. `terms`: the query words a
    conversation turn holds itself (candidate_statement adds their weights up per session: `_SESSIONS`),
    gathered for the k rows kept only: gathered while ranking every matching row, the grouping's state
    outgrew work_mem and spilled to disk (~1,500 rows at 100k chunks: 1 ms of a 16 ms statement).

    Each query word finds its rows once (`matches`: one index probe per word), and that one pass gives
    both the words' document frequencies and each row's rank: no per-row subquery, no second count.
    Matches are grouped and joined by the word's text, not its tsquery (sorting tsqueries is slow).
    Rows holding the same words tie on their weights; the one with fewer distinct words leads by a
    millionth, so ties break by content (an id would not survive an export and import). The arithmetic is
    float8, each row's sum rounded to 9 places (in float8 too: a cast to numeric and back for each row
    cost 0.4 ms of 6) so the order its words were added in cannot split a tie: numeric arithmetic on
    every match was a sixth of the statement.
    The rows a word may match come from one of two sources. Without a scope: the GIN index on tsv
    through tenant_chunks (migration 0004). With `scoped_rows` (the scope's rows are few): candidate_statement's
    `scoped` rows, found by the partial indexes that find a tenant's rows, read once and matched in
    memory (the shared text index walks every tenant's rows holding a word: a small tenant beside a big
    one holding common words was 2-3x slower than the big one). The scope's size counts at most
    %(idf_rows)s rows (index-only, through chunks_scope: the plan's scope), so a word in that many rows or
    more weighs about nothing and a large namespace costs no more than that. `counted`: that count,
    made already by the scan settings' statement in this transaction (None: counted here).

    A word in more rows than that count (`total`: the scope's rows counted, plus the pending ones) is
    left out: its weight was at most ln(1 + 0.5 / 2,001), 0.00025, yet its rows entered the keyword
    list and read a heap row each. Through the text index a word's rows are read only up to one past
    the count: at 1M chunks a word of this bench's vocabulary is in ~5,300 rows, at 100k in ~530 (all
    read, as before).
    """
    where = plan.where
    if not q.keyword_idf:
        rows = sql.SQL("scoped c" if scoped_rows else "tenant_chunks c")
        match = sql.SQL("" if scoped_rows else " AND {where}").format(where=where)
        return sql.SQL(
            "tq AS (SELECT NULLIF(replace(plainto_tsquery('english', %(query)s)::text, ' & ', ' | '), '')::tsquery"
            " AS q),"
            " kw AS MATERIALIZED (SELECT c.id, ts_rank_cd(c.tsv, tq.q, 32) AS rank, NULL::text[] AS terms"
            " FROM {rows}, tq WHERE tq.q IS NOT NULL AND c.tsv @@ tq.q{match} ORDER BY rank DESC LIMIT %(k)s)"
        ).format(rows=rows, match=match)
    matched: sql.Composable
    total: sql.Composable
    if scoped_rows:
        matched = sql.SQL("words JOIN scoped c ON c.tsv @@ words.tq")
        total = sql.SQL("LEAST((SELECT count(*) FROM scoped), %(idf_rows)s)")
    else:
        # A word is read up to one row past the rows the weights count: one in more rows than that is
        # left out (below), so its rows past them are never read.
        matched = sql.SQL(
            "words CROSS JOIN LATERAL (SELECT c.id, c.tsv, c.conversation_id FROM tenant_chunks c"
            " WHERE c.tsv @@ words.tq AND {where}"
            " LIMIT (SELECT n FROM total) + 1) c"
        ).format(where=plan.keyword_where)
        # Counted in two halves, embedded and pending: only those conditions match the partial indexes
        # (counted whole, a 50-row tenant's count read the entire table). The pending half is the count
        # this transaction made already, unless that one stopped at its limit.
        embedded = (
            sql.SQL("LEAST(%(scope_rows)s::bigint, %(idf_rows)s)")
            if counted is not None
            else sql.SQL("(SELECT count(*) FROM (SELECT 1 FROM tenant_chunks c WHERE {scope} LIMIT %(idf_rows)s) s)")
        ).format(scope=plan.counted_scope)
        total = sql.SQL(
            "{embedded}"
            " + COALESCE(%(pending_rows)s::bigint, (SELECT count(*) FROM (SELECT 1 FROM tenant_chunks c"
            " WHERE c.embedding IS NULL AND {where} LIMIT %(idf_rows)s) p))"
        ).format(embedded=embedded, where=where)
    return sql.SQL(
        "words AS (SELECT DISTINCT w AS q, quote_literal(w)::tsquery AS tq, (quote_literal(w) || ':A')::tsquery AS qa"
        " FROM unnest(tsvector_to_array(to_tsvector('english', %(query)s))) AS w),"
        " total AS MATERIALIZED (SELECT {total} AS n),"
        " matches AS MATERIALIZED (SELECT words.q, c.id, c.tsv @@ words.qa AS own,"
        " c.conversation_id IS NOT NULL AS turn, length(c.tsv) AS lexemes FROM {matched}),"
        " idf AS MATERIALIZED (SELECT d.q,"
        " ln(1 + (GREATEST(t.n, d.df) - d.df + 0.5::float8) / (d.df + 0.5::float8)) AS w"
        " FROM (SELECT q, count(*) AS df FROM matches GROUP BY q) d, total t WHERE d.df <= t.n),"
        " ranked AS MATERIALIZED (SELECT m.id,"
        " round(sum(CASE WHEN m.own THEN idf.w ELSE {context} * idf.w END) * 1e9::float8) / 1e9::float8"
        " + 1e-6::float8 / (1 + min(m.lexemes)) AS rank"
        " FROM matches m JOIN idf ON idf.q = m.q GROUP BY m.id ORDER BY rank DESC, m.id LIMIT %(k)s),"
        " kw AS MATERIALIZED (SELECT r.id, r.rank, array_agg(m.q) FILTER (WHERE m.own AND m.turn) AS terms"
        " FROM ranked r JOIN matches m ON m.id = r.id GROUP BY r.id, r.rank)"
    ).format(matched=matched, total=total, context=sql.Literal(float(q.context_word_weight)))


# Where each candidate field comes from: a chunk `c` and its memory `m` (none for a conversation window).
_ROW_FIELDS: dict[str, sql.Composable] = {
    "chunk_id": sql.SQL("c.id"),
    "memory_id": sql.SQL("c.memory_id"),
    "conversation_id": sql.SQL("c.conversation_id"),
    "seq_from": sql.SQL("c.seq_from"),
    "seq_to": sql.SQL("c.seq_to"),
    "text": sql.SQL("c.text"),
    "position": sql.SQL("c.position"),
    "char_start": sql.SQL("c.char_start"),
    "occurred_at": sql.SQL("c.occurred_at"),
    "namespace": sql.SQL("c.namespace"),
    "kind": sql.SQL("c.kind"),
    "layer": sql.SQL("m.layer"),
    "tags": sql.SQL("COALESCE(m.tags, c.tags)"),
    # real, read in binary, is its float4 value (0.699999988 for 0.7): as numeric first, the value stored
    "importance": sql.SQL("COALESCE(m.importance::numeric, 0.5)::float8"),
    "source": sql.SQL("c.source"),
    "created_at": sql.SQL("COALESCE(m.created_at, c.occurred_at)"),
    "last_accessed": sql.SQL("m.last_accessed"),
}
_FOUND_FIELDS = _ROW_FIELDS | {"sim": sql.SQL("ids.sim"), "rank": sql.SQL("ids.rank")}
_LATER = ("session_total", "critical_rank")  # the outer SELECT adds them
_FOUND = sql.SQL(
    # Both lists' rows grouped by id, not joined back to each list: with the keyword list's row estimate
    # (~2), the planner joined it as a nested loop that compared every row with every other (400 x 400).
    "ids AS (SELECT id, max(sim) AS sim, max(rank) AS rank, max(terms) AS terms"
    " FROM (SELECT id, sim, NULL::float8 AS rank, NULL::text[] AS terms FROM vec"
    " UNION ALL SELECT id, NULL, rank, terms FROM kw) both_lists GROUP BY id),"
    " found AS (SELECT {columns}, CASE WHEN c.conversation_id IS NOT NULL THEN ids.terms END AS terms"
    " FROM ids JOIN chunks c ON c.id = ids.id LEFT JOIN memories m ON m.id = c.memory_id{weights_join}"
    " WHERE (m.status = 'active' OR c.conversation_id IS NOT NULL)"
)
# ranking.rank_sessions' session list: each session's (a conversation's turns of one UTC day) sum of the
# query words' weights that its candidate turns hold themselves, each word once. Summed here: read back
# as each row's words, parsing them was a third of the rows' fetch. The weights are summed as numeric,
# so the sum does not depend on the order: sessions holding the same words tie.
_SESSIONS = sql.SQL(
    ", sessions AS (SELECT s.conversation_id, s.day, sum(idf.w::numeric)::float8 AS total"
    " FROM (SELECT DISTINCT f.conversation_id, (f.occurred_at AT TIME ZONE 'UTC')::date AS day, t.q"
    " FROM found f, unnest(f.terms) AS t(q) WHERE f.terms IS NOT NULL) s"
    " JOIN idf ON idf.q = s.q GROUP BY s.conversation_id, s.day)"
)
_SESSIONS_JOIN = sql.SQL(
    " LEFT JOIN sessions s ON s.conversation_id = f.conversation_id"
    " AND s.day = (f.occurred_at AT TIME ZONE 'UTC')::date"
)
# Feedback's weight of a result (engram.feedback decays it): its memory's, or a conversation window's own
# (its chunk id); one per tenant and target (the key; row-level security keeps the tenant's).
_FEEDBACK_WEIGHTS: tuple[dict[str, sql.Composable], sql.Composable] = (
    {"feedback_weight": sql.SQL("fw.weight::float8"), "feedback_updated_at": sql.SQL("fw.updated_at")},
    sql.SQL(" LEFT JOIN feedback_weights fw ON fw.target_id = COALESCE(c.memory_id, c.id)"),
)
_NO_FEEDBACK_WEIGHTS: tuple[dict[str, sql.Composable], sql.Composable] = (
    {"feedback_weight": sql.SQL("NULL::float8"), "feedback_updated_at": sql.SQL("NULL::timestamptz")},
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
        "SELECT {rows} FROM (SELECT DISTINCT ON (m.id) {first_chunks}"
        " FROM memories m JOIN chunks c ON c.memory_id = m.id WHERE m.critical AND m.status = 'active'"
        " AND {where} {validity} ORDER BY m.id, c.position) f"
        " ORDER BY critical_rank LIMIT %(critical_limit)s"
    ).format(rows=_CRITICAL_COLUMNS, first_chunks=_CRITICAL_FIRST_CHUNKS, where=where, validity=_VALID_AT)


# The SELECT lists, built once (a recall runs the statement with one of each pair): by feedback weights
# or none; by the session totals or none.
_FOUND_COLUMNS = {
    feedback: select_list(CandidateRow, expressions=_FOUND_FIELDS | weights[0], leave_out=_LATER)
    for feedback, weights in ((True, _FEEDBACK_WEIGHTS), (False, _NO_FEEDBACK_WEIGHTS))
}
_OUTER_COLUMNS = {
    sessions: select_list(
        CandidateRow,
        "f",
        expressions={
            "rank": sql.SQL("f.rank::float8"),
            "session_total": sql.SQL("s.total" if sessions else "NULL::float8"),
            "critical_rank": sql.SQL("NULL::bigint"),
        },
    )
    for sessions in (True, False)
}
_CRITICAL_FIRST_CHUNKS = select_list(
    CandidateRow,
    expressions=_ROW_FIELDS
    | {name: sql.SQL("NULL::float8") for name in ("sim", "rank", "feedback_weight", "session_total")}
    | {"feedback_updated_at": sql.SQL("NULL::timestamptz")},
    leave_out=("critical_rank",),
)
_CRITICAL_COLUMNS = select_list(
    CandidateRow,
    "f",
    expressions={
        "critical_rank": sql.SQL("row_number() OVER (ORDER BY f.importance DESC, f.created_at DESC, f.memory_id)")
    },
)

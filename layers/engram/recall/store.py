"""The SQL of recall: filters and the one-round-trip candidate query (vector + keyword)."""

from __future__ import annotations

from typing import Any, LiteralString
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import DictRow

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


def chunk_vectors(conn: psycopg.Connection[DictRow], chunk_ids: list[UUID]) -> dict[UUID, list[float]]:
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
) -> sql.Composed:
    """The candidates of both retrievals in one query. `exact`: vector_sql's. `keyword_scope`
    (scope_filter's condition, when the rows it leaves are few): the keyword side reads those rows
    by index and matches each, instead of walking the table-wide text index.

    When both sides scan the scope, one pass reads its rows (`scoped`: each row's words and distance)
    and both rank from it: the rows of a big tenant's narrow filter are scattered over the table, and
    reading them is most of the cost (1,143 rows of an 80k-row tenant: 17-26 ms a pass)."""
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
        scoped = sql.SQL(
            "scoped AS MATERIALIZED (SELECT c.id, c.tsv, {dist} AS dist FROM chunks c WHERE {scope} AND {where}"
            " UNION ALL SELECT c.id, c.tsv, NULL::float8 FROM chunks c WHERE c.embedding IS NULL AND {where}), "
        ).format(dist=dist, scope=keyword_scope, where=where)
    if dimension and shared and exact is not None:
        vec: sql.Composable = sql.SQL(
            "vec AS MATERIALIZED (SELECT id, 1 - dist AS sim FROM scoped WHERE dist IS NOT NULL"
            " ORDER BY dist LIMIT %(k)s)"
        )
    elif dimension:
        vec = sql.SQL("vec AS MATERIALIZED ({q})").format(q=vector_sql(where, dimension, exact))
    else:
        vec = sql.SQL("vec AS (SELECT NULL::uuid AS id, NULL::float8 AS sim WHERE false)")
    kw = _keyword_sql(where, shared, keyword_idf) if use_keyword else _NO_KEYWORD
    return sql.SQL("WITH {scoped}{vec}, {kw}, {rest} {validity}").format(
        scoped=scoped,
        vec=vec,
        kw=kw,
        rest=_CANDIDATE_ROWS.format(terms=_TURN_TERMS if use_keyword and keyword_idf else sql.SQL("NULL::jsonb")),
        validity=_VALID_AT,
    )


# A query word found only in a turn's neighbours (chunks.context, weight D) counts this share of its
# weight: the turn is found by it but ranks below one that says the word itself (bench/dialogue_recall.py).
CONTEXT_WORD_WEIGHT = 0.5

_NO_KEYWORD = sql.SQL("kw AS (SELECT NULL::uuid AS id, NULL::float4 AS rank WHERE false)")


def _keyword_sql(where: sql.Composable, scoped_rows: bool, keyword_idf: bool) -> sql.Composed:
    """The keyword top-k, ranked by BM25's inverse document frequency of each query word among the rows
    the filters leave (a word most rows share, a speaker's name or "work", weighs little beside a rare
    one) plus ts_rank_cd as the tie-break; turns are short, so term frequency and length are left to it.
    Any query word may match (OR): questions rarely share every word.

    Two sources of rows. Without a scope: the GIN index on tsv through tenant_chunks (migration 0004).
    It walks every tenant's rows holding a query word, so a small tenant's query beside a big tenant
    holding common words reads the big one's rows and throws them away (a 1% tenant was 2-3x slower
    than the big one). With `scoped_rows` (the scope's rows are few): candidate_sql's `scoped` rows,
    found by the partial indexes that find a tenant's rows (chunks_scope for embedded rows,
    chunks_pending for the others), read once and matched in memory; under row-level security, as
    no text operator reaches the table.
    Counts stop at %(idf_rows)s rows either way, so a word in that many rows or more weighs about
    nothing and a large namespace costs no more than that.
    """
    tq = sql.SQL(
        "tq AS (SELECT NULLIF(replace(plainto_tsquery('english', %(query)s)::text, ' & ', ' | '), '')::tsquery AS q),"
    )
    rows: sql.Composable
    match: sql.Composable
    total: sql.Composable
    df: sql.Composable
    if not scoped_rows:
        rows, match = sql.SQL("tenant_chunks c"), sql.SQL(" AND {where}").format(where=where)
        # Counted in two halves, embedded and pending: only those conditions match the partial indexes
        # (counted whole, a 50-row tenant's count read the entire table: 55 of its 60 ms at 100k chunks).
        total = sql.SQL(
            "(SELECT count(*) FROM (SELECT 1 FROM tenant_chunks c WHERE c.embedding IS NOT NULL AND {where}"
            " LIMIT %(idf_rows)s) s) + (SELECT count(*) FROM (SELECT 1 FROM tenant_chunks c"
            " WHERE c.embedding IS NULL AND {where} LIMIT %(idf_rows)s) p)"
        ).format(where=where)
        df = sql.SQL(
            "SELECT count(*) AS n FROM (SELECT 1 FROM tenant_chunks c WHERE c.tsv @@ words.q AND {where}"
            " LIMIT %(idf_rows)s) m"
        ).format(where=where)
    else:
        rows, match = sql.SQL("scoped c"), sql.SQL("")
        total = sql.SQL("LEAST((SELECT count(*) FROM scoped), %(idf_rows)s)")
        df = sql.SQL("SELECT LEAST(count(*), %(idf_rows)s) AS n FROM scoped c WHERE c.tsv @@ words.q")
    idf = (
        sql.SQL(
            " words AS (SELECT DISTINCT quote_literal(w)::tsquery AS q, (quote_literal(w) || ':A')::tsquery AS qa"
            " FROM unnest(tsvector_to_array(to_tsvector('english', %(query)s))) AS w),"
            " scope AS MATERIALIZED (SELECT {total} AS n),"
            " idf AS MATERIALIZED (SELECT words.q, words.qa,"
            " ln(1 + (GREATEST(scope.n, df.n) - df.n + 0.5) / (df.n + 0.5))"
            " AS w FROM words, scope, LATERAL ({df}) df),"
        ).format(total=total, df=df)
        if keyword_idf
        else sql.SQL("")
    )
    rank = (
        sql.SQL(
            "(SELECT sum(CASE WHEN c.tsv @@ idf.qa THEN idf.w ELSE {context} * idf.w END) FROM idf"
            " WHERE c.tsv @@ idf.q) + ts_rank_cd(c.tsv, tq.q, 32)"
        ).format(context=sql.Literal(CONTEXT_WORD_WEIGHT))
        if keyword_idf
        else sql.SQL("ts_rank_cd(c.tsv, tq.q, 32)")
    )
    return sql.SQL(
        "{tq}{idf} kw AS MATERIALIZED (SELECT c.id, {rank} AS rank FROM {rows}, tq"
        " WHERE tq.q IS NOT NULL AND c.tsv @@ tq.q{match} ORDER BY rank DESC LIMIT %(k)s)"
    ).format(tq=tq, idf=idf, rank=rank, rows=rows, match=match)


# A conversation turn's own words among the query's, with their weights: what ranking.session_scores
# adds up per session (the rows are few, so this costs a lookup each).
_TURN_TERMS = sql.SQL(
    "CASE WHEN c.conversation_id IS NOT NULL THEN"
    " (SELECT jsonb_object_agg(idf.q::text, idf.w) FROM idf WHERE c.tsv @@ idf.qa) END"
)
_CANDIDATE_ROWS = sql.SQL(
    "ids AS (SELECT id FROM vec UNION SELECT id FROM kw)"
    # A chunk belongs to a memory or to a conversation (chunks_one_owner): memory fields get
    # conversation equivalents (neutral importance, no layer, created_at = the window's last turn).
    " SELECT c.id AS chunk_id, c.memory_id, c.conversation_id, c.seq_from, c.seq_to, c.text, c.position,"
    " c.char_start, c.occurred_at, vec.sim, kw.rank, c.namespace, c.kind, m.layer,"
    " COALESCE(m.tags, c.tags) AS tags, COALESCE(m.importance, 0.5) AS importance, c.source,"
    " COALESCE(m.created_at, c.occurred_at) AS created_at, m.last_accessed, {terms} AS terms"
    " FROM ids JOIN chunks c ON c.id = ids.id LEFT JOIN memories m ON m.id = c.memory_id"
    " LEFT JOIN vec ON vec.id = ids.id LEFT JOIN kw ON kw.id = ids.id"
    " WHERE (m.status = 'active' OR c.conversation_id IS NOT NULL)"
)
# What is valid at an instant, as_of or else now: valid_from (or, without one, the creation time)
# <= as_of < valid_to; a conversation turn counts from when it was said. A memory whose validity
# ended (superseded, expired) is history, only with include_expired; one not valid yet never is.
_VALID_AT = sql.SQL(
    "AND COALESCE(m.valid_from, m.created_at, c.occurred_at) <= COALESCE(%(as_of)s::timestamptz, now())"
    " AND (%(include_expired)s OR m.valid_to IS NULL OR m.valid_to > COALESCE(%(as_of)s::timestamptz, now()))"
)

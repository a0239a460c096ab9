"""Vector recall for a small tenant whose rows are a sliver of a table dominated by a big tenant.

The shared HNSW graph is walked iteratively until enough rows pass the tenant filter or the scan
limit (hnsw.max_scan_tuples) is reached. With the big tenant's rows all nearer the query, the walk
spends its limit on them; recall must then score the small tenant's few rows exactly. A low scan
limit stands in for a table of millions of rows, so the test stays small.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any
from uuid import UUID, uuid4

import numpy as np
import pytest

DIM = 384
SMALL_ROWS = 40
BIG_ROWS = 2500


class FixedQuery:
    """The active space's embedder, answering every query with one chosen vector."""

    dimension = DIM

    def __init__(self, model_id: str, vector: np.ndarray) -> None:
        self.model_id = model_id
        self.vector = [float(x) for x in vector]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vector for _ in texts]


def _load(dsn: str, tenant: str, vectors: np.ndarray, model_id: str, tags: Sequence[str] = ()) -> list[UUID]:
    import psycopg

    from engram.indexing.vectors import vector_literal

    ids = [uuid4() for _ in vectors]
    with psycopg.connect(dsn) as conn:
        with conn.cursor().copy("COPY memories (id, tenant_id, namespace, content, content_hash) FROM STDIN") as copy:
            for i, mid in enumerate(ids):
                copy.write_row((mid, tenant, "kb", f"note {i}", uuid4().bytes))
        with conn.cursor().copy(
            "COPY chunks (tenant_id, memory_id, namespace, kind, tags, occurred_at, position, text, embedding,"
            " embedding_dim, model_id, embedded_at) FROM STDIN"
        ) as copy:
            for i, (mid, vec) in enumerate(zip(ids, vectors, strict=True)):
                copy.write_row(
                    (
                        tenant,
                        mid,
                        "kb",
                        "semantic",
                        list(tags),
                        "2026-01-01T00:00:00Z",
                        0,
                        f"note {i}",
                        vector_literal(vec),
                        DIM,
                        model_id,
                        "2026-01-01T00:00:00Z",
                    )
                )
        conn.commit()
    return ids


def _around(rng: np.random.Generator, query: np.ndarray, cosines: np.ndarray) -> np.ndarray:
    """Unit vectors at exactly these cosines to the query, in random directions."""
    noise = rng.normal(size=(len(cosines), DIM))
    noise -= np.outer(noise @ query, query)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    return cosines[:, None] * query + np.sqrt(1 - cosines[:, None] ** 2) * noise


def _space_and_query(stack: Any, seed: int) -> tuple[Any, np.ndarray]:
    """The active embedding space and a random unit query vector."""
    from engram.core.db import owner_connection
    from engram.indexing.vectors import active_space

    with owner_connection(stack.dsn) as owner:
        space = active_space(owner)
    assert space is not None
    query = np.random.default_rng(seed).normal(size=DIM)
    return space, query / np.linalg.norm(query)


@pytest.fixture
def crowded(stack: Any, make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A big tenant's rows all near the query, a small tenant's rows farther away at known distances."""
    from engram.core.db import owner_connection
    from engram.indexing.vectors import active_space
    from engram_local.stack import LocalStack

    with owner_connection(stack.dsn) as owner:
        space = active_space(owner)
    assert space is not None and space.dimension == DIM
    rng = np.random.default_rng(5)
    query = rng.normal(size=DIM)
    query /= np.linalg.norm(query)
    big, small = make_tenant("big"), make_tenant("small")
    _load(stack.dsn, big.id, _around(rng, query, rng.uniform(0.85, 0.95, BIG_ROWS)), space.model_id)
    # 0.60, 0.59, ... : well apart, so halfvec rounding cannot swap neighbours.
    small_ids = _load(stack.dsn, small.id, _around(rng, query, 0.6 - 0.01 * np.arange(SMALL_ROWS)), space.model_id)
    monkeypatch.setenv("ENGRAM_HNSW_MAX_SCAN_TUPLES", "300")  # a table far bigger than this one
    LocalStack.refresh_settings()
    yield {"tenant": UUID(small.id), "nearest": small_ids, "embedder": FixedQuery(space.model_id, query)}
    monkeypatch.undo()
    LocalStack.refresh_settings()


def _top10(crowded: dict[str, Any]) -> list[UUID | None]:
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall

    req = RecallRequest(query="anything", namespace="kb", mode="vector", limit=10, touch=False)
    return [h.memory_id for h in recall(crowded["tenant"], req, crowded["embedder"]).results]


def test_small_tenant_gets_its_exact_top_results(crowded: dict[str, Any]) -> None:
    assert _top10(crowded) == crowded["nearest"][:10]


def test_the_shared_graph_alone_misses_them(crowded: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """What the test above guards against: the HNSW scan always (the strategy before the exact scan),
    walked as on a table far bigger than this one. Here the planner may still sort the whole table
    instead, which a big table does not allow: sequential scans and sorts are priced out."""
    from engram.core.db import tenant_transaction
    from engram.indexing.vectors import vector_literal
    from engram.recall.models import RecallRequest
    from engram.recall.service import vector_candidate_ids
    from engram_local.stack import LocalStack

    monkeypatch.setenv("ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS", "0")
    LocalStack.refresh_settings()
    embedder = crowded["embedder"]
    req = RecallRequest(query="anything", namespace="kb", mode="vector")
    with tenant_transaction(crowded["tenant"]) as conn:
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")
        chunk_ids = vector_candidate_ids(conn, req, vector_literal(embedder.vector), embedder.model_id, DIM, 10)
        rows = conn.execute("SELECT memory_id FROM chunks WHERE id = ANY(%s)", (chunk_ids,)).fetchall()
    found = {r["memory_id"] for r in rows}
    assert len(found & set(crowded["nearest"][:10])) < 10


@pytest.mark.parametrize(("margin", "exact"), [(1.5, True), (0.5, False)])
def test_a_scope_over_the_always_bound_is_scanned_exactly_when_it_is_a_small_share(
    crowded: dict[str, Any], stack: Any, settings_env: Any, margin: float, exact: bool
) -> None:
    """The small tenant's 40 rows: over an always-exact bound of 10, under the sparse bound of 100;
    exact when 40 rows are at most the sparse share of the table (set to 1.5x or 0.5x their share)."""
    from engram.core.db import owner_connection, tenant_transaction
    from engram.recall.models import RecallRequest
    from engram.recall.plan_store import plan_recall
    from engram.recall.service import scan_strategy

    with owner_connection(stack.dsn) as owner:
        owner.execute("ANALYZE chunks")  # the table's size comes from the planner's statistics
        row = owner.execute("SELECT reltuples FROM pg_class WHERE oid = 'chunks'::regclass").fetchone()
        owner.commit()
    assert row is not None and row["reltuples"] >= BIG_ROWS
    settings_env(
        ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS="10",
        ENGRAM_RECALL_EXACT_SCAN_SPARSE_ROWS="100",
        ENGRAM_RECALL_EXACT_SCAN_SPARSE_SHARE=str(margin * SMALL_ROWS / row["reltuples"]),
    )
    req = RecallRequest(query="anything", namespace="kb")
    with tenant_transaction(crowded["tenant"]) as conn:
        strategy = scan_strategy(conn, req, plan_recall(req), True, [])
    assert (strategy.exact, strategy.keyword_scope) == (exact, exact)


def test_a_tag_that_leaves_few_rows_of_a_big_namespace_is_scanned_exactly(
    stack: Any, make_tenant: Any, settings_env: Any
) -> None:
    """One tenant, one namespace: many untagged rows near the query, a few tagged rows farther away.
    The namespace alone holds more rows than an exact scan takes, so counting only tenant and
    namespace chose the shared graph, which walks ~16 rows for each row that passes such a filter;
    counted with the tag, the filter leaves few rows and all of them are scored."""
    from engram.core.db import tenant_transaction
    from engram.recall.models import RecallRequest
    from engram.recall.plan_store import plan_recall
    from engram.recall.service import recall, scan_strategy

    space, query = _space_and_query(stack, 11)
    rng = np.random.default_rng(12)
    tenant = make_tenant("one namespace")
    _load(stack.dsn, tenant.id, _around(rng, query, rng.uniform(0.85, 0.95, 600)), space.model_id, tags=["common"])
    nearest_tagged = _around(rng, query, 0.6 - 0.01 * np.arange(SMALL_ROWS))
    tagged = _load(stack.dsn, tenant.id, nearest_tagged, space.model_id, tags=["rare"])
    # 640 rows in the namespace, 40 with the tag: over an exact scan's 200, under it with the tag.
    settings_env(ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS="200", ENGRAM_HNSW_MAX_SCAN_TUPLES="300")
    req = RecallRequest(query="anything", namespace="kb", tags=["rare"], mode="vector", limit=10, touch=False)
    with tenant_transaction(UUID(tenant.id)) as conn:
        strategy = scan_strategy(conn, req, plan_recall(req), True, [])
    assert strategy.exact, "40 rows pass the filter: scanned exactly"
    hits = recall(UUID(tenant.id), req, FixedQuery(space.model_id, query)).results
    assert [h.memory_id for h in hits] == tagged[:10]


def _chunk_rows_discarded(plan: dict[str, Any]) -> int:
    """Rows of chunks an EXPLAIN ANALYZE (FORMAT JSON) plan read and then threw away by a filter."""
    own = 0
    if plan.get("Relation Name") == "chunks":
        removed = int(plan.get("Rows Removed by Filter", 0)) + int(plan.get("Rows Removed by Index Recheck", 0))
        own = removed * int(plan.get("Actual Loops", 1))
    return own + sum(_chunk_rows_discarded(p) for p in plan.get("Plans", []))


@pytest.mark.parametrize("query", ["note anything", "anything at all"])
def test_small_tenant_hybrid_candidates_read_only_its_rows(crowded: dict[str, Any], query: str) -> None:
    """Every row of both tenants holds the word "note". Through the table-wide text index, the small
    tenant's keyword candidates and their rarity (idf) counts read the big tenant's rows and threw
    them away; its count of the rows the filters leave read the whole table (a 50-row tenant beside a
    100k-row one: 60 ms a recall). Sequential scans are priced out, as on a big table: the query must
    find the tenant's rows by index and read nobody else's, whether a query word is common or absent."""
    from psycopg import sql

    from engram.core.db import tenant_transaction
    from engram.indexing.vectors import vector_literal
    from engram.recall import ranking
    from engram.recall.candidate_store import CandidateQuery, QueryVector, candidate_statement
    from engram.recall.models import RecallRequest
    from engram.recall.plan_store import plan_recall
    from engram.recall.service import scan_strategy

    embedder = crowded["embedder"]
    req = RecallRequest(query=query, limit=10, touch=False)  # no namespace: the tenant alone
    vector = QueryVector(vector_literal(embedder.vector), embedder.model_id, DIM)
    question = CandidateQuery(query=req.query, vector=vector, k=SMALL_ROWS, idf_rows=ranking.KEYWORD_IDF_ROWS)
    with tenant_transaction(crowded["tenant"]) as conn:
        conn.execute("SET LOCAL enable_seqscan = off")
        recall_plan = plan_recall(req)
        strategy = scan_strategy(conn, req, recall_plan, True, [])
        assert strategy.exact and strategy.keyword_scope  # 40 rows: both sides scan them exactly
        query_sql, params = candidate_statement(recall_plan, question, strategy)
        rows = conn.execute(query_sql, params).fetchall()
        explained = conn.execute(sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) {}").format(query_sql), params).fetchone()
    assert explained is not None
    plan = next(iter(explained.values()))[0]["Plan"]
    assert {r["memory_id"] for r in rows} == set(crowded["nearest"])
    keyword_hits = sum(r["rank"] is not None for r in rows)
    assert keyword_hits == (SMALL_ROWS if "note" in query else 0)
    assert _chunk_rows_discarded(plan) == 0, "the small tenant's query read rows it did not need"


def test_a_namespace_and_tag_filter_reads_the_scope_through_the_tenants_view(
    stack: Any, make_tenant: Any, settings_env: Any
) -> None:
    """The scope's rows are read through the tenant's view: under row-level security a condition whose
    operator is not leakproof (the tag's @>, the keys' &&) cannot use an index, so every row of the
    namespace was read and the tag checked on each (10,000 rows read for 1,429 kept at 100k). Through
    the view the namespace and tag are found by their keys (migration 0060: one index, the 1,429 rows;
    docs/performance.md, "The fourth pass"). Which plan the planner takes depends on the table's
    statistics, so this holds what makes it possible: the view, the namespace and tag said once (as
    their keys: said again as themselves, the planner multiplies them into its row estimate), the
    vector's presence said so that no partial index is matched to it, and the view's tenant condition
    keeping a second tenant's rows with the same namespace and tag out."""
    from engram.core.db import tenant_transaction
    from engram.indexing.vectors import vector_literal
    from engram.recall import ranking
    from engram.recall.candidate_store import CandidateQuery, QueryVector, candidate_statement
    from engram.recall.models import RecallRequest
    from engram.recall.plan_store import plan_recall
    from engram.recall.service import scan_strategy

    space, query = _space_and_query(stack, 13)
    rng = np.random.default_rng(14)
    tenant, other = make_tenant("tagged"), make_tenant("same tags")
    rare = f"rare-{uuid4()}"
    _load(stack.dsn, tenant.id, _around(rng, query, rng.uniform(0.85, 0.95, 300)), space.model_id, tags=["common"])
    tagged = _load(stack.dsn, tenant.id, _around(rng, query, rng.uniform(0.3, 0.6, 10)), space.model_id, tags=[rare])
    _load(stack.dsn, other.id, _around(rng, query, rng.uniform(0.9, 0.95, 10)), space.model_id, tags=[rare])
    settings_env(ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS="200")
    req = RecallRequest(query="note", namespace="kb", tags=[rare], limit=10, touch=False)
    vector = QueryVector(vector_literal(query), space.model_id, DIM)
    question = CandidateQuery(query=req.query, vector=vector, k=50, idf_rows=ranking.KEYWORD_IDF_ROWS)
    with tenant_transaction(UUID(tenant.id)) as conn:
        recall_plan = plan_recall(req)
        strategy = scan_strategy(conn, req, recall_plan, True, [])
        assert strategy.exact and strategy.keyword_scope
        query_sql, params = candidate_statement(recall_plan, question, strategy)
        rows = conn.execute(query_sql, params).fetchall()
        scoped = query_sql.as_string(conn).split("vec AS")[0]
    assert "FROM tenant_chunks c WHERE engram_scope_tag_keys(c.tenant_id" in scoped, scoped
    assert scoped.count("engram_scope_tag_keys(c.tenant_id") == 1, scoped
    # chunks_scope (partial on embedding IS NOT NULL) is not offered beside the keys: a big tenant's
    # whole range there was read to keep the keys' rows.
    assert "(c.embedding IS NOT NULL) IS TRUE" in scoped and "c.embedding IS NOT NULL AND" not in scoped, scoped
    assert "c.tags @>" not in scoped and "c.namespace = ANY" not in scoped, scoped
    assert {r["memory_id"] for r in rows} == set(tagged)  # every tagged row, no other tenant's


def _spilled(plan: dict[str, Any]) -> list[str]:
    """The nodes of an EXPLAIN ANALYZE (FORMAT JSON) plan that wrote to disk: a hash grouping in more than
    one batch, or a sort on disk."""
    own = [plan["Node Type"]] if plan.get("HashAgg Batches", 1) > 1 or plan.get("Sort Space Type") == "Disk" else []
    return own + [node for p in plan.get("Plans", []) for node in _spilled(p)]


def test_a_word_in_many_rows_is_ranked_without_spilling_to_disk(stack: Any, make_tenant: Any) -> None:
    """1,800 rows hold the query's word (fewer than the rows its weight counts, so it is kept). Their
    keyword ranks are grouped per row; gathering each row's matched words in that grouping gave every
    group an aggregate state of its own, and the grouping outgrew work_mem and spilled to disk (~1 ms of
    a 16 ms statement at 100k chunks). The words are gathered for the k rows kept, and nothing spills."""
    from psycopg import sql

    from engram.core.db import owner_connection, tenant_transaction
    from engram.indexing.vectors import vector_literal
    from engram.recall import ranking
    from engram.recall.candidate_store import CandidateQuery, QueryVector, candidate_statement
    from engram.recall.models import RecallRequest
    from engram.recall.plan_store import plan_recall
    from engram.recall.service import scan_strategy

    space, query = _space_and_query(stack, 21)
    tenant = make_tenant("many matches")
    _load(stack.dsn, tenant.id, _around(np.random.default_rng(22), query, np.full(1800, 0.5)), space.model_id)
    with owner_connection(stack.dsn) as owner:
        owner.execute("ANALYZE chunks")  # the planner knows the rows: it sized the grouping for ~1,800 groups
    req = RecallRequest(query="note", namespace="kb", limit=10, touch=False)
    vector = QueryVector(vector_literal(query), space.model_id, DIM)
    question = CandidateQuery(query=req.query, vector=vector, k=50, idf_rows=ranking.KEYWORD_IDF_ROWS)
    with tenant_transaction(UUID(tenant.id)) as conn:
        recall_plan = plan_recall(req)
        strategy = scan_strategy(conn, req, recall_plan, True, [])
        query_sql, params = candidate_statement(recall_plan, question, strategy)
        explained = conn.execute(sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) {}").format(query_sql), params).fetchone()
        ranked = conn.execute(query_sql, params).fetchall()
    assert explained is not None
    assert sum(r["rank"] is not None for r in ranked) == 50, "the word was kept and 50 rows ranked by it"
    assert _spilled(next(iter(explained.values()))[0]["Plan"]) == []

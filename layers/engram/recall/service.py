"""Hybrid recall: vector (pgvector HNSW) and keyword (Postgres full text) in one SQL round trip,
fused with recency and importance, best chunk per memory, within a character budget.

Vector search runs with iterative index scans so namespace/tag/kind filters keep scanning the
graph instead of starving the result. When vectors are pending or the embedder is down,
keyword + recency still answer and the response says what was missing in `degraded`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import UUID

from aws_lambda_powertools import Logger

from engram.adapters import rerank
from engram.adapters.embeddings.base import Embedder
from engram.core.activity import record_activity
from engram.core.config import settings
from engram.core.db import Conn, confined_namespaces, tenant_transaction
from engram.core.models import PG_INTEGER_MAX
from engram.feedback import service as feedback
from engram.graph import service as graph
from engram.graph.models import Link, MemorySummary
from engram.indexing.vectors import cached_active_space, vector_literal
from engram.recall import ranking
from engram.recall.candidate_store import CandidateQuery, QueryVector, ScanStrategy
from engram.recall.critical import pin_critical
from engram.recall.evidence import attach_evidence
from engram.recall.models import (
    CompactHit,
    GraphNeighbour,
    RecalledMessage,
    RecallHit,
    RecallRequest,
    RecallResponse,
)
from engram.recall.neighbours import fit_neighbours
from engram.recall.plan_store import RecallPlan, plan_recall
from engram.recall.query_vector import query_vector
from engram.recall.ranking import Candidate, fuse, mmr, recency_score
from engram.recall.rewrite import embed_rewrites, rewrite_query
from engram.recall.rows import CandidateRow
from engram.recall.settings import recall_settings
from engram.recall.shaping import compact, shape_results
from engram.recall.store import (
    PENDING_COUNT_LIMIT,
    ScanSettings,
    candidate_rows,
    chunk_vectors,
    defer_wal_flush,
    scan_settings_and_pending,
    touch_memories,
    vector_ids,
)
from engram.recall.trace import trace_recall

if TYPE_CHECKING:  # imported where used: conversation results only
    from engram.conversations.service import AskedWindowMessages

__all__ = [
    "recall",
    "scan_strategy",
    "vector_candidate_ids",
]

logger = Logger()


def recall(
    tenant_id: UUID, req: RecallRequest, embedder: Embedder | None, *, read_only: bool = False, record: bool = True
) -> RecallResponse:
    """`read_only` (a key without the write scope): the recall changes nothing, no touch and no
    activity note, whatever `touch` says, and is not kept for feedback. `record`: keep it as a recall
    event for feedback and answer its recall_id (prime, which shows its own results, does not)."""
    within = _within_grant(req)
    if within is None:  # it names only namespaces the caller may not read: row-level security leaves nothing
        return RecallResponse(
            results=[], degraded=[], budget_chars=req.budget_chars, query_rewrites=[] if req.rewrite_query else None
        )
    req = within
    s = settings()
    degraded: list[str] = []
    qvec = _embed_query(req, embedder, degraded)
    rewrites = rewrite_query(tenant_id, req, degraded) if req.rewrite_query else []
    rewrite_vectors = embed_rewrites(rewrites, qvec, embedder)
    now = datetime.now(UTC)
    with tenant_transaction(tenant_id) as conn:
        topic_memories = None
        if req.topics:
            # Imported here: the topics package brings numpy, which recalls without a topic filter
            # should not pay for on a cold start (~60 ms).
            from engram.topics import service as topic_service

            topic_memories = topic_service.memory_ids_in_topics(conn, req.topics)
        plan = plan_recall(req, topic_memories)
        vector = _vector_space(conn, qvec, embedder, degraded)
        question = _question(req, vector)
        if req.mode == "vector" and vector is None:
            degraded.append("keyword_fallback")
        strategy = scan_strategy(conn, req, plan, vector is not None, degraded)
        found = candidate_rows(conn, plan, question, strategy)
        rows = [r for r in found if r.critical_rank is None]
        critical_rows = sorted((r for r in found if r.critical_rank is not None), key=lambda r: r.critical_rank or 0)
        rewrite_rows = [
            # Each rewrite is searched as the question is: its vector only in the question's space.
            candidate_rows(conn, plan, _rewrite(question, text, literal), strategy)
            for text, literal in zip(rewrites, rewrite_vectors, strict=True)
        ]
        ranked = _rank(rows, req, now, rewrite_rows)
        if req.rerank:
            ranked = _rerank(req, ranked, degraded)
        if req.diversify and vector:
            top = ranked[: req.limit * 4]
            ranked = mmr(top, chunk_vectors(conn, [c.row.chunk_id for c in top]), req.limit)
        fused = ranked
        if req.min_score is not None:
            ranked = [c for c in ranked if c.score >= req.min_score]
        pinned, ranked = pin_critical(critical_rows, ranked, now)
        hits, used = shape_results(pinned, ranked, req, s.recall_critical_share)
        trace = (
            trace_recall(
                conn,
                req,
                lambda depth: candidate_rows(conn, plan, replace(question, k=depth, critical_limit=0), strategy),
                question.k,
                fused,
                hits,
                req.as_of or now,
                topic_memories,
            )
            if req.trace
            else None
        )
        used = _touch_and_attach_graph(conn, tenant_id, hits, req, used, req.as_of or now, read_only)
        used = attach_evidence(conn, hits, req.budget_chars, used)
        # The windows' messages and the recall event travel with the commit: no round trip of their own.
        with conn.pipeline():
            messages = _ask_messages(conn, hits) if req.format == "full" else None
            recall_id = (
                feedback.record_recall(
                    conn,
                    tenant_id,
                    [h.namespace for h in hits],
                    [h.memory_id for h in hits if h.memory_id is not None],
                    [h.chunk.id for h in hits],
                )
                if record and not read_only
                else None
            )
            defer_wal_flush(conn)
            conn.commit()
    if messages is not None:
        _attach_messages(hits, messages)
    results: list[RecallHit | CompactHit] = [*hits] if req.format == "full" else [compact(h) for h in hits]
    return RecallResponse(
        results=results,
        degraded=degraded,
        budget_chars=req.budget_chars,
        used_chars=used,
        query_rewrites=rewrites if req.rewrite_query else None,
        trace=trace,
        recall_id=recall_id,
    )


def _within_grant(req: RecallRequest) -> RecallRequest | None:
    """The request of a caller confined to a grant's namespaces (an OAuth token's) as if it named them:
    no namespace named reads the grant's, named ones are kept to those in the grant; None when it names
    none of them. Row-level security alone would confine the results but not the keyword side, which
    picks its top rows and counts its words' document frequencies through tenant_chunks (the whole
    tenant): other namespaces' rows crowded the grant's out of a small limit and shifted their ranking."""
    grant = confined_namespaces()
    if grant is None:
        return req
    named = [*(req.namespaces or []), *([req.namespace] if req.namespace else [])]
    allowed = [ns for ns in dict.fromkeys(named) if ns in grant] if named else list(grant)
    if not allowed:
        return None
    return req.model_copy(update={"namespace": None, "namespaces": allowed})


def _embed_query(req: RecallRequest, embedder: Embedder | None, degraded: list[str]) -> str | None:
    """The query's vector as a pgvector literal, or None (keyword mode, or the embedder failed)."""
    if req.mode == "keyword":
        return None
    if embedder is None:
        degraded.append("vector_search_unavailable: no embedder configured")
        return None
    try:
        return vector_literal(query_vector(embedder, req.query))
    except Exception as exc:  # any embedder failure degrades to keyword search
        logger.warning("query embedding failed; keyword only", extra={"error": str(exc)})
        degraded.append(f"vector_search_unavailable: {type(exc).__name__}")
        return None


def _rerank(req: RecallRequest, ranked: list[Candidate], degraded: list[str]) -> list[Candidate]:
    """The best fused candidates (rerank_candidates, at least `limit`) re-scored by the reranker and
    ordered by its relevance; the rest are dropped. Unavailable: the fused order, and why in `degraded`."""
    pool = ranked[: max(recall_settings().rerank_candidates, req.limit)]
    try:
        scores = rerank.relevance(req.query, [c.row.text for c in pool])
    except rerank.RerankUnavailable as exc:
        logger.warning("rerank unavailable; fused order", extra={"error": str(exc)})
        degraded.append(f"rerank_unavailable: {exc}"[:300])
        return ranked
    for c, score in zip(pool, scores, strict=True):
        c.rerank = score
    return sorted(pool, key=lambda c: -c.score)


def _vector_space(conn: Conn, qvec: str | None, embedder: Embedder | None, degraded: list[str]) -> QueryVector | None:
    """The query vector, when it belongs to the active space (else None: keyword search alone)."""
    if qvec is None or embedder is None:
        return None
    space = cached_active_space(conn)
    if space is None or space.model_id != embedder.model_id:
        degraded.append("vector_search_unavailable: embedding space mismatch")
        return None
    return QueryVector(literal=qvec, model_id=space.model_id, dimension=space.dimension)


def _question(req: RecallRequest, vector: QueryVector | None) -> CandidateQuery:
    """The request's candidate query, with the ranking's constants (engram.recall.ranking) and settings."""
    s = settings()
    return CandidateQuery(
        query=req.query,
        vector=vector,
        k=max(recall_settings().recall_candidates, ranking.results_expected(req.limit, req.budget_chars) * 5),
        use_keyword=req.mode != "vector" or vector is None,
        as_of=req.as_of,
        include_expired=req.include_expired,
        keyword_idf=ranking.KEYWORD_IDF,
        idf_rows=ranking.KEYWORD_IDF_ROWS,
        context_word_weight=ranking.CONTEXT_WORD_WEIGHT,
        neighbour_weight=ranking.NEIGHBOUR_VECTOR_WEIGHT,
        feedback=feedback.weighs_ranking(),
        critical_limit=s.recall_critical_max if req.critical else 0,
    )


def _rewrite(question: CandidateQuery, text: str, literal: str | None) -> CandidateQuery:
    """A rewrite searched as the question is: its vector only in the question's space; no critical facts."""
    vector = replace(question.vector, literal=literal) if question.vector and literal else None
    return replace(question, query=text, vector=vector, critical_limit=0)


def scan_strategy(
    conn: Conn, req: RecallRequest, plan: RecallPlan, has_vector: bool, degraded: list[str]
) -> ScanStrategy:
    """Set the HNSW scan settings, note pending vectors, and choose both strategies: whether the vector
    side scores the plan's scope exactly (or walks the HNSW graph) and whether the keyword side reads
    the scope's rows (or the table-wide text index). With req.critical, the same round trip asks
    whether any critical memory is in the namespaces read: without one, the candidate statement does
    not read them.

    The shared HNSW graph serves a query well when the rows it may return are a large part of it;
    for a small tenant or a narrow namespace the iterative scan walks everyone else's rows and still
    misses some. The shared text index likewise walks every tenant's rows that hold a query word. So
    the rows the filter leaves are counted (bounded, index-only) in the same round trip, and when they
    are few every one of them is scored exactly, by distance and by words; the keyword side also reads
    the pending rows, so only while those are few too.

    "Few" has two bounds. At most recall_exact_scan_max_rows: always. Up to
    recall_exact_scan_sparse_rows when they are also a small share of the table: the graph walk costs
    about (rows wanted / share) visits, so the same 6,000 rows that the graph serves well as 8% of a
    table it serves slowly and incompletely as 2% of a bigger one.
    """
    s = recall_settings()
    scan = ScanSettings(
        ef_search=s.hnsw_ef_search,
        max_scan_tuples=s.hnsw_max_scan_tuples,
        exact_max_rows=s.recall_exact_scan_max_rows,
        sparse_rows=s.recall_exact_scan_sparse_rows,
        sparse_share=s.recall_exact_scan_sparse_share,
        count_scope=s.recall_exact_scan_max_rows > 0,
        idf_rows=ranking.KEYWORD_IDF_ROWS,
        critical=req.critical,
    )
    counts = scan_settings_and_pending(conn, plan, scan)
    critical = counts is None or counts.critical is not False
    # The candidate statement reuses the count (None: it stopped at its limit, counted again there).
    pending_rows = counts.n if counts and counts.n < PENDING_COUNT_LIMIT else None
    if counts and counts.n:
        degraded.append(f"vectors_pending: {counts.n}{'+' if counts.n >= PENDING_COUNT_LIMIT else ''} chunks")
    if not scan.count_scope or counts is None or counts.scope_rows is None or counts.table_rows is None:
        return ScanStrategy(pending_rows=pending_rows, critical=critical)
    rows, table_rows = counts.scope_rows, counts.table_rows
    sparse = rows <= scan.sparse_rows and rows <= scan.sparse_share * table_rows
    if rows > scan.exact_max_rows and not sparse:
        return ScanStrategy(pending_rows=pending_rows, scope_rows=rows, critical=critical)
    return ScanStrategy(
        exact=has_vector,
        keyword_scope=counts.n < PENDING_COUNT_LIMIT,
        pending_rows=pending_rows,
        scope_rows=rows,
        critical=critical,
    )


def vector_candidate_ids(
    conn: Conn, req: RecallRequest, qvec: str, model_id: str, dimension: int, k: int
) -> list[UUID]:
    """The vector candidates recall would take for this request (its filters and strategy), best first:
    what bench/tenant_scale.py holds against the exact top-k."""
    plan = plan_recall(req)
    question = CandidateQuery(query=req.query, vector=QueryVector(qvec, model_id, dimension), k=k)
    return vector_ids(conn, plan, question, scan_strategy(conn, req, plan, True, []).exact)


def _rank(
    rows: list[CandidateRow], req: RecallRequest, now: datetime, rewrite_rows: Sequence[list[CandidateRow]] = ()
) -> list[Candidate]:
    """Fused scores, best first, the best chunk per memory (every conversation window stands alone).
    rewrite_rows: each query rewrite's candidates, fused in with the question's. A row's stored feedback
    weight (engram.feedback) multiplies its fused score by its ranking factor."""
    speaker = _turn_speakers(rows, rewrite_rows)
    candidates = [
        Candidate(row=r, vector=r.sim, keyword=r.rank, recency=recency_score(r.occurred_at, now), speaker=speaker(r))
        for r in rows
    ]
    if rewrite_rows:
        by_chunk = {c.row.chunk_id: c for c in candidates}
        for j, found in enumerate(rewrite_rows):
            for r in found:
                if r.chunk_id not in by_chunk:
                    by_chunk[r.chunk_id] = Candidate(
                        row=r, recency=recency_score(r.occurred_at, now), speaker=speaker(r)
                    )
                    candidates.append(by_chunk[r.chunk_id])
                by_chunk[r.chunk_id].rewrites[j] = (r.sim, r.rank)
    s = recall_settings()
    fuse(candidates, s.recall_fusion, len(rewrite_rows), s.recall_rrf_keyword_weight, req.query)
    weighed_at = datetime.now(UTC)
    for c in candidates:
        if c.row.feedback_weight is not None and c.row.feedback_updated_at is not None:
            c.feedback = feedback.stored_ranking_factor(c.row.feedback_weight, c.row.feedback_updated_at, weighed_at)
            c.fused *= c.feedback
    best: dict[int, Candidate] = {}  # by the owner's id as an integer: a UUID hashes in Python, an int in C
    # Reciprocal ranks tie exactly when two candidates trade places in the two lists (1/11 + 1/12 both):
    # the keyword score, then the cosine, settle it, not the order the rows came in (rounded: the sums'
    # float order differs).
    for c in sorted(candidates, key=lambda c: (-round(c.fused, 12), -(c.keyword or 0.0), -(c.vector or 0.0))):
        best.setdefault(c.row.owner.int, c)
    return list(best.values())


def _no_speaker(row: CandidateRow) -> None:
    return None


def _turn_speakers(
    rows: list[CandidateRow], rewrite_rows: Sequence[list[CandidateRow]]
) -> Callable[[CandidateRow], str | None]:
    """A candidate's speaker: a one-message conversation window's, when its text names one. Without
    conversation rows, nothing is imported."""
    if not any(r.conversation_id is not None for found in (rows, *rewrite_rows) for r in found):
        return _no_speaker
    from engram.conversations.service import one_turn_speaker  # as in _attach_messages: conversation results only

    def speaker(row: CandidateRow) -> str | None:
        if row.conversation_id is None or row.seq_from != row.seq_to:
            return None
        return one_turn_speaker(row.text)

    return speaker


def _touch_and_attach_graph(
    conn: Conn, tenant_id: UUID, hits: list[RecallHit], req: RecallRequest, used: int, at: datetime, read_only: bool
) -> int:
    memory_ids = [h.memory_id for h in hits if h.memory_id is not None]
    if not memory_ids:
        return used
    with conn.pipeline():  # the touch and the graph lookups share one round trip
        if not read_only:
            record_activity(conn, {h.namespace for h in hits})  # recalled from: the next consolidation covers it
        if req.touch and not read_only:
            touch_memories(conn, memory_ids, recall_settings().recall_touch_boost, PG_INTEGER_MAX)
        return _attach_graph(conn, tenant_id, hits, memory_ids, req, used, at)


def _attach_graph(
    conn: Conn,
    tenant_id: UUID,
    hits: list[RecallHit],
    memory_ids: list[UUID],
    req: RecallRequest,
    used: int,
    at: datetime,
) -> int:
    """Flag every `contradicts` link of the results (always) and, with `expand`, attach what their
    links reach: one query each for all results. Summaries share budget_chars with the results."""
    conflicts = graph.conflicting_memories(conn, tenant_id, memory_ids, at, req.include_expired)
    linked = (
        graph.linked_memories(
            conn,
            tenant_id,
            memory_ids,
            relations=req.expand.relations,
            depth=req.expand.depth,
            as_of=at,
            include_expired=req.include_expired,
            limit_per_memory=req.expand.limit,
        )
        if req.expand
        else {}
    )
    if not conflicts and not linked and not req.expand:
        return used
    for h in hits:
        if h.memory_id is None:
            continue
        h.conflicts = [
            _neighbour(c.memory, c.link, [h.memory_id, c.memory.id], 1) for c in conflicts.get(h.memory_id, [])
        ]
        if req.expand:
            shown = {c.memory_id for c in h.conflicts}  # a contradicting memory is shown (and charged) once
            h.linked = [
                _neighbour(n.memory, n.via, n.path, n.depth)
                for n in linked.get(h.memory_id, [])
                if n.memory.id not in shown
            ]
    return fit_neighbours(hits, req.budget_chars, used)


def _neighbour(memory: MemorySummary, link: Link, path: list[UUID], depth: int) -> GraphNeighbour:
    """A graph memory and the link that reached it as recall shows them."""
    return GraphNeighbour(
        memory_id=memory.id,
        relation=link.relation,
        direction="out" if link.from_id == path[-2] else "in",
        depth=depth,
        path=path,
        link_id=link.id,
        strength=link.strength,
        namespace=memory.namespace,
        kind=memory.kind,
        created_at=memory.created_at,
        summary=memory.summary,
        truncated=memory.truncated,
    )


def _ask_messages(conn: Conn, hits: list[RecallHit]) -> AskedWindowMessages | None:
    """Ask for the conversation results' original messages (read after the recall's pipeline syncs);
    None without conversation results."""
    spans = [
        (h.conversation_id, h.chunk.seq_from, h.chunk.seq_to)
        for h in hits
        if h.conversation_id is not None and h.chunk.seq_from is not None and h.chunk.seq_to is not None
    ]
    if not spans:
        return None
    from engram.conversations.service import ask_window_messages  # conversation results only: no import else

    return ask_window_messages(conn, spans)


def _attach_messages(hits: list[RecallHit], asked: AskedWindowMessages) -> None:
    """Conversation results carry their window's original messages, word for word.

    When budget_chars cut a window's text, only the messages whose line made it into the text
    are attached, so the budget still bounds what the caller reads.
    """
    rows = asked.read()
    for h in hits:
        if h.conversation_id is None or h.chunk.seq_from is None or h.chunk.seq_to is None:
            continue
        found = [
            rows[(h.conversation_id, q)]
            for q in range(h.chunk.seq_from, h.chunk.seq_to + 1)
            if (h.conversation_id, q) in rows
        ]
        if h.chunk.truncated:
            found = [m for m in found if m.content[:40] in h.chunk.text]
        h.messages = [RecalledMessage.model_validate(m, from_attributes=True) for m in found]

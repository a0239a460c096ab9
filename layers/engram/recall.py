"""Hybrid recall: vector (pgvector HNSW) and keyword (Postgres full text) in one SQL round trip,
fused with recency and importance, best chunk per memory, within a character budget.

Vector search runs with iterative index scans so namespace/tag/kind filters keep scanning the
graph instead of starving the result. When vectors are pending or the embedder is down,
keyword + recency still answer and the response says what was missing in `degraded`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger

from engram.config import settings
from engram.db import tenant_transaction
from engram.embeddings.base import Embedder
from engram.models import RecalledChunk, RecalledMessage, RecallHit, RecallRequest, RecallResponse, ScoreParts
from engram.vectors import cached_active_space, parse_vector, vector_literal

logger = Logger()

RECENCY_HALF_LIFE_DAYS = 30.0
# engram-go's composite weights (seed 000); see README "Recall quality" for what was measured.
W_VECTOR, W_KEYWORD, W_RECENCY = 0.50, 0.35, 0.15
RRF_K = 60
MMR_LAMBDA = 0.7


@dataclass
class Candidate:
    row: dict[str, Any]
    vector: float | None = None  # cosine similarity
    keyword: float | None = None  # ts_rank_cd normalised to [0, 1)
    vector_rank: int | None = None
    keyword_rank: int | None = None
    recency: float = 0.0
    fused: float = 0.0


def _filters(req: RecallRequest) -> tuple[str, dict[str, Any]]:
    clauses = ["c.active"]
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
    if req.since:
        clauses.append("c.occurred_at >= %(since)s")
        params["since"] = req.since
    if req.until:
        clauses.append("c.occurred_at < %(until)s")
        params["until"] = req.until
    return " AND ".join(clauses), params


def _candidate_sql(where: str, dimension: int | None, use_keyword: bool) -> str:
    parts = []
    if dimension:
        d = int(dimension)
        distance = f"c.embedding::halfvec({d}) <=> %(qvec)s::vector::halfvec({d})"  # matches the HNSW index
        parts.append(
            f"vec AS MATERIALIZED (SELECT c.id, 1 - ({distance}) AS sim"
            f" FROM chunks c WHERE c.embedding_dim = {d} AND c.model_id = %(model)s AND {where}"
            f" ORDER BY {distance} LIMIT %(k)s)"
        )
    else:
        parts.append("vec AS (SELECT NULL::uuid AS id, NULL::float8 AS sim WHERE false)")
    if use_keyword:
        # Any query term may match (OR): questions rarely share every word. tenant_chunks: see migration 0004.
        parts.append(
            "tq AS (SELECT NULLIF(replace(plainto_tsquery('english', %(query)s)::text, ' & ', ' | '), '')"
            "::tsquery AS q),"
            " kw AS MATERIALIZED (SELECT c.id, ts_rank_cd(c.tsv, tq.q, 32) AS rank FROM tenant_chunks c, tq"
            f" WHERE tq.q IS NOT NULL AND c.tsv @@ tq.q AND {where} ORDER BY rank DESC LIMIT %(k)s)"
        )
    else:
        parts.append("kw AS (SELECT NULL::uuid AS id, NULL::float4 AS rank WHERE false)")
    return (
        "WITH " + ", ".join(parts) + ", ids AS (SELECT id FROM vec UNION SELECT id FROM kw)"
        # A chunk belongs to a memory or to a conversation (chunks_one_owner): memory fields get
        # conversation equivalents (neutral importance, no layer, created_at = the window's last turn).
        " SELECT c.id AS chunk_id, c.memory_id, c.conversation_id, c.seq_from, c.seq_to, c.text, c.position,"
        " c.char_start, c.occurred_at, vec.sim, kw.rank, c.namespace, c.kind, m.layer,"
        " COALESCE(m.tags, c.tags) AS tags, COALESCE(m.importance, 0.5) AS importance, c.source,"
        " COALESCE(m.created_at, c.occurred_at) AS created_at, m.last_accessed"
        " FROM ids JOIN chunks c ON c.id = ids.id LEFT JOIN memories m ON m.id = c.memory_id"
        " LEFT JOIN vec ON vec.id = ids.id LEFT JOIN kw ON kw.id = ids.id"
        " WHERE (m.status = 'active' OR c.conversation_id IS NOT NULL)"
        # A memory whose validity ended (superseded, expired) is history: only when asked for.
        " AND (%(include_expired)s OR m.valid_to IS NULL OR m.valid_to > now())"
    )


def _recency(occurred_at: datetime, now: datetime) -> float:
    age_days = max((now - occurred_at).total_seconds(), 0.0) / 86400.0
    return math.exp(-math.log(2) * age_days / RECENCY_HALF_LIFE_DAYS)


def _fuse(candidates: list[Candidate], fusion: str) -> None:
    by_vec = sorted((c for c in candidates if c.vector is not None), key=lambda c: -(c.vector or 0))
    by_kw = sorted((c for c in candidates if c.keyword is not None), key=lambda c: -(c.keyword or 0))
    for i, c in enumerate(by_vec):
        c.vector_rank = i + 1
    for i, c in enumerate(by_kw):
        c.keyword_rank = i + 1
    top_kw = by_kw[0].keyword if by_kw and by_kw[0].keyword else 1.0
    for c in candidates:
        importance = float(c.row["importance"])
        if fusion == "rrf":
            base = sum(1.0 / (RRF_K + r) for r in (c.vector_rank, c.keyword_rank) if r is not None)
            c.fused = base * (1.0 + 0.1 * c.recency + 0.1 * importance)
        else:
            kw_norm = (c.keyword or 0.0) / top_kw  # best keyword hit of this query = 1.0
            base = W_VECTOR * max(c.vector or 0.0, 0.0) + W_KEYWORD * kw_norm + W_RECENCY * c.recency
            c.fused = base * (0.8 + 0.4 * importance)


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=False))


def _mmr(candidates: list[Candidate], vectors: dict[UUID, list[float]], limit: int) -> list[Candidate]:
    """Maximal marginal relevance: trade a little relevance for results that say different things."""
    chosen: list[Candidate] = []
    pool = list(candidates)
    while pool and len(chosen) < limit:
        def gain(c: Candidate) -> float:
            v = vectors.get(c.row["chunk_id"])
            if v is None or not chosen:
                return c.fused
            sims = [_dot(v, vectors[x.row["chunk_id"]]) for x in chosen if x.row["chunk_id"] in vectors]
            return MMR_LAMBDA * c.fused - (1 - MMR_LAMBDA) * max(sims, default=0.0)

        best = max(pool, key=gain)
        chosen.append(best)
        pool.remove(best)
    return chosen


def recall(tenant_id: UUID, req: RecallRequest, embedder: Embedder | None) -> RecallResponse:
    s = settings()
    degraded: list[str] = []
    where, params = _filters(req)
    params.update(query=req.query, k=max(s.recall_candidates, req.limit * 5), include_expired=req.include_expired)

    qvec = None
    if req.mode != "keyword":
        if embedder is None:
            degraded.append("vector_search_unavailable: no embedder configured")
        else:
            try:
                qvec = vector_literal(embedder.embed([req.query])[0])
            except Exception as exc:  # any embedder failure degrades to keyword search
                logger.warning("query embedding failed; keyword only", extra={"error": str(exc)})
                degraded.append(f"vector_search_unavailable: {type(exc).__name__}")

    now = datetime.now(UTC)
    with tenant_transaction(tenant_id) as conn:
        dimension = None
        if qvec is not None and embedder is not None:
            space = cached_active_space(conn)
            if space is None or space.model_id != embedder.model_id:
                degraded.append("vector_search_unavailable: embedding space mismatch")
            else:
                dimension = space.dimension
                params.update(qvec=qvec, model=space.model_id)
        use_keyword = req.mode != "vector" or dimension is None
        if req.mode == "vector" and dimension is None:
            degraded.append("keyword_fallback")
        # One round trip: the HNSW scan settings for this transaction and the pending-vector count.
        params["ef_search"] = str(int(s.hnsw_ef_search))
        pending = conn.execute(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
            " set_config('hnsw.ef_search', %(ef_search)s, true),"
            f" (SELECT count(*) FROM (SELECT 1 FROM chunks c WHERE c.embedding IS NULL AND {where} LIMIT 1000) p)"
            " AS n",
            params,
        ).fetchone()
        if pending and pending["n"]:
            degraded.append(f"vectors_pending: {pending['n']}{'+' if pending['n'] >= 1000 else ''} chunks")
        rows = conn.execute(_candidate_sql(where, dimension, use_keyword), params).fetchall()
        if req.layers:
            rows = [r for r in rows if r["layer"] in req.layers]

        candidates = [
            Candidate(row=r, vector=None if r["sim"] is None else float(r["sim"]),
                      keyword=None if r["rank"] is None else float(r["rank"]),
                      recency=_recency(r["occurred_at"], now))
            for r in rows
        ]
        _fuse(candidates, s.recall_fusion)
        best: dict[UUID, Candidate] = {}  # best chunk per memory; every conversation window stands alone
        for c in sorted(candidates, key=lambda c: -c.fused):
            best.setdefault(c.row["memory_id"] or c.row["chunk_id"], c)
        ranked = list(best.values())
        if req.diversify and dimension:
            top = ranked[: req.limit * 4]
            vec_rows = conn.execute(
                "SELECT id, embedding::text AS embedding FROM chunks WHERE id = ANY(%s) AND embedding IS NOT NULL",
                ([c.row["chunk_id"] for c in top],),
            ).fetchall()
            vectors = {r["id"]: parse_vector(r["embedding"]) for r in vec_rows}
            ranked = _mmr(top, vectors, req.limit)
        if req.min_score is not None:
            ranked = [c for c in ranked if c.fused >= req.min_score]
        hits, used = _shape(ranked[: req.limit], req)
        _attach_messages(conn, hits)
        memory_ids = [h.memory_id for h in hits if h.memory_id is not None]
        if req.touch and memory_ids:
            conn.execute(
                "UPDATE memories SET access_count = access_count + 1, last_accessed = now() WHERE id = ANY(%s)",
                (memory_ids,),
            )
    return RecallResponse(results=hits, degraded=degraded, budget_chars=req.budget_chars, used_chars=used)


def _shape(ranked: list[Candidate], req: RecallRequest) -> tuple[list[RecallHit], int]:
    hits: list[RecallHit] = []
    used = 0
    for c in ranked:
        text = c.row["text"]
        truncated = False
        if req.budget_chars is not None:
            room = req.budget_chars - used
            if room <= 0:
                break
            if len(text) > room:
                if hits and room < 200:  # a sliver of a chunk is noise; stop here
                    break
                text, truncated = text[:room], True
        used += len(text)
        r = c.row
        hits.append(RecallHit(
            type="conversation" if r["conversation_id"] else "memory",
            memory_id=r["memory_id"], conversation_id=r["conversation_id"], namespace=r["namespace"],
            kind=r["kind"], layer=r["layer"], tags=r["tags"],
            importance=r["importance"], source=r["source"], created_at=r["created_at"],
            chunk=RecalledChunk(id=r["chunk_id"], text=text, position=r["position"], char_start=r["char_start"],
                                truncated=truncated, seq_from=r["seq_from"], seq_to=r["seq_to"]),
            score=round(c.fused, 6),
            explain=ScoreParts(vector=c.vector, keyword=c.keyword, recency=round(c.recency, 6),
                               importance=float(r["importance"]), fused=c.fused) if req.explain else None,
        ))
    return hits, used


def _attach_messages(conn: Any, hits: list[RecallHit]) -> None:
    """Conversation results carry their window's original messages, word for word (seed 004).

    When budget_chars cut a window's text, only the messages whose line made it into the text
    are attached, so the budget still bounds what the caller reads.
    """
    from engram.conversations import messages_for_windows

    spans = [(h.conversation_id, h.chunk.seq_from, h.chunk.seq_to) for h in hits
             if h.conversation_id is not None and h.chunk.seq_from is not None and h.chunk.seq_to is not None]
    if not spans:
        return
    rows = messages_for_windows(conn, spans)  # type: ignore[arg-type]
    for h in hits:
        if h.conversation_id is None or h.chunk.seq_from is None or h.chunk.seq_to is None:
            continue
        found = [rows[(h.conversation_id, q)] for q in range(h.chunk.seq_from, h.chunk.seq_to + 1)
                 if (h.conversation_id, q) in rows]
        if h.chunk.truncated:
            found = [m for m in found if m["content"][:40] in h.chunk.text]
        h.messages = [RecalledMessage.model_validate(m) for m in found]

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
from engram.models import RecalledChunk, RecallHit, RecallRequest, RecallResponse, ScoreParts
from engram.vectors import active_space, parse_vector, vector_literal

logger = Logger(service="engram")

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
    if req.kinds:
        clauses.append("c.kind = ANY(%(kinds)s)")
        params["kinds"] = list(req.kinds)
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
        # Any query term may match (OR): natural-language questions rarely share every word.
        parts.append(
            "tq AS (SELECT NULLIF(replace(plainto_tsquery('english', %(query)s)::text, ' & ', ' | '), '')"
            "::tsquery AS q),"
            " kw AS MATERIALIZED (SELECT c.id, ts_rank_cd(c.tsv, tq.q, 32) AS rank FROM chunks c, tq"
            f" WHERE tq.q IS NOT NULL AND c.tsv @@ tq.q AND {where} ORDER BY rank DESC LIMIT %(k)s)"
        )
    else:
        parts.append("kw AS (SELECT NULL::uuid AS id, NULL::float4 AS rank WHERE false)")
    return (
        "WITH " + ", ".join(parts) + ", ids AS (SELECT id FROM vec UNION SELECT id FROM kw)"
        " SELECT c.id AS chunk_id, c.memory_id, c.text, c.position, c.char_start, c.occurred_at,"
        " vec.sim, kw.rank, m.namespace, m.kind, m.layer, m.tags, m.importance, m.source, m.created_at,"
        " m.last_accessed"
        " FROM ids JOIN chunks c ON c.id = ids.id JOIN memories m ON m.id = c.memory_id AND m.status = 'active'"
        " LEFT JOIN vec ON vec.id = ids.id LEFT JOIN kw ON kw.id = ids.id"
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
    params.update(query=req.query, k=max(s.recall_candidates, req.limit * 5))

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
            space = active_space(conn)
            if space is None or space.model_id != embedder.model_id:
                degraded.append("vector_search_unavailable: embedding space mismatch")
            else:
                dimension = space.dimension
                params.update(qvec=qvec, model=space.model_id)
                conn.execute("SET LOCAL hnsw.iterative_scan = 'relaxed_order'")
                conn.execute(f"SET LOCAL hnsw.ef_search = {int(s.hnsw_ef_search)}")
        use_keyword = req.mode != "vector" or dimension is None
        if req.mode == "vector" and dimension is None:
            degraded.append("keyword_fallback")
        pending = conn.execute(
            f"SELECT count(*) AS n FROM (SELECT 1 FROM chunks c WHERE c.embedding IS NULL AND {where} LIMIT 1000) p",
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
        best: dict[UUID, Candidate] = {}
        for c in sorted(candidates, key=lambda c: -c.fused):
            best.setdefault(c.row["memory_id"], c)
        ranked = list(best.values())
        if req.diversify and dimension:
            top = ranked[: req.limit * 4]
            vec_rows = conn.execute(
                "SELECT id, embedding::text AS embedding FROM chunks WHERE id = ANY(%s) AND embedding IS NOT NULL",
                ([c.row["chunk_id"] for c in top],),
            ).fetchall()
            vectors = {r["id"]: parse_vector(r["embedding"]) for r in vec_rows}
            ranked = _mmr(top, vectors, req.limit)
        hits, used = _shape(ranked[: req.limit], req)
        if req.touch and hits:
            conn.execute(
                "UPDATE memories SET access_count = access_count + 1, last_accessed = now() WHERE id = ANY(%s)",
                ([h.memory_id for h in hits],),
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
            memory_id=r["memory_id"], namespace=r["namespace"], kind=r["kind"], layer=r["layer"], tags=r["tags"],
            importance=r["importance"], source=r["source"], created_at=r["created_at"],
            chunk=RecalledChunk(id=r["chunk_id"], text=text, position=r["position"], char_start=r["char_start"],
                                truncated=truncated),
            score=round(c.fused, 6),
            explain=ScoreParts(vector=c.vector, keyword=c.keyword, recency=round(c.recency, 6),
                               importance=float(r["importance"]), fused=c.fused) if req.explain else None,
        ))
    return hits, used

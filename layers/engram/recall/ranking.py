"""Ranking recall candidates: recency decay, score fusion, maximal marginal relevance. Pure: no SQL,
unit-tested without a database."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

RECENCY_HALF_LIFE_DAYS = 30.0
# engram-go's composite weights (seed 000); see README "Recall quality" for what was measured.
W_VECTOR, W_KEYWORD, W_RECENCY = 0.50, 0.35, 0.15
# Reciprocal rank fusion's k, chosen on bench/longconv_recall.py's train split (10, 20, 40, 60 measured):
# a small k lets each list's first hits lead, which is what evidence within a small budget needs.
RRF_K = 10
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


def recency_score(occurred_at: datetime, now: datetime) -> float:
    age_days = max((now - occurred_at).total_seconds(), 0.0) / 86400.0
    return math.exp(-math.log(2) * age_days / RECENCY_HALF_LIFE_DAYS)


def fuse(candidates: list[Candidate], fusion: str) -> None:
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


def mmr(candidates: list[Candidate], vectors: dict[UUID, list[float]], limit: int) -> list[Candidate]:
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

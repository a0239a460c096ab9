"""Maximal marginal relevance (recall's `diversify`): the numpy form picks what the plain
definition picks, demotes near-duplicates, and stays cheap at a pool of hundreds."""

from __future__ import annotations

import random
from typing import Any
from uuid import UUID, uuid4

from engram.core.select_lists import field_names
from engram.recall.ranking import MMR_FLOOR, MMR_LAMBDA, Candidate, mmr
from engram.recall.rows import CandidateRow


def _row(**fields: Any) -> CandidateRow:
    """A candidate row with the fields a test names (the others None)."""
    blank: dict[str, Any] = dict.fromkeys(field_names(CandidateRow))
    return CandidateRow(**(blank | {"importance": 0.5} | fields))


def _definition(candidates: list[Candidate], vectors: dict[UUID, list[float]], limit: int) -> list[Candidate]:
    """MMR as written in the literature, one candidate at a time (the oracle)."""
    chosen: list[Candidate] = []
    pool = list(candidates)
    top = max((c.fused for c in candidates), default=1.0) or 1.0  # relevance is the fused score over the best
    while pool and len(chosen) < limit:

        def gain(c: Candidate) -> float:
            v = vectors.get(c.row.chunk_id)
            if v is None or not chosen:
                return c.fused / top
            sims = [
                sum(a * b for a, b in zip(v, vectors[x.row.chunk_id], strict=True))
                for x in chosen
                if x.row.chunk_id in vectors
            ]
            redundancy = max(0.0, (max(sims, default=0.0) - MMR_FLOOR) / (1 - MMR_FLOOR))
            return MMR_LAMBDA * c.fused / top - (1 - MMR_LAMBDA) * redundancy

        best = max(pool, key=gain)
        chosen.append(best)
        pool.remove(best)
    return chosen


def _unit(rng: random.Random, dim: int) -> list[float]:
    v = [rng.gauss(0, 1) for _ in range(dim)]
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


def _pool(rng: random.Random, size: int, dim: int, missing: float = 0.0) -> tuple[list[Candidate], dict]:
    candidates = [Candidate(row=_row(chunk_id=uuid4()), fused=rng.random()) for _ in range(size)]
    vectors = {c.row.chunk_id: _unit(rng, dim) for c in candidates if rng.random() >= missing}
    return candidates, vectors


def test_picks_what_the_definition_picks() -> None:
    rng = random.Random(7)
    for size, limit, missing in ((40, 10, 0.0), (60, 25, 0.2), (12, 12, 0.5), (5, 20, 0.0)):
        candidates, vectors = _pool(rng, size, 16, missing)
        expected = [c.row.chunk_id for c in _definition(candidates, vectors, limit)]
        assert [c.row.chunk_id for c in mmr(candidates, vectors, limit)] == expected


def test_a_near_duplicate_of_the_first_pick_waits_behind_a_different_result() -> None:
    a, dup, other = (Candidate(row=_row(chunk_id=uuid4()), fused=f) for f in (1.0, 0.95, 0.7))
    vectors = {a.row.chunk_id: [1.0, 0.0], dup.row.chunk_id: [0.999, 0.0447], other.row.chunk_id: [0.0, 1.0]}
    assert [c.row.chunk_id for c in mmr([a, dup, other], vectors, 2)] == [a.row.chunk_id, other.row.chunk_id]


def test_without_vectors_it_keeps_relevance_order_and_limits() -> None:
    candidates = [Candidate(row=_row(chunk_id=uuid4()), fused=f) for f in (0.9, 0.5, 0.7)]
    assert [c.fused for c in mmr(candidates, {}, 2)] == [0.9, 0.7]
    assert mmr(candidates, {}, 0) == [] and mmr([], {}, 5) == []


def test_a_pool_of_hundreds_costs_far_less_than_the_definition() -> None:
    # Compared in one run, not against a clock: the definition is O(limit^2 x pool x dim) in Python.
    import time

    rng = random.Random(3)
    candidates, vectors = _pool(rng, 120, 64)
    t0 = time.perf_counter()
    fast = mmr(candidates, vectors, 30)
    t1 = time.perf_counter()
    slow = _definition(candidates, vectors, 30)
    t2 = time.perf_counter()
    assert [c.row.chunk_id for c in fast] == [c.row.chunk_id for c in slow]
    assert (t1 - t0) * 5 < (t2 - t1)

"""Reciprocal rank fusion, recall's default (chosen with bench/longconv_recall.py)."""

from __future__ import annotations

from engram.core.config import Settings
from engram.recall.ranking import RRF_K, Candidate, fuse


def _candidate(vector: float | None, keyword: float | None) -> Candidate:
    return Candidate(row={"importance": 0.5}, vector=vector, keyword=keyword, recency=0.0)


def test_recall_fuses_by_rank_by_default() -> None:
    assert Settings().recall_fusion == "rrf"


def test_each_lists_first_hit_leads_even_when_the_other_list_scores_it_lowest() -> None:
    # Ten turns close to the question's wording (vector only), and the one turn that names the
    # question's rare word: its vector similarity is the lowest of the pool.
    near = [_candidate(0.60 - i * 0.01, None) for i in range(10)]
    named = _candidate(0.30, 0.2)
    fuse([*near, named], "rrf")
    ranked = sorted([*near, named], key=lambda c: -c.fused)
    assert ranked.index(named) <= 1


def test_a_small_k_separates_the_first_ranks_more_than_the_last() -> None:
    first, second, fortieth = (1 / (RRF_K + r) for r in (1, 2, 40))
    assert first / second > 1.05  # with k = 60 it would be 1.016: every rank almost alike
    assert first > 3 * fortieth

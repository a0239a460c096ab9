"""Reciprocal rank fusion, recall's default (chosen with bench/dialogue_recall.py)."""

from __future__ import annotations

from typing import Any

import pytest

from engram.core.select_lists import field_names
from engram.recall.ranking import RRF_K, Candidate, fuse
from engram.recall.rows import CandidateRow
from engram.recall.settings import RecallSettings


def _row(**fields: Any) -> CandidateRow:
    """A candidate row with the fields a test names (the others None)."""
    blank: dict[str, Any] = dict.fromkeys(field_names(CandidateRow))
    return CandidateRow(**(blank | {"importance": 0.5} | fields))


def _candidate(vector: float | None, keyword: float | None) -> Candidate:
    return Candidate(row=_row(), vector=vector, keyword=keyword, recency=0.0)


def test_recall_fuses_by_rank_by_default() -> None:
    assert RecallSettings().recall_fusion == "rrf"


def test_each_lists_first_hit_leads_when_both_lists_weigh_alike() -> None:
    # Ten turns close to the question's wording (vector only), and the one turn that names the
    # question's rare word: its vector similarity is the lowest of the pool.
    near = [_candidate(0.60 - i * 0.01, None) for i in range(10)]
    named = _candidate(0.30, 0.2)
    fuse([*near, named], "rrf", keyword_weight=1.0)
    ranked = sorted([*near, named], key=lambda c: -c.fused)
    assert ranked.index(named) <= 1


def test_by_default_both_lists_weigh_alike() -> None:
    # Chosen on real dialogue (bench/dialogue_recall.py: 1 against 0.15 and 0.5): in chat logs a
    # question's rare word is the best clue there is, and the turn naming it leads.
    assert RecallSettings().recall_rrf_keyword_weight == 1.0
    near = [_candidate(0.60 - i * 0.01, None) for i in range(10)]
    named = _candidate(0.30, 0.2)
    fuse([*near, named], "rrf", keyword_weight=RecallSettings().recall_rrf_keyword_weight)
    ranked = sorted([*near, named], key=lambda c: -c.fused)
    assert ranked.index(named) <= 1


def test_a_small_k_separates_the_first_ranks_more_than_the_last() -> None:
    first, second, fortieth = (1 / (RRF_K + r) for r in (1, 2, 40))
    assert first / second > 1.05  # with k = 60 it would be 1.016: every rank almost alike
    assert first > 3 * fortieth


def test_the_keyword_list_counts_by_its_setting_weight() -> None:
    # A turn that only the keyword list ranks first, beside one that only the vector list ranks first.
    by_vector, by_keyword = _candidate(0.6, None), _candidate(None, 0.9)
    weight = RecallSettings().recall_rrf_keyword_weight
    fuse([by_vector, by_keyword], "rrf", keyword_weight=weight)
    assert by_keyword.fused == pytest.approx(weight * by_vector.fused)
    # Found by both lists: the vector rank's share and the keyword rank's share times the weight.
    both = _candidate(0.6, 0.9)
    fuse([both], "rrf", keyword_weight=0.3)
    assert both.fused == pytest.approx((1 + 0.3) / (RRF_K + 1) * (1 + 0.1 * 0.0 + 0.1 * 0.5))
    # Weight 0: the keyword list still brings candidates, in last place.
    fuse([by_vector, by_keyword], "rrf", keyword_weight=0.0)
    assert by_keyword.fused == 0.0 < by_vector.fused


def test_without_a_vector_list_the_keyword_weight_changes_no_score() -> None:
    # Keyword mode, or vectors unavailable: the weight is relative to the vector list, so scores (and a
    # caller's min_score) stay what they were with weight 1.
    alone = [_candidate(None, 0.9), _candidate(None, 0.4)]
    fuse(alone, "rrf", keyword_weight=0.15)
    assert [c.fused for c in alone] == pytest.approx([1 / (RRF_K + r) * (1 + 0.1 * 0.0 + 0.1 * 0.5) for r in (1, 2)])

"""How the query rewrites' lists join the fusion (engram.recall.ranking), without a database."""

from __future__ import annotations

from typing import Any

import pytest

from engram.core.select_lists import field_names
from engram.recall.ranking import RRF_K, W_VECTOR, Candidate, fuse
from engram.recall.rows import CandidateRow


def _row(**fields: Any) -> CandidateRow:
    """A candidate row with the fields a test names (the others None)."""
    blank: dict[str, Any] = dict.fromkeys(field_names(CandidateRow))
    return CandidateRow(**(blank | {"importance": 0.5} | fields))


def candidate(
    n: int, vector: float | None, keyword: float | None, **rewrites: tuple[float | None, float | None]
) -> Candidate:
    c = Candidate(row=_row(chunk_id=n), vector=vector, keyword=keyword)
    c.rewrites = {int(j[1:]): scores for j, scores in rewrites.items()}
    return c


def test_rrf_rewrites_together_weigh_as_much_as_the_question() -> None:
    question_only = candidate(1, 0.9, 0.5)
    rewrites_only = candidate(2, None, None, r0=(0.9, 0.5), r1=(0.9, 0.5))
    fuse([question_only, rewrites_only], "rrf", rewrites=2)
    assert question_only.rewrite_part == 0
    assert rewrites_only.rewrite_part == pytest.approx(2 / (RRF_K + 1))  # two rewrites x two lists x 1/2
    assert rewrites_only.fused == pytest.approx(question_only.fused)


def test_weighted_takes_the_best_phrasing() -> None:
    better_rewritten = candidate(1, 0.2, None, r0=(0.8, None), r1=(0.5, None))
    better_asked = candidate(2, 0.9, None, r0=(0.1, None))
    fuse([better_rewritten, better_asked], "weighted", rewrites=2)
    assert better_rewritten.rewrite_part == pytest.approx(W_VECTOR * (0.8 - 0.2))
    assert better_asked.rewrite_part == 0
    alone = candidate(3, 0.8, None)
    fuse([alone], "weighted")
    assert better_rewritten.fused == pytest.approx(alone.fused)  # scored as if asked in the rewrite's words


def test_without_rewrites_nothing_changes() -> None:
    c = candidate(1, 0.7, 0.3)
    fuse([c], "rrf")
    assert c.rewrite_part == 0 and c.score == c.fused
    c.rerank = 0.42
    assert c.score == 0.42

"""How many candidates a recall takes per list: 5 x the results it can return, which a budget bounds."""

from __future__ import annotations

import pytest

from engram.recall import ranking
from engram.recall.models import RecallRequest


@pytest.mark.parametrize(
    ("limit", "budget", "expected"),
    [
        (10, None, 10),  # no budget: the limit
        (100, 4000, 40),  # a budget without a limit asks for 100; 4,000 characters hold ~40 results
        (100, 2000, 20),
        (100, 8000, 80),
        (100, 20_000, 100),  # never more than the limit
        (10, 4000, 10),  # a limit below what the budget holds decides
        (100, 150, 2),  # a part of a result still counts as one
    ],
)
def test_results_expected(limit: int, budget: int | None, expected: int) -> None:
    assert ranking.results_expected(limit, budget) == expected


def test_a_budget_without_a_limit_takes_fewer_candidates_than_its_limit_would() -> None:
    req = RecallRequest(query="what did we decide", budget_chars=4000)
    assert req.limit == 100  # the budget decides how many fit
    assert ranking.results_expected(req.limit, req.budget_chars) * 5 == 200  # was 500: 5 x limit


def test_off_when_no_size_is_assumed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranking, "BUDGET_CHARS_PER_RESULT", 0)
    assert ranking.results_expected(100, 4000) == 100

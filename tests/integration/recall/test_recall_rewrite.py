"""Recall's `rewrite_query`: the LLM's rewrites of the question, through the fake Messages API at the
HTTP boundary (the real anthropic client and engram.adapters.llm run)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

NOTES = [
    "Maria orders a flat white every morning before stand-up.",
    "The staging cluster is rebuilt every Sunday night.",
    "Invoices are archived to Glacier after seven years.",
]
QUESTION = "What beverage does she like?"  # not one word in common with any note
# Numbered, as a model may do although told not to: the markers go, a number that is a word stays.
REWRITES = "1. coffee drink preference\n2) flat white latte espresso order\n\n- 2025 morning order\n"


@pytest.fixture
def claude(settings_env: Callable[..., None], fake_messages: Callable[..., Any]) -> Any:
    fake = fake_messages(lambda body: REWRITES, (40, 12))
    settings_env(
        ANTHROPIC_API_KEY="sk-test",
        ENGRAM_ANTHROPIC_BASE_URL=fake.url,
        ENGRAM_LLM_LEVEL="auto",
        ENGRAM_LLM_MAX_RETRIES="0",
    )
    return fake


@pytest.fixture
def notes(api: Any, drain: Callable[[], None]) -> list[str]:
    ids = []
    for text in NOTES:
        r = api.post("/v1/memories", {"content": text, "namespace": "kb"})
        assert r.status == 201
        ids.append(r.body["memory"]["id"])
    drain()
    return ids


def recall(api: Any, **body: Any) -> dict[str, Any]:
    r = api.post("/v1/recall", {"namespace": "kb", "query": QUESTION, "touch": False, **body})
    assert r.status == 200, r.body
    return r.body


def test_rewrites_find_a_memory_the_questions_words_miss(api: Any, notes: list[str], claude: Any) -> None:
    assert recall(api, mode="keyword")["results"] == []
    assert claude.requests == []  # off by default

    body = recall(api, mode="keyword", rewrite_query=True, explain=True)
    assert body["degraded"] == []
    assert body["query_rewrites"] == [
        "coffee drink preference",
        "flat white latte espresso order",
        "2025 morning order",
    ]
    assert [h["memory_id"] for h in body["results"]] == [notes[0]]
    assert body["results"][0]["explain"]["rewrites"] > 0
    assert body["results"][0]["explain"]["keyword"] is None  # found by the rewrites alone
    [request] = claude.requests
    assert request["messages"] == [{"role": "user", "content": QUESTION}]


def test_hybrid_rewrites_lift_the_memory_they_match(api: Any, notes: list[str], claude: Any) -> None:
    body = recall(api, rewrite_query=True, explain=True)
    assert body["results"][0]["memory_id"] == notes[0]
    parts = {h["memory_id"]: h["explain"]["rewrites"] for h in body["results"]}
    assert parts[notes[0]] == max(parts.values())


def test_rewrite_calls_are_metered_as_recall_expansion(api: Any, notes: list[str], claude: Any) -> None:
    recall(api, rewrite_query=True)
    recall(api, rewrite_query=True)
    usage = api.get("/v1/usage").body
    [line] = [ln for ln in usage["lines"] if ln["component"] == "recall_expansion"]
    assert (line["calls"], line["input_tokens"], line["output_tokens"], line["failed_calls"]) == (2, 80, 24, 0)


def test_the_daily_cap_stops_rewrites_and_recall_still_answers(
    api: Any, notes: list[str], claude: Any, settings_env: Callable[..., None]
) -> None:
    settings_env(ENGRAM_CONSOLIDATION_LLM_DAILY_CALLS="1")
    assert recall(api, mode="keyword", rewrite_query=True)["results"]
    capped = recall(api, mode="keyword", rewrite_query=True)
    assert capped["degraded"] == ["rewrite_query_unavailable: llm_capped: tenant daily call cap reached: 1 calls"]
    assert capped["query_rewrites"] == [] and capped["results"] == []
    assert len(claude.requests) == 1
    settings_env(ENGRAM_CONSOLIDATION_LLM_DAILY_CALLS="100", ENGRAM_CONSOLIDATION_LLM_DAILY_TOKENS="52")
    assert recall(api, mode="keyword", rewrite_query=True)["degraded"] == [
        "rewrite_query_unavailable: llm_capped: tenant daily token cap reached: 52 tokens"
    ]


def test_a_failing_llm_degrades(api: Any, notes: list[str], claude: Any, settings_env: Callable[..., None]) -> None:
    claude.close()  # nothing listens there any more
    body = recall(api, rewrite_query=True)
    [reason] = body["degraded"]
    assert reason.startswith("rewrite_query_unavailable: llm_error: APIConnectionError")
    assert body["results"]  # the question's own search still answers
    failed = [ln for ln in api.get("/v1/usage").body["lines"] if ln["component"] == "recall_expansion"]
    assert failed[0]["failed_calls"] == 1


def test_llm_off_degrades_without_a_call(
    api: Any, notes: list[str], claude: Any, settings_env: Callable[..., None]
) -> None:
    settings_env(ENGRAM_LLM_LEVEL="off")
    body = recall(api, rewrite_query=True)
    assert body["degraded"] == ["rewrite_query_unavailable: llm_disabled: ENGRAM_LLM_LEVEL=off"]
    assert body["results"] and claude.requests == []

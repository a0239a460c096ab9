"""Consolidation's pure rules: decay, promotion, gate, demotion, eviction, pair classes, merges."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import pytest

from engram.consolidation import lifecycle, merging, similarity
from engram.consolidation.memory_store import MemoryRow
from engram.consolidation.settings import ConsolidationSettings

RULES = lifecycle.LifecycleRules.from_settings(ConsolidationSettings())
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
T = similarity.SimilarityThresholds(
    dedupe_cosine=0.85,
    near_exact_jaccard=0.85,
    merge_jaccard=0.5,
    reconcile_min_cosine=0.55,
    reconcile_max_cosine=1.0,
    reconcile_min_gap_s=3600,
)


def mem(**kw: Any) -> MemoryRow:
    """A live memory as a run reads it (the store's row class), with `kw` for the fields a rule reads."""
    base: dict[str, Any] = {
        "id": uuid4(),
        "namespace": "default",
        "kind": "semantic",
        "layer": "buffer",
        "content": "x",
        "importance": 0.5,
        "tags": [],
        "source": None,
        "access_count": 0,
        "repetition_count": 0,
        "last_accessed": None,
        "created_at": NOW - timedelta(days=1),
        "updated_at": NOW - timedelta(days=1),
        "valid_from": NOW - timedelta(days=1),
        "valid_to": None,
        "status": "active",
        "layer_epoch": None,
        "gate_rejections": 0,
        "gate_retry_epoch": None,
        "version": 1,
        "image": {},
    }
    return MemoryRow(**{**base, **kw})


@pytest.mark.parametrize(("kind", "factor"), [("episodic", 0.98), ("semantic", 0.988), ("procedural", 0.996)])
def test_decay_by_kind(kind: str, factor: float) -> None:
    assert lifecycle.decayed_importance(0.5, kind, RULES) == pytest.approx(0.5 * factor)


def test_decay_stops_at_the_floor_and_never_raises() -> None:
    assert lifecycle.decayed_importance(0.0101, "episodic", RULES) == pytest.approx(0.01)
    assert lifecycle.decayed_importance(0.005, "episodic", RULES) == 0.005


def test_promotion_by_reinforcement() -> None:
    assert lifecycle.promotion_reason(mem(access_count=4), 1, RULES) is None
    assert lifecycle.promotion_reason(mem(access_count=0, repetition_count=2), 1, RULES)  # 5.0
    assert lifecycle.promotion_reason(mem(access_count=2, repetition_count=1), 1, RULES) is None  # 4.5


def test_promotion_by_kind_after_four_epochs() -> None:
    lesson = mem(tags=["lesson"], layer_epoch=3)
    assert lifecycle.promotion_reason(lesson, 6, RULES) is None
    assert "4 epochs" in (lifecycle.promotion_reason(lesson, 7, RULES) or "")
    assert lifecycle.promotion_reason(mem(kind="procedural", layer_epoch=None), 9, RULES) is None  # never seen
    assert lifecycle.promotion_reason(mem(kind="procedural", layer_epoch=1), 5, RULES)
    assert lifecycle.promotion_reason(mem(kind="episodic", layer_epoch=1), 50, RULES) is None


def test_gate_candidacy_and_cooldowns() -> None:
    strong = mem(layer="working", importance=0.7, access_count=3)
    assert lifecycle.gate_candidacy(strong, 10, NOW, RULES)
    assert lifecycle.gate_candidacy(replace(strong, importance=0.5), 10, NOW, RULES) is None
    assert lifecycle.gate_candidacy(replace(strong, tags=["ephemeral"]), 10, NOW, RULES) is None
    old = mem(layer="working", importance=0.7, access_count=1, created_at=NOW - timedelta(days=8))
    assert "older than 7 days" in (lifecycle.gate_candidacy(old, 10, NOW, RULES) or "")
    count, retry, _ = lifecycle.gate_rejection(0, 10, RULES)
    assert (count, retry) == (1, 58)
    assert lifecycle.gate_candidacy(replace(strong, gate_rejections=1, gate_retry_epoch=58), 57, NOW, RULES) is None
    assert lifecycle.gate_candidacy(replace(strong, gate_rejections=1, gate_retry_epoch=58), 58, NOW, RULES)
    assert lifecycle.gate_rejection(1, 10, RULES)[1] == 154
    assert lifecycle.gate_rejection(2, 10, RULES)[1] is None
    assert lifecycle.gate_candidacy(replace(strong, gate_rejections=3), 10_000, NOW, RULES) is None


def test_gate_heuristic_whitelist() -> None:
    assert lifecycle.gate_heuristic(mem(tags=["lesson"], content="Run migrations before deploys"), RULES)[0]
    assert not lifecycle.gate_heuristic(mem(tags=["constraint"], content="Use port 8080 for now"), RULES)[0]
    assert not lifecycle.gate_heuristic(mem(content="The office has a blue door"), RULES)[0]
    cue = mem(content="We decided to use Postgres because of pgvector", access_count=6)
    assert lifecycle.gate_heuristic(cue, RULES)[0]
    assert not lifecycle.gate_heuristic(replace(cue, access_count=1), RULES)[0]


def test_demotion() -> None:
    assert lifecycle.demotion_reason(mem(layer="core", source="session"))
    assert lifecycle.demotion_reason(mem(layer="core", tags=["ephemeral"]))
    assert lifecycle.demotion_reason(mem(layer="core", tags=["lesson"])) is None


def test_eviction_takes_lowest_weight_first() -> None:
    buffer = [mem(importance=0.9), mem(importance=0.1), mem(importance=0.5, repetition_count=3), mem(importance=0.2)]
    evicted = lifecycle.eviction_order(buffer, cap=2)
    assert [m.importance for m in evicted] == [0.1, 0.2]
    assert lifecycle.eviction_order(buffer, cap=4) == []


def test_pair_classes() -> None:
    then, later = NOW - timedelta(hours=3), NOW
    assert (
        similarity.classify_pair(
            "The API key rotates monthly.", "the api key  rotates monthly", then, later, 0.99, T
        ).cls
        == "exact"
    )
    near = similarity.classify_pair(
        "Deploys run on Fridays at 10:00 from the main branch",
        "Deploys run on Fridays at 10:00 from the main branch!!",
        then,
        later,
        0.98,
        T,
    )
    assert near.cls == "exact"
    near = similarity.classify_pair(
        "Backups of the orders database run nightly at 02:00 UTC to S3",
        "Backups of the orders database run nightly at 02:00 UTC to S3 glacier",
        then,
        later,
        0.97,
        T,
    )
    assert near.cls == "near_exact"
    port = similarity.classify_pair(
        "Postgres listens on port 5432", "Postgres listens on port 5433", then, later, 0.97, T
    )
    assert port.cls != "near_exact" and port.cls != "merge_candidate"
    assert port.cls == "reconcile_candidate"  # a changed number three hours later: maybe an update
    same_time = similarity.classify_pair(
        "Postgres listens on port 5432", "Postgres listens on port 5433", NOW, NOW, 0.97, T
    )
    assert same_time.cls is None
    assert similarity.classify_pair("a b c d", "e f g h", then, later, 0.3, T).cls is None


def test_specifics_and_tokens() -> None:
    assert similarity.specifics("Call +1-555-0100 on 2026-03-01 about ticket ENG-42") == {
        "1-555-0100",
        "2026-03-01",
        "eng-42",
    }
    assert similarity.jaccard(set(), set()) == 1.0


def test_rare_tokens_tie_a_pair_to_one_subject() -> None:
    services = enumerate(["auth", "billing"] * 30)
    namespace = [f"The {svc} service runs {n} replicas behind lb-{n}." for n, svc in services]
    common = similarity.common_tokens(namespace, share=0.1, floor=2)
    assert {"the", "service", "runs", "replicas", "behind", "auth", "billing"} <= common  # in 30 of 60 each
    assert "lb-7" not in common and "7" not in common
    update = similarity.shared_rare_tokens(namespace[7], "The billing service runs 9 replicas behind lb-7.", common)
    assert update == {"lb-7"}
    assert similarity.shared_rare_tokens(namespace[7], namespace[9], common) == set()  # same template only
    # In a small namespace the floor keeps every token rare: nothing is filtered out.
    assert similarity.common_tokens(namespace[:10], share=0.1, floor=20) == set()


def test_survivor_and_merged_fields() -> None:
    a = mem(
        layer="buffer",
        importance=0.9,
        access_count=2,
        repetition_count=1,
        tags=["x", "y"],
        last_accessed=NOW - timedelta(hours=1),
    )
    b = mem(layer="working", importance=0.4, access_count=3, repetition_count=0, tags=["y", "z"], last_accessed=NOW)
    survivor = merging.choose_survivor([a, b])
    assert survivor is b  # the higher layer wins
    fields = merging.merged_fields(b, [a])
    assert fields == {
        "importance": 0.9,
        "access_count": 5,
        "repetition_count": 1,
        "tags": ["y", "z", "x"],
        "layer": "working",
        "last_accessed": NOW,
    }


def test_merged_counts_stop_at_the_integer_maximum() -> None:
    top = 2**31 - 1  # imported counts may sit at the edge of the integer columns
    a = mem(access_count=top, repetition_count=top - 1)
    b = mem(access_count=5, repetition_count=5)
    fields = merging.merged_fields(a, [b])
    assert (fields["access_count"], fields["repetition_count"]) == (top, top)


def test_merge_answers_must_keep_every_specific() -> None:
    sources = ["Deploy key id AK-7 expires 2026-12-01", "The deploy key AK-7 expires on 2026-12-01"]
    good = '{"merge": true, "content": "The deploy key AK-7 expires on 2026-12-01"}'
    assert merging.parse_merge(good, sources, 1000) == "The deploy key AK-7 expires on 2026-12-01"
    with pytest.raises(merging.UnusableAnswer, match="drops details: 2026-12-01"):
        merging.parse_merge('{"merge": true, "content": "The deploy key AK-7 expires soon"}', sources, 1000)
    assert merging.parse_merge('{"merge": false}', sources, 1000) is None
    with pytest.raises(merging.UnusableAnswer):
        merging.parse_merge("I think they are the same", sources, 1000)


def test_reconcile_and_gate_answers() -> None:
    assert merging.parse_reconcile('{"decision": "update"}', "a 1", "b 2", 100).decision == "update"
    absorbed = merging.parse_reconcile('{"decision": "absorb", "content": ""}', "x", "y 2", 100)
    assert absorbed.content == "y 2"
    with pytest.raises(merging.UnusableAnswer):
        merging.parse_reconcile('{"decision": "delete"}', "a", "b", 100)
    assert merging.parse_gate('```json\n{"decision": "approve", "category": "lesson"}\n```')[0]
    assert not merging.parse_gate('{"decision": "reject"}')[0]


def test_near_exact_only_adds_words_a_substitution_goes_to_the_llm() -> None:
    then, later = NOW - timedelta(hours=3), NOW
    swapped = similarity.classify_pair(
        "Ana prefers green tea in the morning and no meetings before 9:00",
        "Ana prefers espresso in the morning and no meetings before 9:00",
        then,
        later,
        0.95,
        T,
    )
    assert swapped.cls == "merge_candidate"  # maybe an update: only an LLM may merge it
    added = similarity.classify_pair(
        "Ana prefers green tea in the morning", "Note: Ana prefers green tea in the morning", then, later, 0.95, T
    )
    assert added.cls == "near_exact" and "every word" in added.reason

"""Feedback on a recall moves its results' ranking: bounded, decaying, per tenant, once per recall, kept
for the retention setting, counted in GET /v1/stats and erased with what it names."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.support.owner_view import owner_connection

QUESTION = {"query": "what did the team decide about the database?", "namespace": "fb", "touch": False}


def _seed(api: Any, drain: Any) -> list[str]:
    ids = []
    for i in range(8):
        r = api.post(
            "/v1/memories", {"content": f"Decision {i}: the team decided the database {i} stays.", "namespace": "fb"}
        )
        ids.append(r.body["memory"]["id"])
    drain()
    return ids


def _order(api: Any, **extra: Any) -> list[str]:
    return [h["memory_id"] for h in api.post("/v1/recall", {**QUESTION, **extra}).body["results"]]


def test_useful_rises_not_useful_falls_and_both_are_bounded(api: Any, drain: Any) -> None:
    _seed(api, drain)
    first = api.post("/v1/recall", QUESTION).body
    before = [h["memory_id"] for h in first["results"]]
    last, top = before[-1], before[0]
    r = api.post("/v1/feedback", {"recall_id": first["recall_id"], "useful": [last], "not_useful": [top]})
    assert r.status == 201, r.body
    weights = {w["id"]: w for w in r.body["weights"]}
    assert weights[last]["weight"] == 0.25 and weights[last]["ranking_factor"] == 1.25
    assert weights[top]["weight"] == -0.05  # a light penalty: the boost does the moving
    after = _order(api)
    assert after.index(last) < before.index(last)
    explained = api.post("/v1/recall", {**QUESTION, "explain": True}).body["results"]
    assert next(h for h in explained if h["memory_id"] == last)["explain"]["feedback"] == 1.25
    assert next(h for h in explained if h["memory_id"] == top)["explain"]["feedback"] == 0.95
    # again and again: never past the bounds, and a not-useful memory is still returned
    for _ in range(11):
        rid = api.post("/v1/recall", QUESTION).body["recall_id"]
        assert api.post("/v1/feedback", {"recall_id": rid, "useful": [last], "not_useful": [top]}).status == 201
    explained = api.post("/v1/recall", {**QUESTION, "explain": True}).body["results"]
    factors = {h["memory_id"]: h["explain"]["feedback"] for h in explained}
    assert factors[last] == 2.0 and factors[top] == 0.5
    assert top in _order(api)


def test_feedback_decays_back(api: Any, drain: Any, stack: Any, tenant: Any) -> None:
    ids = _seed(api, drain)
    rid = api.post("/v1/recall", QUESTION).body["recall_id"]
    api.post("/v1/feedback", {"recall_id": rid, "useful": [ids[3]]})
    with owner_connection(stack) as conn:  # four half-lives ago
        conn.execute(
            "UPDATE feedback_weights SET updated_at = %s WHERE tenant_id = %s",
            (datetime.now(UTC) - timedelta(days=56), tenant.id),
        )
    explained = api.post("/v1/recall", {**QUESTION, "explain": True}).body["results"]
    assert next(h for h in explained if h["memory_id"] == ids[3])["explain"]["feedback"] == pytest.approx(
        1.015625, abs=1e-4
    )


def test_ids_are_checked_against_the_recall_and_nothing_is_written_on_error(api: Any, drain: Any) -> None:
    ids = _seed(api, drain)
    recalled = api.post("/v1/recall", {**QUESTION, "limit": 2}).body
    returned = [h["memory_id"] for h in recalled["results"]]
    stranger = next(i for i in ids if i not in returned)
    r = api.post("/v1/feedback", {"recall_id": recalled["recall_id"], "useful": [returned[0], stranger]})
    assert r.status == 422 and r.body["error"]["details"]["field"] == "useful.1"
    r = api.post(
        "/v1/feedback", {"recall_id": recalled["recall_id"], "useful": [returned[0]], "not_useful": [returned[0]]}
    )
    assert r.status == 422
    assert api.post("/v1/feedback", {"recall_id": recalled["recall_id"]}).status == 422
    r = api.post("/v1/feedback", {"recall_id": recalled["recall_id"], "failure_class": "bad_luck"})
    assert r.status == 422 and "failure_class" in json.dumps(r.body)
    assert api.get("/v1/stats").body["feedback"]["feedback"] == 0
    # the chunk id of a result is one of its ids too; a second feedback on the recall is refused
    chunk = recalled["results"][0]["chunk"]["id"]
    ok = api.post(
        "/v1/feedback", {"recall_id": recalled["recall_id"], "useful": [chunk], "failure_class": "stale_ranking"}
    )
    assert ok.status == 201 and [w["id"] for w in ok.body["weights"]] == [returned[0]]
    assert api.post("/v1/feedback", {"recall_id": recalled["recall_id"], "useful": [chunk]}).status == 409
    assert (
        api.post("/v1/feedback", {"recall_id": "00000000-0000-0000-0000-000000000000", "useful": [chunk]}).status == 404
    )


def test_conversation_turns_take_feedback_by_message_id(api: Any, drain: Any) -> None:
    cid = api.post("/v1/conversations", {"namespace": "fb"}).body["id"]
    msgs = [{"role": "user", "content": f"Note {i}: the database decision was number {i}."} for i in range(4)]
    appended = api.post(f"/v1/conversations/{cid}/messages", {"messages": msgs}).body
    drain()
    recalled = api.post("/v1/recall", {**QUESTION, "kinds": ["conversation"]}).body
    hit = recalled["results"][-1]
    message_id = hit["messages"][0]["id"]
    assert message_id in [m["id"] for m in appended["messages"]]
    r = api.post("/v1/feedback", {"recall_id": recalled["recall_id"], "useful": [message_id]})
    assert r.status == 201 and [w["id"] for w in r.body["weights"]] == [hit["chunk"]["id"]]


def test_feedback_never_reaches_another_tenant(api: Any, drain: Any, make_tenant: Any, api_for: Any) -> None:
    _seed(api, drain)
    other = api_for(make_tenant("other").key)
    recalled = api.post("/v1/recall", QUESTION).body
    target = recalled["results"][-1]["memory_id"]
    r = other.post("/v1/feedback", {"recall_id": recalled["recall_id"], "useful": [target]})
    assert r.status == 404
    assert other.get("/v1/stats").body["feedback"]["recall_events"] == 0


def test_stats_count_feedback_by_failure_class_and_erasure_takes_it(api: Any, drain: Any) -> None:
    ids = _seed(api, drain)
    recalled = api.post("/v1/recall", QUESTION).body
    first = recalled["results"][0]["memory_id"]
    api.post(
        "/v1/feedback", {"recall_id": recalled["recall_id"], "useful": [first], "failure_class": "aggregation_failure"}
    )
    stats = api.get("/v1/stats").body["feedback"]
    assert stats["recall_events"] == 1 and stats["feedback"] == 1 and stats["useful"] == 1
    assert stats["by_failure_class"]["aggregation_failure"] == 1 and stats["weighted_results"] == 1
    assert api.post(f"/v1/memories/{first}/erase", {}).status in (200, 201)
    stats = api.get("/v1/stats").body["feedback"]
    assert stats == {**stats, "recall_events": 0, "feedback": 0, "weighted_results": 0}
    assert len(ids) == 8


def test_a_read_only_key_gets_no_recall_id_and_retention_zero_turns_it_off(
    api: Any, drain: Any, make_tenant: Any, api_for: Any, settings_env: Any
) -> None:
    reader = api_for(make_tenant("reader", ["read"]).key)
    assert reader.post("/v1/recall", QUESTION).body["recall_id"] is None
    settings_env(ENGRAM_FEEDBACK_RETENTION_DAYS="0")
    assert api.post("/v1/recall", QUESTION).body["recall_id"] is None


def test_expiry_drops_old_events_and_weights(api: Any, drain: Any, stack: Any, tenant: Any) -> None:
    from engram.feedback.service import expire

    ids = _seed(api, drain)
    rid = api.post("/v1/recall", QUESTION).body["recall_id"]
    api.post("/v1/feedback", {"recall_id": rid, "useful": [ids[0]]})
    old = datetime.now(UTC) - timedelta(days=91)
    with owner_connection(stack) as conn:
        conn.execute("UPDATE recall_events SET created_at = %s WHERE tenant_id = %s", (old, tenant.id))
        conn.execute("UPDATE feedback_weights SET updated_at = %s WHERE tenant_id = %s", (old, tenant.id))
    assert expire()["recall_events"] >= 1
    assert api.get("/v1/stats").body["feedback"] | {"retention_days": 90} == {
        "retention_days": 90,
        "recall_events": 0,
        "feedback": 0,
        "useful": 0,
        "not_useful": 0,
        "by_failure_class": dict.fromkeys(
            ["vocabulary_mismatch", "aggregation_failure", "stale_ranking", "missing_content", "scope_mismatch"], 0
        ),
        "weighted_results": 0,
    }

"""`trace` on recall says where each expected memory went: its ranks, or why it was not a candidate,
and why it was not returned; a recall that does not ask gets no trace."""

from __future__ import annotations

from typing import Any


def _store(api: Any, content: str, **fields: Any) -> str:
    r = api.post("/v1/memories", {"content": content, "namespace": "tr", **fields})
    assert r.status == 201, r.body
    memory_id: str = r.body["memory"]["id"]
    return memory_id


def _trace(api: Any, expected: list[str], **request: Any) -> dict[str, dict[str, Any]]:
    body = {"query": "which port does the billing service listen on?", "namespace": "tr", **request}
    r = api.post("/v1/recall", {**body, "trace": {"expected": expected}})
    assert r.status == 200, r.body
    return {item["expected"]: item for item in r.body["trace"]["items"]}


def test_trace_explains_returned_cut_filtered_and_missing(api: Any, drain: Any) -> None:
    hit = _store(api, "The billing service listens on port 8443.")
    others = [_store(api, f"The billing service log {i} mentions the port it listens on.") for i in range(5)]
    tagged = _store(api, "Billing service port notes, archived.", tags=["archive"])
    trashed = _store(api, "Billing service listened on port 9000 once.")
    assert api.delete(f"/v1/memories/{trashed}").status == 200
    old = _store(api, "The billing service listens on port 7000.", conflict_key="billing.port")
    new = _store(api, "The billing service listens on port 7100.", conflict_key="billing.port")
    elsewhere = api.post("/v1/memories", {"content": "Billing service port in another namespace.", "namespace": "x"})
    drain()
    trace = _trace(api, [hit, tagged, trashed, old, elsewhere.body["memory"]["id"], "no such phrase anywhere"], limit=2)
    assert trace[hit]["reasons"] == ["past_limit"] and trace[hit]["fused_rank"] > 2 and trace[hit]["candidate"]
    assert trace[hit]["vector_rank"] is not None and trace[hit]["keyword_rank"] is not None
    assert trace[trashed]["reasons"] == ["in_trash"] and not trace[trashed]["returned"]
    assert trace[old]["reasons"] == ["superseded"]
    assert trace[elsewhere.body["memory"]["id"]]["reasons"] == ["filtered_by_namespace"]
    assert trace["no such phrase anywhere"]["reasons"] == ["not_found"]
    assert trace[tagged]["reasons"] == ["past_limit"]
    trace = _trace(api, [hit])  # the default limit: returned, in its place
    assert trace[hit]["returned"] and trace[hit]["rank"] == trace[hit]["fused_rank"] and trace[hit]["reasons"] == []
    trace = _trace(api, [hit], budget_chars=100)  # the first result fills the budget
    assert trace[hit]["reasons"] in ([], ["past_budget"])
    # a tag filter leaves the untagged out, and says so; a phrase finds its memory
    trace = _trace(api, [hit, "port 7100"], tags=["archive"])
    assert trace[hit]["reasons"] == ["filtered_by_tag"]
    assert trace["port 7100"]["memory_id"] == new and trace["port 7100"]["reasons"] == ["filtered_by_tag"]
    # below min_score
    trace = _trace(api, [others[0]], min_score=1.5)
    assert trace[others[0]]["reasons"] == ["below_min_score"] and trace[others[0]]["fused_rank"] is not None


def test_a_pending_vector_is_named(api: Any) -> None:
    waiting = _store(api, "Kafka brokers rotate their certificates monthly.")
    trace = _trace(api, [waiting])  # not drained: no vector yet, and no query word either
    assert trace[waiting]["reasons"] == ["no_vector_yet", "no_keyword_match"]
    assert trace[waiting]["candidate"] is False


def test_no_trace_unless_asked_and_bad_trace_refused(api: Any) -> None:
    r = api.post("/v1/recall", {"query": "anything"})
    assert r.body["trace"] is None
    assert api.post("/v1/recall", {"query": "x", "trace": {"expected": []}}).status == 422
    assert api.post("/v1/recall", {"query": "x", "trace": {"expected": ["a"] * 11}}).status == 422

"""Recall's compact form: each result's text once, with its id, score, namespace and time."""

from __future__ import annotations

import json
from typing import Any

import pytest


@pytest.fixture
def stored(api: Any, drain: Any) -> dict[str, str]:
    r = api.post("/v1/conversations", {"title": "pets", "namespace": "c"})
    assert r.status == 201
    cid = r.body["id"]
    msgs = [
        {"role": "user", "content": "We adopted a greyhound and named her Pixel."},
        {"role": "assistant", "content": "Pixel is a lovely name for a greyhound."},
    ]
    assert api.post(f"/v1/conversations/{cid}/messages", {"messages": msgs}).status == 201
    memory = api.post("/v1/memories", {"content": "Pixel sleeps on the blue sofa.", "namespace": "c"})
    assert memory.status == 201
    drain()
    return {"conversation": cid, "memory": memory.body["memory"]["id"]}


def test_compact_carries_each_text_once(api: Any, stored: dict[str, str]) -> None:
    query = {"query": "what is the greyhound called?", "namespace": "c", "touch": False}
    full = api.post("/v1/recall", query).body
    compact = api.post("/v1/recall", {**query, "format": "compact"}).body
    assert [h["chunk"]["text"] for h in full["results"]] == [h["text"] for h in compact["results"]]
    assert compact["used_chars"] == full["used_chars"]
    ids = {h["type"]: h["id"] for h in compact["results"]}
    assert ids == {"conversation": stored["conversation"], "memory": stored["memory"]}
    window = next(h for h in compact["results"] if h["type"] == "conversation")
    assert "messages" not in window and "chunk" not in window
    assert window["seq_from"] is not None and window["seq_to"] >= window["seq_from"]
    # the turn's words once, not twice (window text and message content)
    assert json.dumps(compact).count("named her Pixel") == 1
    assert json.dumps(full).count("named her Pixel") == 2
    assert len(json.dumps(compact)) < len(json.dumps(full)) * 0.7


def test_unknown_format_is_refused_by_name(api: Any) -> None:
    r = api.post("/v1/recall", {"query": "x", "format": "tiny"})
    assert r.status == 422 and "format" in json.dumps(r.body)


def test_both_forms_return_the_same_turns_for_a_budget_and_count_every_character_read(api: Any, drain: Any) -> None:
    """budget_chars counts each result's text as returned, its day line and speaker included; the full
    form's `messages` repeat those turns word for word and are not counted again."""
    r = api.post("/v1/conversations", {"title": "trip", "namespace": "b"})
    cid = r.body["id"]
    msgs = [
        {
            "role": "user",
            "content": f"Ana: day {i} of the trip, we hiked to lake number {i}.",
            "created_at": "2024-06-01",
        }
        for i in range(40)
    ]
    assert api.post(f"/v1/conversations/{cid}/messages", {"messages": msgs}).status == 201
    drain()
    for budget in (150, 700, 2000):
        query = {"query": "which lake did we hike to?", "namespace": "b", "touch": False, "budget_chars": budget}
        full = api.post("/v1/recall", query).body
        compact = api.post("/v1/recall", {**query, "format": "compact"}).body
        assert [(h["seq_from"], h["seq_to"]) for h in compact["results"]] == [
            (h["chunk"]["seq_from"], h["chunk"]["seq_to"]) for h in full["results"]
        ]
        texts = [h["text"] for h in compact["results"]]
        assert compact["used_chars"] == full["used_chars"] == sum(map(len, texts)) <= budget
        assert all(t.startswith("(01 June 2024)\nAna: day ") for t in texts if len(t) > 30)

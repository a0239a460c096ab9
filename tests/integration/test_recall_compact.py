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

"""Recall by a token confined to namespaces ranks as if the request named them: the keyword side picks
its candidates and counts its words among the grant's rows, not the whole tenant's, so a namespace
crowded with matching memories elsewhere neither hides the grant's nor shifts their scores."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.oauth_flow import call, tokens_for

QUERY = {"query": "zephyr lantern harbor", "mode": "keyword", "limit": 3, "explain": True, "touch": False}
CROWD = 60  # more than the keyword side's candidates (recall_candidates, 40)


@pytest.fixture
def crowded(api, drain, settings_env) -> dict[str, list[str]]:
    """Many memories in `other` holding every query word, a few in `chat` holding one; the keyword side
    walks the table-wide text index (as for a big tenant), which row-level security does not confine."""
    items = [{"content": f"Zephyr lantern {i} hangs by the harbor.", "namespace": "other"} for i in range(CROWD)] + [
        {"content": f"Chat note {i}: the zephyr came up in the weekly planning call.", "namespace": "chat"}
        for i in range(3)
    ]
    made = api.post("/v1/memories/batch", {"items": items})
    assert made.status in (200, 201) and made.body["created"] == len(items), made.body
    drain()
    settings_env(ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS="0")  # always the shared indexes
    ids = [r["memory_id"] for r in made.body["results"]]
    return {"other": ids[:CROWD], "chat": ids[CROWD:]}


def ranked(body: dict[str, Any]) -> list[tuple[str, float]]:
    return [(h["memory_id"], h["explain"]["keyword"]) for h in body["results"]]


def test_a_confined_recall_without_a_namespace_ranks_as_if_it_named_the_grants(stack, tenant, api, crowded):
    named = api.post("/v1/recall", {**QUERY, "namespace": "chat"})
    assert named.status == 200, named.body
    expected = ranked(named.body)
    assert {memory for memory, _ in expected} == set(crowded["chat"])
    # The key itself, unconfined, sees the crowd first: the chat memories are below the limit.
    assert {h["memory_id"] for h in api.post("/v1/recall", QUERY).body["results"]} <= set(crowded["other"])

    _, answer = tokens_for(tenant.key, scopes=["read"], namespaces=["chat"])
    token = answer["access_token"]
    for body in (QUERY, {**QUERY, "namespaces": ["chat", "other"]}):
        confined = call("POST", "/v1/recall", body, token=token)
        assert confined.status == 200, confined.body
        assert ranked(confined.body) == expected  # the same memories with the same keyword scores
    elsewhere = call("POST", "/v1/recall", {**QUERY, "namespace": "other"}, token=token)
    assert (elsewhere.status, elsewhere.body["results"]) == (200, [])

    # MCP's recall tool runs the same service with the same confinement.
    found = call(
        "POST",
        "/mcp",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "recall", "arguments": {"query": QUERY["query"], "mode": "keyword", "limit": 3}},
        },
        token=token,
    )
    assert found.status == 200, found.body
    text = json.dumps(found.body["result"]["content"])
    assert all(memory in text for memory in crowded["chat"])


def test_a_confined_token_gives_feedback_and_runs_tasks_in_its_namespaces_only(stack, tenant, api, drain):
    made = api.post(
        "/v1/memories/batch",
        {
            "items": [
                {"content": f"Harbor note {i}: the ferry leaves at nine.", "namespace": ns}
                for i, ns in enumerate(["chat", "chat", "other"])
            ]
        },
    )
    drain()
    _, answer = tokens_for(tenant.key, scopes=["read", "write"], namespaces=["chat"])
    token = answer["access_token"]
    recalled = call("POST", "/v1/recall", {"query": "when does the ferry leave?"}, token=token)
    assert recalled.status == 200 and recalled.body["recall_id"], recalled.body
    first = recalled.body["results"][0]["memory_id"]
    given = call("POST", "/v1/feedback", {"recall_id": recalled.body["recall_id"], "useful": [first]}, token=token)
    assert given.status == 201, given.body
    # the key's own recall over both namespaces is not the token's to rate
    wide = api.post("/v1/recall", {"query": "when does the ferry leave?"}).body
    other = call("POST", "/v1/feedback", {"recall_id": wide["recall_id"], "useful": [first]}, token=token)
    assert other.status == 404
    mine = call("POST", "/v1/tasks", {"goal": "Book the ferry", "namespace": "chat"}, token=token)
    assert mine.status == 201, mine.body
    theirs = api.post("/v1/tasks", {"goal": "Other work", "namespace": "other"}).body
    assert call("GET", f"/v1/tasks/{theirs['id']}", token=token).status == 404
    assert [t["id"] for t in call("GET", "/v1/tasks", token=token).body["items"]] == [mine.body["id"]]
    assert made.status in (200, 201)

"""Extraction at its edges: the MCP tools (extract, extraction_runs, extraction_run, get_memory's
evidence) through the /mcp endpoint, and GET /v1/usage's background spend against the daily budget.
The real worker and Anthropic client against the scripted Messages API of tests/support/messages_api.py."""

from __future__ import annotations

import json
from typing import Any

from tests.support.atlas_conversation import TURNS, by_content, first_answer, start

MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def call_tool(key: str, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """One tools/call through the API Gateway stand-in: (is_error, the text)."""
    from engram_local import gateway

    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    resp = gateway.handle(
        "POST", "/mcp", {"authorization": f"Bearer {key}", **MCP_HEADERS}, json.dumps(message).encode()
    )
    assert resp.status == 200, resp.body
    result = json.loads(resp.body)["result"]
    return bool(result.get("isError")), result["content"][0]["text"]


def test_mcp_extract_then_read_the_runs_and_the_evidence(api, tenant, make_tenant, model, stack):
    model.then(
        {
            "summary": "",
            "memories": [
                {
                    "action": "add",
                    "kind": "decision",
                    "content": "Atlas uses Terraform for networking.",
                    "evidence": [2],
                }
            ],
        }
    )
    text = "Meeting notes, 3 June.\n\nWe decided to use Terraform for the Atlas network stack."
    error, out = call_tool(tenant.key, "extract", {"text": text, "namespace": "notes", "dry_run": True})
    assert not error, out
    run_id = out.split()[5]
    assert out.startswith(f"Extraction dry run (nothing written) {run_id} of notes over a pushed text: done")
    assert "1. add decision · evidence #2\n   Atlas uses Terraform for networking." in out
    assert by_content(api, "notes") == {}

    model.then(first_answer)
    conversation_id = start(api)
    stack.extraction_poller.drain()
    error, listed = call_tool(tenant.key, "extraction_runs", {"conversation_id": conversation_id})
    assert not error and listed.count("\n") == 0, listed
    assert f"atlas · conversation {conversation_id} turns 1-4 · done · 3 add · 1 LLM calls, 1020 tokens" in listed
    error, detail = call_tool(tenant.key, "extraction_run", {"run_id": listed.split()[1]})
    assert not error, detail
    fact = by_content(api)["Atlas runs PostgreSQL 16 in production."]
    assert f"1. add fact · memory {fact['id']} · evidence #2" in detail
    assert f"conversation {conversation_id} #2 user (2025-05-12 09:01): {TURNS[1][1]}" in detail
    assert "add event on 2025-05-06" in detail and "Conversation summary now:\n   Planning Atlas" in detail

    # get_memory answers "why do we believe this?" with the turns.
    error, memory = call_tool(tenant.key, "get_memory", {"memory_id": fact["id"]})
    assert not error and "source: extraction" in memory
    turn = f"conversation {conversation_id} #2 user (2025-05-12 09:01): {TURNS[1][1]}"
    assert memory.endswith(f"Evidence (the turns it came from):\n   {turn}")

    # Bad arguments get the API's words; a read key may list and read runs, not extract.
    error, bad = call_tool(tenant.key, "extract", {"text": "x", "conversation_id": conversation_id})
    assert error and "text: give either text or conversation_id" in bad
    reader = make_tenant("mcp-reader", scopes=["read"]).key
    assert call_tool(reader, "extraction_runs", {}) == (False, "No extraction runs.")
    error, refused = call_tool(reader, "extract", {"text": "x"})
    assert error and "write" in refused, refused
    error, missing = call_tool(tenant.key, "extraction_run", {"run_id": "00000000-0000-0000-0000-000000000000"})
    assert error and "not found" in missing


def test_mcp_extract_without_an_llm_says_so(tenant):
    error, out = call_tool(tenant.key, "extract", {"text": "We use Rust."})
    assert error and "extraction needs an LLM" in out
    assert call_tool(tenant.key, "extraction_runs", {}) == (False, "No extraction runs.")


def test_usage_shows_background_spend_against_the_daily_budget(api, model, stack, settings_env):
    assert api.get("/v1/usage").body["extraction"] == {
        "tokens_today": 0,
        "extraction_tokens_today": 0,
        "daily_tokens": 500_000,
        "over_budget": False,
        "waiting_runs": 0,
    }
    settings_env(ENGRAM_EXTRACTION_DAILY_TOKENS="1000")
    model.then(first_answer)
    start(api)
    stack.extraction_poller.drain()  # 900 + 120 tokens: over the budget
    start(api, namespace="atlas2")
    stack.extraction_poller.drain()  # waits, and says why in its run
    assert api.get("/v1/usage").body["extraction"] == {
        "tokens_today": 1020,
        "extraction_tokens_today": 1020,
        "daily_tokens": 1000,
        "over_budget": True,
        "waiting_runs": 1,
    }

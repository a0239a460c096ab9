"""The remote MCP endpoint through the local server (the API Gateway stand-in, the real authorizer and
the mcp Lambda), driven by the MCP SDK's own clients: streamable HTTP, and stdio through `engram mcp`."""

from __future__ import annotations

import asyncio
import io
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

import mcp
import pytest
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from engram_mcp.server import tool_contract

Session = Callable[[mcp.Client], Awaitable[Any]]


async def _over_http(url: str, key: str, work: Session) -> Any:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    async with http, mcp.Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        return await work(client)


def over_http(url: str, key: str, work: Session) -> Any:
    return asyncio.run(_over_http(url, key, work))


def over_stdio(url: str, key: str, work: Session) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engram.ops.cli", "mcp", "--url", url],
        env={"ENGRAM_API_KEY": key},
    )

    async def run() -> Any:
        async with mcp.Client(stdio_client(params)) as client:
            return await work(client)

    return asyncio.run(run())


def http_api(
    url: str, key: str, method: str, path: str, body: Any = None, idempotency_key: str | None = None
) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    request = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def text(result: Any) -> str:
    return result.content[0].text


@pytest.fixture
def wait_for_vectors(server):
    """The server's embed poller fills the vectors in the background; recall by meaning wants them."""

    def wait(key: str, memory_id: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if http_api(server, key, "GET", f"/v1/memories/{memory_id}")[1]["embedding_status"] == "ready":
                return
            time.sleep(0.2)
        pytest.fail("the embedding never became ready")

    return wait


def test_a_client_lists_the_tools_then_stores_and_recalls(server, make_tenant, wait_for_vectors):
    tenant = make_tenant("mcp-a")

    async def store(client: mcp.Client) -> tuple[list[str], str]:
        listed = await client.list_tools()
        stored = await client.call_tool(
            "store_memory", {"content": "The staging database is restored from backup every Sunday.", "tags": ["ops"]}
        )
        return [t.name for t in listed.tools], text(stored)

    names, stored = over_http(server, tenant.key, store)
    assert names == [t["name"] for t in tool_contract()]
    assert stored.startswith("Stored memory ")
    memory_id = stored.split()[2]
    wait_for_vectors(tenant.key, memory_id)

    async def recall(client: mcp.Client) -> tuple[Any, Any]:
        found = await client.call_tool("recall", {"query": "when is staging restored?"})
        again = await client.call_tool("get_memory", {"memory_id": memory_id})
        return found, again

    found, again = over_http(server, tenant.key, recall)
    assert not found.is_error and text(found).startswith(f"1. memory {memory_id} ")
    assert "restored from backup every Sunday" in text(found) and "degraded" not in text(found)
    assert f"memory {memory_id} · v1 · default · semantic" in text(again)
    status, listed = http_api(server, tenant.key, "GET", "/v1/memories")
    assert status == 200 and [m["id"] for m in listed["items"]] == [memory_id]  # the same data as the HTTP API


def test_errors_are_tool_errors_with_the_http_apis_messages_and_write_nothing(server, make_tenant):
    tenant = make_tenant("mcp-errors")
    bad = {"content": "x", "tags": ["ok", "y" * 70]}
    status, envelope = http_api(server, tenant.key, "POST", "/v1/memories", bad)
    assert status == 422
    missing = "00000000-0000-0000-0000-0000000000aa"
    status, not_found = http_api(server, tenant.key, "GET", f"/v1/memories/{missing}")
    assert status == 404

    async def work(client: mcp.Client) -> tuple[Any, Any, Any]:
        return (
            await client.call_tool("store_memory", bad),
            await client.call_tool("get_memory", {"memory_id": missing}),
            await client.call_tool("no_such_tool", {}),
        )

    invalid, absent, unknown = over_http(server, tenant.key, work)
    assert (
        invalid.is_error
        and text(invalid) == envelope["error"]["message"] == "tags.1: String should have at most 64 characters"
    )
    assert invalid.structured_content == envelope
    assert absent.is_error and text(absent) == not_found["error"]["message"]
    assert unknown.is_error and text(unknown) == "no tool named 'no_such_tool'"
    assert http_api(server, tenant.key, "GET", "/v1/memories")[1]["items"] == []


def test_a_read_key_sees_and_may_call_only_the_read_tools(server, make_tenant):
    tenant = make_tenant("mcp-read", scopes=["read"])
    status, envelope = http_api(server, tenant.key, "POST", "/v1/memories", {"content": "x"})
    assert status == 403

    async def work(client: mcp.Client) -> tuple[list[str], Any, Any]:
        listed = await client.list_tools()
        refused = await client.call_tool("store_memory", {"content": "x"})
        allowed = await client.call_tool("recall", {"query": "anything"})
        return [t.name for t in listed.tools], refused, allowed

    names, refused, allowed = over_http(server, tenant.key, work)
    assert names == [t["name"] for t in tool_contract() if t["scope"] == "read"]
    assert refused.is_error and text(refused) == envelope["error"]["message"] == "this key lacks the 'write' scope"
    assert not allowed.is_error and text(allowed) == "No memories matched."


def test_tenants_do_not_see_each_others_memories(server, make_tenant):
    a, b = make_tenant("mcp-iso-a"), make_tenant("mcp-iso-b")
    stored = over_http(server, a.key, lambda c: c.call_tool("store_memory", {"content": "Tenant A's secret plan."}))
    memory_id = text(stored).split()[2]

    async def snoop(client: mcp.Client) -> tuple[Any, Any]:
        return (
            await client.call_tool("get_memory", {"memory_id": memory_id}),
            await client.call_tool("recall", {"query": "secret plan", "mode": "keyword"}),
        )

    got, found = over_http(server, b.key, snoop)
    assert got.is_error and text(got) == f"memory {memory_id} not found"
    assert text(found) == "No memories matched."


def test_without_a_valid_key_the_endpoint_answers_401(server):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    headers = {
        "Authorization": "Bearer egk_not_a_key",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    request = urllib.request.Request(f"{server}/mcp", data=body, method="POST", headers=headers)
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=30)
    assert caught.value.code == 401
    assert caught.value.headers["www-authenticate"].startswith("Bearer")
    assert json.loads(caught.value.read())["error"]["message"] == "missing or invalid API key"


def test_the_stdio_bridge_forwards_a_whole_session(server, make_tenant, wait_for_vectors):
    tenant = make_tenant("mcp-stdio")

    async def store(client: mcp.Client) -> tuple[list[str], Any]:
        listed = await client.list_tools()
        return [t.name for t in listed.tools], await client.call_tool(
            "store_memory", {"content": "Kayak trips leave from the north pier at dawn."}
        )

    names, stored = over_stdio(server, tenant.key, store)
    assert names == [t["name"] for t in tool_contract()]
    memory_id = text(stored).split()[2]
    wait_for_vectors(tenant.key, memory_id)
    found = over_stdio(server, tenant.key, lambda c: c.call_tool("recall", {"query": "where do kayak trips start?"}))
    assert text(found).startswith(f"1. memory {memory_id} ")


def test_the_stdio_bridge_reports_a_bad_key_to_the_client(server):
    async def listing(client: mcp.Client) -> Any:
        return await client.list_tools()

    with pytest.raises(BaseException) as caught:  # the client's task group wraps the MCP error
        over_stdio(server, "egk_not_a_key", listing)
    assert "HTTP 401: missing or invalid API key" in repr(
        caught.value.exceptions if hasattr(caught.value, "exceptions") else caught.value
    )


def test_get_and_delete_are_answered_405_not_held_open(server, make_tenant):
    tenant = make_tenant("mcp-methods")
    for method in ("GET", "DELETE"):
        headers = {"Authorization": f"Bearer {tenant.key}", "Accept": "text/event-stream"}
        request = urllib.request.Request(f"{server}/mcp", method=method, headers=headers)
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=30)
        assert caught.value.code == 405 and caught.value.headers["allow"] == "POST"
        assert json.loads(caught.value.read())["error"]["code"] == "method_not_allowed"


def task_id(out: dict[str, str]) -> str:
    return out["start_task"].split()[1]


def b_id(out: dict[str, str]) -> str:
    return out["store_memory"].split()[2]


def test_every_tool_answers_through_the_endpoint(server, make_tenant, wait_for_vectors):
    tenant = make_tenant("mcp-tour")
    first = text(over_http(server, tenant.key, lambda c: c.call_tool("store_memory", {"content": "Deploys run at 9."})))
    a = first.split()[2]
    wait_for_vectors(tenant.key, a)

    async def tour(client: mcp.Client) -> dict[str, str]:
        out: dict[str, str] = {}

        async def call(name: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, (name, text(result))
            out[name] = text(result)
            return out[name]

        b = (await call("store_memory", {"content": "Deploys run at 10 since March.", "tags": ["deploy"]})).split()[2]
        await call("link_memories", {"from_id": b, "to_id": a, "relation": "supersedes"})
        await call("update_memory", {"memory_id": b, "importance": 0.9})
        await call("memory_history", {"memory_id": b})
        await call("get_memory", {"memory_id": b})
        await call("query_document", {"memory_id": b, "question": "when do deploys run?", "answer": False})
        conversation = (await call("start_conversation", {"title": "standup"})).split()[2]
        await call(
            "append_conversation",
            {"conversation_id": conversation, "messages": [{"role": "user", "content": "hi"}], "idempotency_key": "k1"},
        )
        await call("recall", {"query": "deploys", "mode": "keyword", "trace": {"expected": [b]}})
        recall_id = out["recall"].rsplit("(recall_id ", 1)[1].split(":")[0]
        await call("recall_feedback", {"recall_id": recall_id, "useful": [b]})
        task = (await call("start_task", {"goal": "Move the deploy window"})).split()[1]
        await call("record_task_events", {"task_id": task, "messages": [{"role": "agent", "content": "Asked ops."}]})
        await call("redact_task_event", {"task_id": task, "seq": 1})
        await call("checkpoint_task", {"task_id": task, "summary": "Waiting for ops", "pending": ["confirm"]})
        await call("task_context", {"task_id": task, "query": "deploy window", "budget_chars": 2000})
        await call("end_task", {"task_id": task, "status": "done", "outcome": "moved to 11"})
        out["compact"] = text(await client.call_tool("recall", {"query": "deploys", "format": "compact"}))
        await call("list_topics", {})
        await call("lookup_topics", {"ids": ["t1"]})
        await call("resume", {})
        await call("prime", {"task": "plan the next deploy"})
        run = (await call("consolidate", {})).split()[2]
        await call("consolidation_run", {"run_id": run})
        out["extract"] = text(await client.call_tool("extract", {"text": "We deploy with Terraform."}))
        await call("extraction_runs", {})
        missing = {"run_id": "00000000-0000-0000-0000-000000000000"}
        out["extraction_run"] = text(await client.call_tool("extraction_run", missing))
        await call("forget", {"memory_id": a})
        doomed = text(await client.call_tool("store_memory", {"content": "A passing remark to erase for good."}))
        await call("erase_memory", {"memory_id": doomed.split()[2]})
        out["again"] = text(
            await client.call_tool(
                "append_conversation",
                {
                    "conversation_id": conversation,
                    "messages": [{"role": "user", "content": "hi"}],
                    "idempotency_key": "k1",
                },
            )
        )
        return out

    out = over_http(server, tenant.key, tour)
    assert set(out) - {"again", "compact"} == {t["name"] for t in tool_contract()}  # every tool was called
    assert out["erase_memory"].startswith("Erased (") and "1 memories" in out["erase_memory"]
    assert out["link_memories"].startswith("Linked memory ") and "-supersedes-> memory " + a in out["link_memories"]
    assert "now version 2" in out["update_memory"] and "importance 0.9" in out["get_memory"]
    assert out["memory_history"].count("\nv") == 2 and "It replaced:" in out["memory_history"]
    assert "Deploys run at 10 since March." in out["query_document"]
    assert (
        out["append_conversation"].startswith("Appended 1 message to")
        and out["append_conversation"].endswith("seq 1-1.")
        and out["again"].startswith("Already appended")
    )
    assert out["recall"].startswith("1. memory ") and "Trace:\n- " in out["recall"] and "returned #1" in out["recall"]
    assert out["recall_feedback"].startswith("Feedback ") and "x1.25" in out["recall_feedback"]
    assert out["redact_task_event"].startswith("Redacted event 1 (agent)")
    assert "=== Checkpoints ===" in out["task_context"] and "Waiting for ops" in out["task_context"]
    assert out["end_task"].startswith(f"task {task_id(out)} · done")
    assert out["compact"].startswith("1. memory ") and f"memory {b_id(out)} · score " in out["compact"]
    assert "\n   Deploys run at 10 since March." in out["compact"]
    assert out["list_topics"] == "No topic tree for default yet: consolidation builds it."
    assert out["lookup_topics"] == "No such topic: t1"
    assert f"] memory {b_id(out)}: Deploys run at 10 since March." in out["resume"]
    assert out["prime"].startswith(f"1. memory {b_id(out)} ") and "Deploys run at 10" in out["prime"]
    assert "(dry run: a plan, nothing will change)" in out["consolidate"]
    run = out["consolidate"].split()[2]
    assert out["consolidation_run"].startswith(f"Consolidation dry run {run} of default: ")
    assert "extraction needs an LLM" in out["extract"]  # this server has no model: the tool says so
    assert out["extraction_runs"] == "No extraction runs." and "not found" in out["extraction_run"]
    assert out["forget"] == f"Forgot memory {a}: it is in the trash and recall no longer returns it."


def test_the_bridge_forwards_lines_and_answers_each_request_once(server, make_tenant):
    from engram_mcp.stdio_bridge import Bridge

    tenant = make_tenant("mcp-bridge")
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_memory", "arguments": {}}},
    ]
    out = io.StringIO()
    Bridge(server, tenant.key).serve(io.StringIO("\n".join(json.dumps(m) for m in lines) + "\n\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3]  # the notification gets no answer
    assert answers[0]["result"]["serverInfo"]["name"] == "engram"
    assert [t["name"] for t in answers[1]["result"]["tools"]] == [t["name"] for t in tool_contract()]
    assert answers[2]["result"]["isError"] is True
    assert answers[2]["result"]["content"][0]["text"] == "memory_id: is required"

    out = io.StringIO()
    Bridge(server, "egk_not_a_key").serve(io.StringIO(json.dumps(lines[2]) + "\n"), out)
    assert json.loads(out.getvalue())["error"]["message"] == "HTTP 401: missing or invalid API key"


def test_an_idempotency_key_makes_a_retried_write_one_write_over_mcp_and_http(server, make_tenant):
    tenant = make_tenant("mcp-idem")
    body = {"content": "The on-call rota changes on Mondays.", "idempotency_key": "rota-1"}

    async def twice(client: mcp.Client) -> tuple[str, str, Any]:
        first = text(await client.call_tool("store_memory", body))
        again = text(await client.call_tool("store_memory", body))
        other = await client.call_tool("store_memory", {**body, "content": "Something else."})
        return first, again, other

    first, again, other = over_http(server, tenant.key, twice)
    memory_id = first.split()[2]
    assert first.startswith("Stored memory ") and again == first  # the first answer, replayed
    status, envelope = http_api(server, tenant.key, "POST", "/v1/memories", {"content": "Something else."}, "rota-1")
    assert status == 409 and other.is_error and text(other) == envelope["error"]["message"]
    status, replayed = http_api(server, tenant.key, "POST", "/v1/memories", {"content": body["content"]}, "rota-1")
    assert status == 201 and replayed["memory"]["id"] == memory_id  # the HTTP API sees the same request
    assert [m["id"] for m in http_api(server, tenant.key, "GET", "/v1/memories")[1]["items"]] == [memory_id]

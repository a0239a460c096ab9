"""What the MCP layer costs: the same operation as an MCP tool call and as the HTTP API call.

    .venv/bin/python -m bench.perf.mcp_latency [--requests 200]

Starts the local stack and the dev server on a free port, stores memories, lets the embed worker
catch up, then times three operations both ways, interleaved (one HTTP call, then the same MCP
call, so drift hits both alike):

- over HTTP through the local server (gateway stand-in, authorizer, the route or mcp Lambda):
  the v1 route vs a raw JSON-RPC tools/call POST to /mcp (what the stdio bridge and any stateless
  client send);
- in process, the Lambda handler alone (no socket, no authorizer): the route function vs the mcp
  function, fed the same API Gateway event shape;
- with the MCP SDK's client (one session, calls timed inside it) next to the same HTTP API calls.

Prints p50/p95 per operation and the MCP-minus-HTTP difference of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any

from bench.harness import dev_server, local_stack, p50_p95


def line(label: str, http: list[float], mcp: list[float]) -> str:
    (h, h95), (m, m95) = p50_p95(http), p50_p95(mcp)
    return (
        f"{label:<34} HTTP p50 {h:6.1f} p95 {h95:6.1f} | MCP p50 {m:6.1f} p95 {m95:6.1f} | MCP - HTTP {m - h:+5.1f} ms"
    )


def timed(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    n = args.requests

    from engram_http.route_table import Route
    from engram_local.gateway import build_event
    from engram_local.lambda_runtime import invoke

    with local_stack(start_poller=True) as stack, dev_server(stack) as server:
        key, base = server.key, server.url
        headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
        mcp_headers = {**headers, "accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}

        def post(path: str, body: Any, extra: dict[str, str] | None = None) -> bytes:
            req = urllib.request.Request(
                base + path, data=json.dumps(body).encode(), method="POST", headers=extra or headers
            )
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.read()

        def get(path: str) -> bytes:
            with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=30) as resp:
                return resp.read()

        def tool(name: str, arguments: dict[str, Any]) -> bytes:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
            answer = post("/mcp", body, mcp_headers)
            if b'"isError":true' in answer:
                raise RuntimeError(answer[:300])
            return answer

        ids = [
            json.loads(post("/v1/memories", {"content": f"mcp latency probe {i}: the build cache lives in s3"}))[
                "memory"
            ]["id"]
            for i in range(n)
        ]
        time.sleep(3)  # let the embed worker catch up, so recall runs with vectors
        for _ in range(5):  # warm both functions (imports, connections, the embedder)
            tool("recall", {"query": "warm up"})
            post("/v1/recall", {"query": "warm up"})

        ops: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]] = {
            "get_memory": (
                lambda i: get(f"/v1/memories/{ids[i]}"),
                lambda i: tool("get_memory", {"memory_id": ids[i]}),
            ),
            "recall": (
                lambda i: post("/v1/recall", {"query": f"where is the build cache {i % 10}"}),
                lambda i: tool("recall", {"query": f"where is the build cache {i % 10}"}),
            ),
            "store_memory": (
                lambda i: post("/v1/memories", {"content": f"http store {i} {uuid.uuid4()}"}),
                lambda i: tool("store_memory", {"content": f"mcp store {i} {uuid.uuid4()}"}),
            ),
        }
        over_http = interleaved(ops, n)

        # The Lambda handlers alone, fed the events the gateway stand-in builds, with the
        # authorizer's answer for the key filled in as API Gateway does.
        verdict = invoke(
            "authorizer", build_event("GET", "/v1/stats", mcp_headers, b"", Route("GET", "/v1/stats", "admin"), {})
        )

        def event(method: str, path: str, route: str, body: Any, params: dict[str, str] | None = None) -> dict:
            raw = json.dumps(body).encode() if body is not None else b""
            built = build_event(method, path, mcp_headers, raw, Route(method, route, "-"), params or {})
            built["requestContext"]["authorizer"] = {"lambda": verdict["context"]}
            return built

        def rpc(name: str, arguments: dict[str, Any]) -> dict:
            call = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
            return event("POST", "/mcp", "/mcp", call)

        refused = {"content": "x", "tags": ["y" * 70]}  # 422 / a tool error: tags.0 is too long
        handler_ops: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]] = {
            # The protocol's own cost: a request refused by validation touches no database.
            "refused store (no database)": (
                lambda i: invoke("memories", event("POST", "/v1/memories", "/v1/memories", refused)),
                lambda i: invoke("mcp", rpc("store_memory", refused)),
            ),
            "get_memory": (
                lambda i: invoke(
                    "memories",
                    event("GET", f"/v1/memories/{ids[i]}", "/v1/memories/{memory_id}", None, {"memory_id": ids[i]}),
                ),
                lambda i: invoke("mcp", rpc("get_memory", {"memory_id": ids[i]})),
            ),
            "recall": (
                lambda i: invoke(
                    "recall", event("POST", "/v1/recall", "/v1/recall", {"query": f"build cache {i % 10}"})
                ),
                lambda i: invoke("mcp", rpc("recall", {"query": f"build cache {i % 10}"})),
            ),
        }
        in_process = interleaved(handler_ops, n, check)

        sdk = asyncio.run(sdk_session(base, key, ids, n, post))

    print(f"{n} calls each, interleaved; milliseconds")
    print("over HTTP through the local server (v1 route vs raw JSON-RPC POST /mcp):")
    for name, (h, m) in over_http.items():
        print("  " + line(name, h, m))
    print("the Lambda handler alone, in process (route function vs mcp function, same event shape):")
    for name, (h, m) in in_process.items():
        print("  " + line(name, h, m))
    print("the MCP SDK's client (one session) vs the same HTTP API call:")
    for name, (h, m) in sdk.items():
        print("  " + line(name, h, m))


def interleaved(
    ops: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]],
    n: int,
    check: Callable[[Any], None] | None = None,
) -> dict[str, tuple[list[float], list[float]]]:
    """Each operation n times both ways, alternating, so that load on the machine hits both alike."""
    out: dict[str, tuple[list[float], list[float]]] = {}
    for name, (one, other) in ops.items():
        first: list[float] = []
        second: list[float] = []
        for i in range(n):
            for fn, times in ((one, first), (other, second)):
                t = time.perf_counter()
                result = fn(i)
                times.append((time.perf_counter() - t) * 1000)
                if check is not None:
                    check(result)
        out[name] = (first, second)
    return out


def check(result: dict) -> None:
    body = result.get("body") or ""
    refused = "at most 64 characters" in body  # the refused store, both ways: expected
    if not refused and (int(result.get("statusCode", 200)) >= 400 or '"isError":true' in body):
        raise RuntimeError(str(result)[:300])


async def sdk_session(
    base: str, key: str, ids: list[str], n: int, post: Callable[..., bytes]
) -> dict[str, tuple[list[float], list[float]]]:
    import mcp
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    out: dict[str, tuple[list[float], list[float]]] = {}
    async with http, mcp.Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        h, m = [], []
        for i in range(n):
            query = f"where is the build cache {i % 10}"
            h.append(timed(lambda: post("/v1/recall", {"query": query})))  # noqa: B023
            t = time.perf_counter()
            result = await client.call_tool("recall", {"query": query})
            m.append((time.perf_counter() - t) * 1000)
            if result.is_error:
                raise RuntimeError(result.content)
        out["recall"] = (h, m)
    return out


if __name__ == "__main__":
    main()

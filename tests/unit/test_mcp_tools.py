"""The MCP tools without a database: the committed contract, schemas taken from the routes' models,
argument errors worded as the HTTP API words them, the scopes, and the stdio bridge's headers."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from uuid import uuid4

import pytest
from mcp.shared.inbound import encode_header_value

from engram.consolidation.models import ConsolidateRequest
from engram.memories.models import MemoryCreate, MemoryPatch
from engram.recall.models import RecallRequest
from engram.tenancy.store import Principal
from engram_mcp.server import call, tool_contract
from engram_mcp.stdio_bridge import Bridge, endpoint, header_value
from engram_mcp.tools import BY_NAME, TOOLS, InvalidArguments, visible_to

ROOT = Path(__file__).resolve().parents[2]
_HEADER_SAFE_VALUE = re.compile(r"[\x20-\x7e]+")  # what http.client can send as a header value
ISSUE_TOOLS = {
    "store_memory",
    "recall",
    "get_memory",
    "update_memory",
    "forget",
    "query_document",
    "append_conversation",
    "list_topics",
    "lookup_topics",
    "resume",
    "prime",
    "link_memories",
    "memory_history",
    "consolidate",
}


def test_the_committed_contract_is_what_the_server_lists():
    committed = json.loads((ROOT / "layers" / "engram_mcp" / "contract.json").read_text())
    assert committed == tool_contract(), (
        "tools changed: run `make openapi` (or `make mcp-tools`) and commit layers/engram_mcp/contract.json"
    )


def test_every_capability_has_its_tool():
    assert {t.name for t in TOOLS} >= ISSUE_TOOLS
    assert len(BY_NAME) == len(TOOLS)


def _properties(model: type) -> set[str]:
    return set(model.model_json_schema()["properties"])  # type: ignore[attr-defined]


def test_input_schemas_are_the_routes_models_with_their_path_parameters():
    assert set(BY_NAME["store_memory"].input_schema["properties"]) == _properties(MemoryCreate) | {"idempotency_key"}
    key = BY_NAME["store_memory"].input_schema["properties"]["idempotency_key"]  # the route's header, its bounds kept
    assert key["anyOf"][0]["maxLength"] == 200 and "idempotency-key" not in BY_NAME["store_memory"].input_schema
    assert set(BY_NAME["recall"].input_schema["properties"]) == _properties(RecallRequest)
    assert set(BY_NAME["update_memory"].input_schema["properties"]) == {"memory_id"} | _properties(MemoryPatch)
    update = BY_NAME["update_memory"].input_schema
    assert update["required"] == ["memory_id"] and update["additionalProperties"] is False
    assert update["properties"]["memory_id"] == {"format": "uuid", "type": "string"}
    # a query parameter's bounds come from the route's signature
    resume = BY_NAME["resume"].input_schema["properties"]
    assert (resume["budget_chars"]["minimum"], resume["budget_chars"]["maximum"]) == (200, 100_000)
    assert "format" not in resume  # the route's text/json switch means nothing to a tool


def test_consolidate_is_a_dry_run_unless_asked_otherwise():
    assert ConsolidateRequest().dry_run is False  # the HTTP default
    tool = BY_NAME["consolidate"]
    assert tool.input_schema["properties"]["dry_run"]["default"] is True
    assert tool.parse({}).body.dry_run is True
    assert tool.parse({"dry_run": False}).body.dry_run is False


def _error(tool: str, arguments: dict) -> dict:
    """The tool error a caller gets: validation fails before any service (or database) is reached."""
    who = Principal(uuid4(), uuid4(), frozenset({"admin"}))
    result = call(who, tool, arguments)
    assert result.is_error and result.structured_content is not None, result
    return result.structured_content["error"]


def _message(tool: str, arguments: dict) -> str:
    error = _error(tool, arguments)
    assert error["code"] == "invalid_field", error
    return error["message"]


def test_bad_arguments_get_the_http_apis_words():
    assert _message("store_memory", {"content": "x", "tags": ["a", "x" * 70]}) == (
        "tags.1: String should have at most 64 characters"
    )
    assert _message("store_memory", {"content": "x", "colour": "blue"}) == "colour: is not a known field"
    assert _message("get_memory", {}) == "memory_id: is required"
    assert _message("get_memory", {"memory_id": "1", "extra": 1}).startswith("memory_id: Input should be a valid UUID")
    assert _message("resume", {"budget_chars": 5}) == "budget_chars: Input should be greater than or equal to 200"
    assert _message("update_memory", {"memory_id": "00000000-0000-0000-0000-000000000001", "importance": 2}) == (
        "importance: Input should be less than or equal to 1"
    )


def test_a_bad_argument_is_named_as_the_argument_even_when_it_is_called_query_or_path():
    # `query` is recall's argument, not an HTTP query string: the error must not call it `body`
    assert _message("recall", {"query": "a\x00b"}) == "query: must not contain NUL (\\u0000) characters"
    assert _error("recall", {"query": "x" * 4001})["details"] == {
        "field": "query",
        "limit": 4000,
        "fields": [{"field": "query", "message": "String should have at most 4000 characters", "limit": 4000}],
    }
    assert _message("recall", {"query": "\ud800"}).startswith("query: ")
    # an error of the arguments as a whole names them, not an HTTP body
    both = {"query": "x", "as_of": "2024-01-01T00:00:00Z", "include_expired": True}
    assert _error("recall", both)["details"]["field"] == "arguments"
    # so is an update that changes nothing (refused before any memory is read)
    nothing = _error("update_memory", {"memory_id": VALID["memory_id"]})
    assert nothing["message"] == "arguments: nothing to change: give at least one field", nothing


VALID = {
    "memory_id": "00000000-0000-0000-0000-000000000001",
    "conversation_id": "00000000-0000-0000-0000-000000000001",
    "run_id": "00000000-0000-0000-0000-000000000001",
    "from_id": "00000000-0000-0000-0000-000000000001",
    "to_id": "00000000-0000-0000-0000-000000000002",
    "query": "q",
    "task": "t",
    "content": "c",
    "question": "q",
    "messages": [{"role": "user", "content": "x"}],
    "ids": ["t1"],
    "relation": "relates_to",
    "recall_id": "00000000-0000-0000-0000-000000000003",
    "task_id": "00000000-0000-0000-0000-000000000004",
    "goal": "g",
    "summary": "s",
    "seq": 1,
}
# Invalid for every argument type: a string with NUL, a lone surrogate, a list of an object with NUL,
# a number too large for any bound, a negative number.
BAD_VALUES = ("a\x00", "\ud800", [{"\x00": "\x00"}], 10**30, -1)


@pytest.mark.parametrize("tool", [t.name for t in TOOLS])
def test_every_tools_bad_argument_names_that_argument(tool):
    schema = BY_NAME[tool].input_schema
    required = {name: VALID[name] for name in schema.get("required", [])}
    if tool == "update_memory":
        required["content"] = "c"  # an update must change something
    if tool == "extract":
        required["conversation_id"] = VALID["conversation_id"]  # text or a conversation: one of them
    if tool == "recall_feedback":
        required["failure_class"] = "missing_content"  # feedback must say something
    BY_NAME[tool].parse(required)
    for argument in schema["properties"]:
        for bad in BAD_VALUES:
            try:
                BY_NAME[tool].parse({**required, argument: bad})
            except InvalidArguments:
                pass
            else:
                continue  # a value some argument accepts (a number within no bound)
            field = _error(tool, {**required, argument: bad})["details"]["field"]
            assert field == argument or field.startswith(f"{argument}."), (tool, argument, bad, field)


def test_a_read_key_sees_the_read_tools_only():
    read = {t.name for t in visible_to(frozenset({"read"}))}
    assert read == {t.name for t in TOOLS if t.scope == "read"}
    assert {"recall", "resume", "get_memory"} <= read and not read & {"store_memory", "forget", "consolidate"}
    assert len(visible_to(frozenset({"admin"}))) == len(visible_to(frozenset({"read", "write"}))) == len(TOOLS)
    assert {t.name for t in visible_to(frozenset({"write"}))} == {t.name for t in TOOLS if t.scope == "write"}


def test_bridge_endpoint_and_header_encoding_match_the_mcp_transport():
    assert endpoint("http://h:1") == endpoint("http://h:1/") == endpoint("http://h:1/mcp") == "http://h:1/mcp"
    for name in ("store_memory", "mémoire", " padded", "=?base64?eA==?=", "tab\there"):
        assert header_value(name) == encode_header_value(name), name


def test_bridge_headers_follow_the_negotiated_and_the_per_request_version():
    bridge = Bridge("http://127.0.0.1:1", "egk_x")
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    assert "MCP-Protocol-Version" not in bridge.headers(init)
    assert bridge.headers(init)["Authorization"] == "Bearer egk_x"
    bridge._remember_version(init, json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}}))
    listed = bridge.headers({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert listed["MCP-Protocol-Version"] == "2025-06-18" and "Mcp-Method" not in listed
    modern = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "recall", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
    }
    headers = bridge.headers(modern)
    assert (headers["MCP-Protocol-Version"], headers["Mcp-Method"], headers["Mcp-Name"]) == (
        "2026-07-28",
        "tools/call",
        "recall",
    )


def test_bridge_answers_a_request_it_cannot_deliver_with_a_jsonrpc_error():
    bridge = Bridge("http://127.0.0.1:9", "egk_x", timeout_s=2)  # port 9 (discard): nothing listens
    answer = json.loads(bridge.forward('{"jsonrpc":"2.0","id":7,"method":"tools/list"}') or "{}")
    assert answer["id"] == 7 and answer["error"]["message"].startswith("cannot reach http://127.0.0.1:9/mcp")
    assert bridge.forward('{"jsonrpc":"2.0","method":"notifications/initialized"}') is None  # nobody waits for it
    assert json.loads(bridge.forward("not json") or "{}")["error"]["code"] == -32700
    with pytest.raises(ValueError, match="--url must be an http"):
        Bridge("ftp://x", "k")


def test_the_bridge_survives_lines_no_header_or_json_module_can_carry():
    bridge = Bridge("http://127.0.0.1:9", "egk_x", timeout_s=2)  # nothing listens: every request is answered
    assert json.loads(bridge.forward("[" * 100_000 + "]" * 100_000) or "{}")["error"]["code"] == -32700
    not_utf8 = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "\xff"}'.decode("utf-8", "surrogateescape")
    assert json.loads(bridge.forward(not_utf8) or "{}")["error"]["message"] == "parse error: the line is not UTF-8"
    modern = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    for method, name in (("tools/call", "\ud800"), ("tools/call\r\nX-Injected: 1", "recall"), ("ツール", "recall")):
        message = {"jsonrpc": "2.0", "id": 9, "method": method, "params": {"name": name, "_meta": modern}}
        headers = bridge.headers(message)
        assert all(_HEADER_SAFE_VALUE.fullmatch(v) for v in headers.values()), headers
        answer = json.loads(bridge.forward(json.dumps(message)) or "{}")  # the lone surrogate stays escaped
        assert answer["id"] == 9 and answer["error"]["message"].startswith("cannot reach"), answer


def test_engram_mcp_answers_a_line_that_is_not_utf8_and_goes_on():
    lines = b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
    out = subprocess.run(
        [sys.executable, "-m", "engram.ops.cli", "mcp", "--url", "http://127.0.0.1:9", "--key", "egk_x"],
        input=lines,
        capture_output=True,
        check=True,
        timeout=60,
    )
    first, second = (json.loads(line) for line in out.stdout.splitlines())
    assert first["error"] == {"code": -32700, "message": "parse error: the line is not UTF-8"}
    assert second["id"] == 2 and second["error"]["message"].startswith("cannot reach"), second


def test_the_handler_loads_no_route_or_service_until_a_tool_is_called():
    probe = (
        "import importlib.util, sys; spec = importlib.util.spec_from_file_location('h', 'functions/mcp/handler.py');"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec));"
        "from engram_mcp.server import _listed; _listed();"
        "print(sorted(m for m in sys.modules if m.startswith(('engram_http.routes', 'engram.recall', "
        "'engram.consolidation', 'engram.topics', 'engram.memories', 'numpy', 'anthropic'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_engram_mcp_takes_url_and_key_from_flags_or_the_environment(monkeypatch, capsys):
    from engram.core import config
    from engram.ops.cli import main

    def run(*argv: str) -> int:
        config.reload_settings()  # the environment changed: read it again
        return main(["mcp", *argv])

    monkeypatch.delenv("ENGRAM_API_URL", raising=False)
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no message to forward: the bridge ends at once
    try:
        assert run("--key", "egk_x") == 2
        assert "--url (or ENGRAM_API_URL) is required" in capsys.readouterr().err
        monkeypatch.setenv("ENGRAM_API_URL", "http://127.0.0.1:9")
        assert run() == 2
        assert "--key (or ENGRAM_API_KEY) is required" in capsys.readouterr().err
        monkeypatch.setenv("ENGRAM_API_KEY", "egk_x")
        assert run() == 0
        assert run("--url", "ftp://elsewhere") == 2  # a flag wins over the environment
        assert "--url must be an http(s) URL" in capsys.readouterr().err
    finally:
        monkeypatch.undo()
        config.reload_settings()

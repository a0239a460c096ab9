"""The MCP server: tools/list shows the tools the caller's key may use, tools/call validates the
arguments as the HTTP route would and answers with text, or with a tool error carrying the HTTP
API's error message (the envelope's code, message and details as structured content)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from engram.core.errors import EngramError
from engram.tenancy.store import Principal
from engram_http.auth import can_write, require_scope
from engram_http.errors import invalid_fields
from engram_mcp.tools import BY_NAME, InvalidArguments, Tool, visible_to

logger = logging.getLogger(__name__)

PRINCIPAL_KEY = "engram.principal"  # where the transport leaves the caller in the ASGI scope

INSTRUCTIONS = (
    "Engram is your long-term memory. At the start of a session call resume; before a task, prime with "
    "what you are about to do; recall before answering from memory. Store durable facts, decisions and "
    "lessons with store_memory (one idea per memory), and log conversations with start_conversation and "
    "append_conversation. Ids in results can be passed back to the other tools."
)


def _annotations(tool: Tool) -> types.ToolAnnotations:
    destructive = tool.name in ("forget", "update_memory")
    return types.ToolAnnotations(
        read_only_hint=tool.scope == "read",
        destructive_hint=destructive if tool.scope == "write" else None,
        open_world_hint=False,
    )


CONTRACT = Path(__file__).with_name("contract.json")


@cache
def _listed() -> dict[str, types.Tool]:
    """tools/list's answer, read once from the committed contract (see engram_mcp.tools)."""
    entries = json.loads(CONTRACT.read_text())
    return {e["name"]: types.Tool.model_validate({k: v for k, v in e.items() if k != "scope"}) for e in entries}


def describe(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema,
        annotations=_annotations(tool),
    )


def tool_error(code: str, message: str, details: Any = None) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        structured_content={"error": {"code": code, "message": message, "details": details}},
        is_error=True,
    )


def call(who: Principal, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """One tool call, as the HTTP route would serve it: scope, validation, the service, the answer."""
    tool = BY_NAME.get(name)
    if tool is None or tool not in visible_to(who.scopes):
        if tool is not None:  # the same 403 as the route; the tool is hidden from this key's list
            try:
                require_scope(who, tool.scope)
            except EngramError as exc:
                return tool_error(exc.code, exc.message, exc.details)
        return tool_error(
            "not_found", f"no tool named {name[:100]!r}", {"tools": [t.name for t in visible_to(who.scopes)]}
        )
    try:
        text = tool.run(who.tenant_id, replace(tool.parse(arguments), read_only=not can_write(who)))
    except InvalidArguments as exc:
        message, details = invalid_fields(exc.errors, whole="arguments")
        return tool_error("invalid_field", message, details)
    except EngramError as exc:
        return tool_error(exc.code, exc.message, exc.details)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def _caller(ctx: ServerRequestContext[Any, Any]) -> Principal:
    request = ctx.request
    who = request.scope.get(PRINCIPAL_KEY) if request is not None else None
    if not isinstance(who, Principal):  # the transport checks the key before any message is read
        raise RuntimeError("no caller on the request: the /mcp transport must authenticate it first")
    return who


async def _list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    listed = _listed()
    return types.ListToolsResult(tools=[listed[tool.name] for tool in visible_to(_caller(ctx).scopes)])


async def _call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    # The services are synchronous and hold the invocation's database connection: a stateless
    # invocation serves one request, so running them on the event loop's thread blocks nobody.
    who = _caller(ctx)
    try:
        return call(who, params.name, dict(params.arguments or {}))
    except Exception:  # a bug, not the caller's fault: logged whole, answered without internals
        request_id = _request_id(ctx)
        # The same message as a route's 500 (engram_http.errors): the CDK app counts it into an alarm.
        logger.exception("unhandled error", extra={"tool": params.name, "request_id": request_id})
        return tool_error(
            "internal_error", "something went wrong on our side; it has been logged", {"request_id": request_id}
        )


def _request_id(ctx: ServerRequestContext[Any, Any]) -> str | None:
    event = ctx.request.scope.get("aws.event") if ctx.request is not None else None
    return ((event or {}).get("requestContext") or {}).get("requestId")


def build_server() -> Server[Any]:
    server: Server[Any] = Server(
        "engram",
        version="1",
        instructions=INSTRUCTIONS,
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
        get_tool_input_schema=lambda name: _listed()[name].input_schema if name in _listed() else None,
    )
    return server


def tool_contract() -> list[dict[str, Any]]:
    """Every tool as generated from its route, plus the scope it needs: what contract.json holds and
    tools/list serves (`make mcp-tools` writes it; a test compares the two)."""
    return [
        {"scope": tool.scope, **describe(tool).model_dump(mode="json", by_alias=True, exclude_none=True)}
        for tool in visible_to(frozenset({"admin"}))
    ]

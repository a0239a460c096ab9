"""POST /mcp on Lambda: API Gateway's event -> Mangum (ASGI) -> the MCP SDK's streamable HTTP
transport, stateless with JSON responses -> the server's tools.

Stateless: every invocation gets a fresh session manager and transport, so nothing is kept
between invocations (the next request may land on another container). Mangum runs with
lifespan off: the SDK's own Starlette app starts its session manager in a lifespan that may run
once per process, which does not fit an invocation; the manager is entered here per request.
The caller is the authorizer's context (the same key, tenant and scopes as /v1); a request
without a valid key is answered 401 in the API's envelope before any MCP message is read.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import pydantic_core
from mangum import Mangum
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types.jsonrpc import INVALID_REQUEST, jsonrpc_message_adapter
from pydantic import ValidationError

from engram.core.errors import EngramError, Forbidden
from engram.core.snapstart import reseed_once
from engram.tenancy.store import Principal
from engram_http.auth import bearer_challenge, caller, require_scope
from engram_http.authorizer import request_base_url
from engram_mcp.server import PRINCIPAL_KEY, build_server
from engram_mcp.tools import BY_NAME

# API Gateway already fixes the host, and every request carries a key: the SDK's DNS-rebinding
# check (meant for unauthenticated servers on localhost) would only refuse the API's own host.
SECURITY = TransportSecuritySettings(enable_dns_rebinding_protection=False)
MAX_BODY_BYTES = 6 * 1024 * 1024  # a synchronous Lambda invocation carries at most 6 MB


class MethodNotAllowed(EngramError):
    status = 405
    code = "method_not_allowed"

    def __init__(self, method: str) -> None:
        super().__init__(
            f"{method[:20]} is not allowed on /mcp; use POST (stateless: no event stream, no session)",
            {"method": method[:20], "allowed": ["POST"]},
        )


async def _refuse(send: Callable[..., Any], exc: EngramError, challenge: str | None = None) -> None:
    body = json.dumps({"error": {"code": exc.code, "message": exc.message, "details": exc.details}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if challenge:  # engram_http.auth.bearer_challenge: where an OAuth client finds how to get a token
        headers.append((b"www-authenticate", challenge.encode()))
    if exc.status == 405:
        headers.append((b"allow", b"POST"))
    if exc.retry_after_s is not None:
        headers.append((b"retry-after", str(exc.retry_after_s).encode()))
    await send({"type": "http.response.start", "status": exc.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def invalid_request(body: bytes) -> str | None:
    """Why `body` is JSON but not one JSON-RPC message as MCP reads it, or None. The SDK would take a
    request whose id is an object, an array, a float or null for a notification (202, nothing
    done) and answer other invalid messages with -32602 (invalid params): both are -32600 here.
    What is not JSON at all, or too large, the SDK answers itself (-32700, 413)."""
    if len(body) > MAX_BODY_BYTES:
        return None
    try:
        message = pydantic_core.from_json(body)
    except ValueError:
        return None
    if not isinstance(message, dict):
        return "a message is one JSON object (batches are not supported)"
    if "id" in message and (isinstance(message["id"], bool) or not isinstance(message["id"], str | int)):
        return "id must be a string or an integer"
    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"][1:]) or "message"
        return f"not a JSON-RPC 2.0 request, notification or response ({where}: {exc.errors()[0]['msg']})"
    return None


def _tool_scope_denied(who: Principal, body: bytes) -> Forbidden | None:
    """A tools/call of a tool the caller's scopes do not cover, as the 403 to answer. Only for OAuth
    tokens: their clients read HTTP 403 insufficient_scope (and may ask for more); a key's caller keeps
    the tool error it always got."""
    try:
        message = pydantic_core.from_json(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    tool = BY_NAME.get(str(params.get("name"))) if isinstance(params, dict) else None
    if tool is None:
        return None
    try:
        require_scope(who, tool.scope)
    except Forbidden as exc:
        return exc
    return None


async def _read_body(receive: Callable[..., Any]) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes, receive: Callable[..., Any]) -> Callable[..., Any]:
    """`receive` for the SDK, which reads the body again: the bytes read here, then the real one."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Any:
        return pending.pop() if pending else await receive()

    return replayed


async def _refuse_message(send: Callable[..., Any], reason: str) -> None:
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": f"Invalid Request: {reason}"}}
    body = json.dumps(error).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def asgi_app(server: Server[Any]) -> Callable[..., Any]:
    async def app(scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        event = scope.get("aws.event") or {}
        authorizer = ((event.get("requestContext") or {}).get("authorizer") or {}).get("lambda")
        headers = event.get("headers") or {}
        base = request_base_url(headers, event.get("requestContext"))
        try:
            who = caller(authorizer, headers.get("authorization"), base)
        except EngramError as exc:
            await _refuse(send, exc, bearer_challenge(exc, headers, base))
            return
        scope[PRINCIPAL_KEY] = who
        if scope.get("method") != "POST":
            # Stateless: no stream for server-initiated messages (GET) and no session to end (DELETE).
            # The transport answers 405 as the protocol asks; the SDK would hold a GET open instead.
            await _refuse(send, MethodNotAllowed(str(scope.get("method"))))
            return
        body = await _read_body(receive)
        reason = invalid_request(body)
        if reason:
            await _refuse_message(send, reason)
            return
        denied = _tool_scope_denied(who, body) if who.grant_id is not None else None
        if denied is not None:
            await _refuse(send, denied, bearer_challenge(denied, headers, base))
            return
        receive = _replay(body, receive)
        manager = StreamableHTTPSessionManager(
            app=server,
            json_response=True,
            stateless=True,
            security_settings=SECURITY,
            max_request_body_size=MAX_BODY_BYTES,
        )
        async with manager.run():
            await manager.handle_request(scope, receive, send)

    return app


_loops = threading.local()


def _event_loop_for_this_thread() -> None:
    """Mangum runs the app on the thread's current event loop. Lambda calls from one thread; the
    local server calls from a pool of request threads, each of which needs its own loop."""
    if getattr(_loops, "loop", None) is None:
        _loops.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(_loops.loop)


def lambda_handler() -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point of functions/mcp."""
    from aws_lambda_powertools import Logger
    from aws_lambda_powertools.logging import correlation_paths

    logger = Logger()
    adapter = Mangum(asgi_app(build_server()), lifespan="off")

    @logger.inject_lambda_context(clear_state=True, correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        reseed_once()  # SnapStart (prod, staging): a restored environment gets its own `random`
        _event_loop_for_this_thread()
        return adapter(event, context)

    return handler

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

from mangum import Mangum
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from engram.core.errors import EngramError
from engram.core.snapstart import reseed_once
from engram_http.auth import caller
from engram_mcp.server import PRINCIPAL_KEY, build_server

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


async def _refuse(send: Callable[..., Any], exc: EngramError) -> None:
    body = json.dumps({"error": {"code": exc.code, "message": exc.message, "details": exc.details}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if exc.status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="engram"'))
    if exc.status == 405:
        headers.append((b"allow", b"POST"))
    if exc.retry_after_s is not None:
        headers.append((b"retry-after", str(exc.retry_after_s).encode()))
    await send({"type": "http.response.start", "status": exc.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def asgi_app(server: Server[Any]) -> Callable[..., Any]:
    async def app(scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        event = scope.get("aws.event") or {}
        authorizer = ((event.get("requestContext") or {}).get("authorizer") or {}).get("lambda")
        try:
            scope[PRINCIPAL_KEY] = caller(authorizer, (event.get("headers") or {}).get("authorization"))
        except EngramError as exc:
            await _refuse(send, exc)
            return
        if scope.get("method") != "POST":
            # Stateless: no stream for server-initiated messages (GET) and no session to end (DELETE).
            # The transport answers 405 as the protocol asks; the SDK would hold a GET open instead.
            await _refuse(send, MethodNotAllowed(str(scope.get("method"))))
            return
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

"""The dev server's HTTP front: waitress in front of the API Gateway stand-in.

waitress reads each request whole (Content-Length or chunked, bounded, spooled to disk past
512 KiB) in its event loop before a request thread sees it, so a slow
or broken client holds a socket, never a thread. A fixed pool of request threads serves the
requests; each keeps its database connection across requests, like a warm Lambda container.
Protocol errors waitress answers itself (bad Content-Length, bad chunking, oversized bodies) leave
in the API's error envelope, not as text/plain.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any, cast

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer, create_server
from waitress.task import ErrorTask

from engram_local import gateway

REQUEST_THREADS = 16
LISTEN_BACKLOG = 4096  # the kernel caps it at net.core.somaxconn
CONNECTION_LIMIT = 2000  # open client sockets; past it waitress stops accepting until some close
CHANNEL_TIMEOUT_S = 30  # an idle or stalled client socket is closed after this (API Gateway waits 30 s)
# Bodies a little over the quota are read and answered 413 in the envelope (a client still sending
# when the server closes sees a reset, not the answer); past this, refused from the headers alone.
READ_LIMIT = 2 * gateway.API_GATEWAY_MAX_BODY

_CODES = {400: "bad_request", 413: "too_large", 431: "headers_too_large", 500: "internal_error", 501: "not_implemented"}

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


def _request_headers(environ: dict[str, Any]) -> dict[str, str]:
    headers = {key[5:].replace("_", "-").lower(): value for key, value in environ.items() if key.startswith("HTTP_")}
    for key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if environ.get(key):
            headers[key.replace("_", "-").lower()] = environ[key]
    return headers


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def application(
    environ: dict[str, Any], start_response: StartResponse, verdicts: gateway.AuthorizerCache | None = None
) -> Iterable[bytes]:
    """WSGI: the raw request (path and query as the client sent them) through the gateway, with its
    cache of the authorizer's verdicts (None: none)."""
    length = int(environ.get("CONTENT_LENGTH") or 0)  # waitress has validated it (chunked: the decoded size)
    if length > gateway.API_GATEWAY_MAX_BODY:
        resp = gateway.too_large(length)
    else:
        body = environ["wsgi.input"].read(length) if length else b""
        raw_path = environ.get("REQUEST_URI") or environ.get("PATH_INFO") or "/"
        resp = gateway.handle(environ["REQUEST_METHOD"], raw_path, _request_headers(environ), body, verdicts)
    headers = [(k, v) for k, v in resp.headers.items() if k != "content-length"]
    headers.append(("content-length", str(len(resp.body))))
    start_response(f"{resp.status} {_reason(resp.status)}", headers)
    return [resp.body]


class EnvelopeErrorTask(ErrorTask):
    """waitress's own error answers (it never reached the application) in the API's envelope."""

    def execute(self) -> None:
        # types-waitress types Task.request as the Error; an ErrorTask is given the request parser.
        request = cast(HTTPRequestParser, self.request)
        error = request.error
        if error is None:  # waitress makes an ErrorTask only for a request that has one
            return super().execute()
        code = int(error.code)
        if code == 413:
            resp = gateway.too_large(request.content_length or None)
            body = resp.body
        else:
            body = json.dumps(
                {
                    "error": {
                        "code": _CODES.get(code, "bad_request"),
                        "message": f"{error.reason}: {error.body}",
                        "details": None,
                    }
                },
                separators=(",", ":"),
            ).encode()
        self.status = f"{code} {error.reason}"
        self.response_headers = [*self.response_headers, ("Content-Type", "application/json")]
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class EnvelopeChannel(HTTPChannel):
    error_task_class = EnvelopeErrorTask


class DevServer:
    """waitress bound at construction (a busy port fails before anything else starts).
    `authorizer_cache_s`: how long the gateway keeps an authorizer verdict per Authorization header,
    as API Gateway does (0: it asks the authorizer on every request)."""

    def __init__(self, host: str, port: int, threads: int = REQUEST_THREADS, authorizer_cache_s: float = 0) -> None:
        self.socket_map: dict[int, Any] = {}  # the event loop's sockets (waitress's map)
        verdicts = gateway.AuthorizerCache(authorizer_cache_s) if authorizer_cache_s > 0 else None
        server = create_server(
            functools.partial(application, verdicts=verdicts),
            map=self.socket_map,
            host=host,
            port=port,
            threads=threads,
            backlog=LISTEN_BACKLOG,
            connection_limit=CONNECTION_LIMIT,
            channel_timeout=CHANNEL_TIMEOUT_S,
            max_request_body_size=READ_LIMIT,
            ident="engram-local",
            expose_tracebacks=False,
        )
        if not isinstance(server, TcpWSGIServer):  # one host and port: one TCP server
            raise TypeError(f"expected one TCP server, got {type(server).__name__}")
        self.server = server
        self.server.channel_class = EnvelopeChannel
        self.port = int(self.server.getsockname()[1])
        self._stop = threading.Event()
        self._stopped = threading.Event()

    def serve_forever(self) -> None:
        try:
            while not self._stop.is_set():
                wasyncore.loop(timeout=0.5, map=self.socket_map, use_poll=True, count=1)
        finally:
            self._stopped.set()

    def stop_serving(self) -> None:
        """Ends serve_forever within its 0.5 s poll, without waiting: what a signal handler may do (it
        runs in the loop's thread, so it must neither block nor take the loop's trigger lock)."""
        self._stop.set()

    def shutdown(self) -> None:
        """From another thread: stop the loop, then the request threads."""
        self.stop_serving()
        self.server.pull_trigger()
        self._stopped.wait(10)
        self.close()

    def close(self) -> None:
        self.server.task_dispatcher.shutdown(timeout=5)
        wasyncore.close_all(self.socket_map)

    server_close = close  # the name socketserver gives it, which callers of the earlier server use

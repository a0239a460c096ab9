"""`engram mcp`: MCP over stdio for local clients (desktop and IDE agents), forwarded to the
remote /mcp endpoint.

The remote server is stateless and answers every POST with JSON, so the bridge needs no MCP
library: each newline-delimited JSON-RPC message read from stdin is POSTed with the API key, and
the JSON answer (none for a notification) is written to stdout as one line. The headers the
streamable HTTP transport expects are derived from the message: the negotiated protocol version
(from the initialize answer, or the request's own `_meta` in the per-request protocol era),
`Mcp-Method` and `Mcp-Name`. An HTTP or network failure on a request is answered with a JSON-RPC
error carrying the API's message, so the client never waits for an answer that will not come.
Standard library only: it starts in milliseconds and imports nothing of the server.
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO
from urllib.parse import urlsplit

PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_HEADER_SAFE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
_SENTINEL = re.compile(r"=\?base64\?.*\?=")
UPSTREAM_ERROR = -32000  # JSON-RPC "server error" range: the remote endpoint could not answer
TIMEOUT_S = 60.0


def endpoint(url: str) -> str:
    """The /mcp URL for an API base URL (given with or without /mcp)."""
    url = url.rstrip("/")
    return url if url.endswith("/mcp") else url + "/mcp"


def _utf8(value: str) -> bool:
    try:
        value.encode()
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def header_value(value: str) -> str:
    """As the MCP transport encodes a name into a header: verbatim when safe, else base64-wrapped."""
    if _HEADER_SAFE.fullmatch(value) and not _SENTINEL.fullmatch(value):
        return value
    return f"=?base64?{base64.b64encode(value.encode()).decode()}?="


class Bridge:
    def __init__(self, url: str, key: str, timeout_s: float = TIMEOUT_S) -> None:
        self.url = urlsplit(endpoint(url))
        if self.url.scheme not in ("http", "https") or not self.url.hostname:
            raise ValueError(f"--url must be an http(s) URL of the Engram API, not {url!r}")
        self.key = key
        self.timeout_s = timeout_s
        self.protocol_version: str | None = None  # negotiated by initialize (handshake era)
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self.url.scheme == "https" else http.client.HTTPConnection
            self._conn = cls(self.url.hostname or "", self.url.port, timeout=self.timeout_s)
        return self._conn

    def headers(self, message: Any) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {self.key}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if not isinstance(message, dict):
            return headers
        params = _mapping(message.get("params"))
        meta = _mapping(params.get("_meta"))
        version = meta.get(PROTOCOL_VERSION_META_KEY)
        # A value no header can carry (a lone surrogate, a line break) is left out, never a crash of
        # the bridge: the server then answers that request with the JSON-RPC error it deserves.
        if isinstance(version, str) and _HEADER_SAFE.fullmatch(version):  # per-request era
            headers["MCP-Protocol-Version"] = version
            method = message.get("method")
            if isinstance(method, str) and _HEADER_SAFE.fullmatch(method):
                headers["Mcp-Method"] = method
                name = params.get(NAME_BEARING.get(method, ""))
                if isinstance(name, str) and _utf8(name):
                    headers["Mcp-Name"] = header_value(name)
        elif self.protocol_version and message.get("method") != "initialize":
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def _post(self, body: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
        path = self.url.path + (f"?{self.url.query}" if self.url.query else "")
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile: one fresh try
            conn = self._connection()
            try:
                conn.request("POST", path, body=body, headers=headers)
                response = conn.getresponse()
                return response.status, response.getheader("content-type") or "", response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                self._conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def forward(self, line: str) -> str | None:
        """One message from the client -> the answer line for it (None: nothing to answer)."""
        if not _utf8(line):  # bytes that were not UTF-8 on stdin, kept as surrogates (see run)
            return _error(None, -32700, "parse error: the line is not UTF-8")
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # nested deeper than the json module reads
            return _error(None, -32700, "parse error: the line is not JSON")
        request_id = message.get("id") if isinstance(message, dict) else None
        is_request = isinstance(message, dict) and "method" in message and request_id is not None
        try:
            status, content_type, payload = self._post(line.encode(), self.headers(message))
        except OSError as exc:
            self._conn = None
            unreachable = f"cannot reach {endpoint(self.url.geturl())}: {exc}"
            return _error(request_id, UPSTREAM_ERROR, unreachable) if is_request else None
        if status == 202 or not payload:
            return None
        answer = _last_sse_data(payload.decode()) if "text/event-stream" in content_type else payload.decode()
        if status >= 400 and is_request and not _is_jsonrpc(answer):
            return _error(request_id, UPSTREAM_ERROR, f"HTTP {status}: {_api_message(answer)}")
        self._remember_version(message, answer)
        return answer.strip() or None

    def _remember_version(self, message: Any, answer: str) -> None:
        if not (isinstance(message, dict) and message.get("method") == "initialize"):
            return
        try:
            version = json.loads(answer).get("result", {}).get("protocolVersion")
        except (ValueError, AttributeError):
            return
        if isinstance(version, str):
            self.protocol_version = version

    def serve(self, stdin: TextIO, stdout: TextIO) -> None:
        for line in _lines(stdin):
            answer = self.forward(line)
            if answer is not None:
                stdout.write(answer + "\n")
                stdout.flush()


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _lines(stream: TextIO) -> Iterator[str]:
    for line in stream:
        if line.strip():
            yield line.strip()


def _error(request_id: Any, code: int, message: str) -> str:
    error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(error, separators=(",", ":"))


def _is_jsonrpc(text: str) -> bool:
    try:
        parsed = json.loads(text)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("jsonrpc") == "2.0"


def _api_message(text: str) -> str:
    """The API's error envelope message (401: missing or invalid API key), else the body's start."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return text[:200]
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(parsed.get("message"), str):  # API Gateway's own answers: {"message": "..."}
            return str(parsed["message"])
    return text[:200]


def _last_sse_data(text: str) -> str:
    """A server that answers with an event stream despite JSON being asked for: its last message."""
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return data[-1] if data else ""


def run(url: str | None, key: str | None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    if not url or not key:
        missing = "--url (or ENGRAM_API_URL)" if not url else "--key (or ENGRAM_API_KEY)"
        print(f"engram mcp: {missing} is required", file=sys.stderr)
        return 2
    try:
        bridge = Bridge(url, key)
    except ValueError as exc:
        print(f"engram mcp: {exc}", file=sys.stderr)
        return 2
    if stdin is None:  # bytes that are not UTF-8 must not end the session: they reach forward() as surrogates
        raw = getattr(sys.stdin, "buffer", None)
        stdin = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape") if raw else sys.stdin
    bridge.serve(stdin, stdout or sys.stdout)
    return 0

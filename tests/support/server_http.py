"""The local server over real HTTP, as a client outside the process reaches it: `request` sends a
body and reads status, lower-case headers and raw bytes (http.client); `call` reads the JSON answer."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

SOCKET_TIMEOUT_S = 20  # a server that hangs fails the test instead of the suite


def address(server: str) -> tuple[str, int]:
    parts = urlsplit(server)
    return parts.hostname or "127.0.0.1", int(parts.port or 80)


def request(
    server: str, method: str, path: str, body: Any = None, key: str | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(*address(server), timeout=SOCKET_TIMEOUT_S)
    try:
        data = body if isinstance(body, bytes | type(None)) else json.dumps(body).encode()
        all_headers = {"content-type": "application/json", **(headers or {})}
        if key:
            all_headers["authorization"] = f"Bearer {key}"
        conn.request(method, path, body=data, headers=all_headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def call(base: str, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        base + path,
        data=data,
        method=method,
        headers={"content-type": "application/json", **({"authorization": f"Bearer {key}"} if key else {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")

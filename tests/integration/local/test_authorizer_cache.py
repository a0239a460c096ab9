"""The gateway stand-in's cache of authorizer verdicts, as API Gateway keeps them for `make dev`: per
Authorization header, for its seconds; never for the challenge routes (their authorizer is uncached)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from engram_local import gateway
from engram_local.gateway import AuthorizerCache, handle


def send(method: str, path: str, key: str, cache: AuthorizerCache | None, body: Any = None) -> int:
    headers = {"authorization": f"Bearer {key}", "content-type": "application/json", "accept": "application/json"}
    return handle(method, path, headers, b"" if body is None else json.dumps(body).encode(), cache).status


def a_revoked_key(api: Any) -> tuple[str, str]:
    issued = api.post("/v1/keys", {"scopes": ["read"], "name": "cached"}).body
    return issued["api_key"], issued["key_id"]


def test_a_kept_verdict_outlives_its_key_until_it_expires(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    key, key_id = a_revoked_key(api)
    cache = AuthorizerCache(seconds=300)
    assert send("GET", "/v1/memories", key, cache) == 200
    assert api.request("DELETE", f"/v1/keys/{key_id}").status == 200
    # API Gateway's behaviour: the verdict kept for this header still lets the request through...
    assert send("GET", "/v1/memories", key, cache) == 200
    # ...while without the cache (tests, and every request once the entry expires) the key stops at once.
    assert send("GET", "/v1/memories", key, None) == 401
    later = time.monotonic() + 301  # the entry's 300 s are over (a clock, not a wait: loaded machines vary)
    monkeypatch.setattr(gateway.time, "monotonic", lambda: later)
    assert send("GET", "/v1/memories", key, cache) == 401


def test_the_challenge_routes_ask_the_authorizer_every_time(api: Any) -> None:
    key, key_id = a_revoked_key(api)
    cache = AuthorizerCache(seconds=300)
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert send("GET", "/v1/memories", key, cache) == 200
    assert send("POST", "/mcp", key, cache, ping) == 200
    assert api.request("DELETE", f"/v1/keys/{key_id}").status == 200
    assert send("GET", "/v1/memories", key, cache) == 200  # kept
    assert send("POST", "/mcp", key, cache, ping) == 401  # asked again: the key is revoked


def test_the_cache_keeps_at_most_its_entries_the_oldest_leaving_first() -> None:
    cache = AuthorizerCache(seconds=300, entries=2)
    for header in ("Bearer a", "Bearer b", "Bearer c"):
        cache.put(header, {"isAuthorized": True, "context": {"key": header}})
    assert cache.get("Bearer a") is None
    assert cache.get("Bearer b") == {"isAuthorized": True, "context": {"key": "Bearer b"}}
    assert cache.get("Bearer c") is not None

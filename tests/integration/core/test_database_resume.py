"""The first authenticated request after the database paused (Aurora Serverless resumes in ~15 s,
longer than API Gateway gives an authorizer): the local stack's PostgreSQL is stopped, the request
goes through the real authorizer and route, and the answer is a 2xx once the database is back, or a
503 with Retry-After when it is not back in time, never a 500. Nothing acknowledged is lost, and a
key the route checks itself is refused the moment it is revoked."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from engram_local import gateway
from engram_local.lambda_runtime import invoke


@pytest.fixture
def database(stack: Any) -> Iterator[Any]:
    """The embedded PostgreSQL, started again after the test whatever happened."""
    if stack.postgres is None:
        pytest.skip("an external database (ENGRAM_DATABASE_URL) is not ours to stop")
    yield stack.postgres
    if not stack.postgres.running():
        stack.postgres.start()


def _store(api, namespace: str, content: str, key: str | None = None):
    headers = {"idempotency-key": key} if key else {}
    return _request(api.key, "POST", "/v1/memories", {"content": content, "namespace": namespace}, headers)


def _request(key: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None):
    sent = {"content-type": "application/json", "authorization": f"Bearer {key}", **(headers or {})}
    reply = gateway.handle(method, path, sent, b"" if body is None else json.dumps(body).encode())
    return reply.status, (json.loads(reply.body) if reply.body else None), reply.headers


def _contents(api, namespace: str) -> list[str]:
    status, body, _ = _request(api.key, "GET", f"/v1/memories?namespace={namespace}&limit=100")
    assert status == 200, body
    return sorted(m["content"] for m in body["items"])


def test_a_request_while_the_database_is_down_is_answered_once_it_is_back(api, database, settings_env) -> None:
    ns = f"resume-{uuid.uuid4().hex[:8]}"
    assert _store(api, ns, "acknowledged before the pause")[0] == 201
    settings_env(ENGRAM_DB_CONNECT_WAIT_S="20")  # the route's wait; Aurora resumes in ~15 s
    database.stop()
    restarter = threading.Timer(3.0, database.start)
    restarter.start()
    try:
        started = time.monotonic()
        status, body, _ = _store(api, ns, "sent while the database was down")
        waited = time.monotonic() - started
    finally:
        restarter.join()
    assert status == 201, body
    assert waited > 2.5, waited  # it really waited for the database, it did not find it up
    assert _contents(api, ns) == ["acknowledged before the pause", "sent while the database was down"]


def test_a_database_not_back_in_time_is_a_503_with_retry_after_then_a_2xx(api, database, settings_env) -> None:
    ns = f"resume-{uuid.uuid4().hex[:8]}"
    assert _store(api, ns, "acknowledged before the pause")[0] == 201
    settings_env(ENGRAM_DB_CONNECT_WAIT_S="1")
    database.stop()
    try:
        status, body, headers = _store(api, ns, "sent while the database was down", key="resume-1")
        assert status == 503, body
        assert body["error"]["code"] == "dependency_unavailable"
        assert body["error"]["details"] == {"dependency": "database"}
        assert int(headers["retry-after"]) > 0
    finally:
        database.start()
    # The client retries as Retry-After says, with the same Idempotency-Key: written once.
    status, body, _ = _store(api, ns, "sent while the database was down", key="resume-1")
    assert status == 201, body
    assert _store(api, ns, "sent while the database was down", key="resume-1")[0] == 201
    assert _contents(api, ns) == ["acknowledged before the pause", "sent while the database was down"]


def test_the_authorizer_leaves_an_unchecked_key_to_the_route_at_once(api, database) -> None:
    database.stop()
    try:
        started = time.monotonic()
        verdict = invoke("authorizer", _authorizer_event(api.key))
        seconds = time.monotonic() - started
    finally:
        database.start()
    assert verdict == {
        "isAuthorized": True,
        "context": {
            "tenant_id": "",
            "key_id": "",
            "scopes": "",
            "grant_id": "",
            "namespaces": "",
            "key_check": "route",
        },
    }
    # API Gateway gives an authorizer 10 s; Aurora takes ~15 s to resume: 5 s leaves room for a loaded machine.
    assert seconds < 5.0, seconds


@pytest.mark.parametrize("function, path", [("memories", "/v1/memories"), ("mcp", "/mcp")])
def test_a_key_the_route_checks_is_its_own_and_refused_once_revoked(
    make_tenant, function: str, path: str, stack: Any
) -> None:
    """What API Gateway would forward after the authorizer could not check the key (and, for five
    minutes, from its cache): the route looks the key up itself, so a revoked key is refused at once."""
    owner = make_tenant("resume-owner", ["read", "write"])
    good = _route_checked(function, path, owner.key)
    assert good["statusCode"] == 200, good
    assert _route_checked(function, path, "egk_00000000_not-a-key")["statusCode"] == 401
    assert _route_checked(function, path, None)["statusCode"] == 401
    _revoke(stack, owner.key)
    assert _route_checked(function, path, owner.key)["statusCode"] == 401


def _revoke(stack: Any, key: str) -> None:
    from engram.core.db import owner_connection
    from engram.tenancy.store import hash_key, revoke_key

    with owner_connection(stack.dsn) as conn:
        row = conn.execute("SELECT id FROM api_keys WHERE key_hash = %s", (hash_key(key),)).fetchone()
        assert row is not None
        revoke_key(conn, row["id"])


def _route_checked(function: str, path: str, key: str | None) -> dict[str, Any]:
    method = "POST" if function == "mcp" else "GET"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode() if function == "mcp" else b""
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if key is not None:
        headers["authorization"] = f"Bearer {key}"
    found = gateway.match(method, path)
    assert found is not None
    event = gateway.build_event(method, path, headers, body, *found)
    event["requestContext"]["authorizer"] = {
        "lambda": {"tenant_id": "", "key_id": "", "scopes": "", "key_check": "route"}
    }
    return invoke(function, event)


def _authorizer_event(key: str) -> dict[str, Any]:
    return {
        "version": "2.0",
        "type": "REQUEST",
        "routeKey": "POST /v1/memories",
        "rawPath": "/v1/memories",
        "rawQueryString": "",
        "routeArn": "arn:aws:execute-api:us-east-1:000000000000:api/$default/POST/v1/memories",
        "identitySource": [f"Bearer {key}"],
        "headers": {"authorization": f"Bearer {key}"},
        "requestContext": {"http": {"method": "POST", "path": "/v1/memories"}},
    }

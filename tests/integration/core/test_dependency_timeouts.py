"""GET /v1/health and the authorizer when the database or its secret cannot be reached: health
answers 503 in the error envelope within ~2 s, the authorizer never fails (its failure would be API
Gateway's bare 500), and a route answers 503 with Retry-After. The secret is read from the local
stack's moto server; the database is the embedded PostgreSQL, stopped, or a port that never answers."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from engram_local.lambda_runtime import invoke

# A database probe is one 2 s attempt and a secret read one 1 s attempt; the alternatives these tests
# rule out are the 25 s wait (or libpq's default of none) and botocore's 60 s x 5. 5 s tells them
# apart with room for a machine running other jobs.
PROBE_BOUND_S = 5.0


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never says a word: a paused Aurora cluster holding a
    connection while it resumes, or an endpoint behind a security group that drops the reply."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)  # never accepted: the kernel completes the handshakes, nobody answers
        yield int(listener.getsockname()[1])


@pytest.fixture
def secret_env(stack: Any, settings_env, monkeypatch: pytest.MonkeyPatch):
    """Settings that read the database from a Secrets Manager secret instead of a DSN."""

    def use(secret_arn: str, secrets_endpoint: str | None = None, **more: str) -> None:
        monkeypatch.delenv("ENGRAM_DATABASE_URL")
        endpoint = secrets_endpoint or f"http://127.0.0.1:{stack.aws.port}"
        settings_env(ENGRAM_DB_SECRET_ARN=secret_arn, AWS_ENDPOINT_URL_SECRETS_MANAGER=endpoint, **more)

    return use


def _health() -> tuple[int, dict[str, Any], dict[str, Any], float]:
    from engram_local import gateway

    started = time.monotonic()
    reply = gateway.handle("GET", "/v1/health", {}, b"")
    return reply.status, json.loads(reply.body), reply.headers, time.monotonic() - started


def _authorizer_context(key: str) -> dict[str, str]:
    event = {
        "version": "2.0",
        "type": "REQUEST",
        "routeKey": "GET /v1/stats",
        "rawPath": "/v1/stats",
        "rawQueryString": "",
        "routeArn": "arn:aws:execute-api:us-east-1:000000000000:api/$default/GET/v1/stats",
        "identitySource": [f"Bearer {key}"],
        "headers": {"authorization": f"Bearer {key}"},
        "requestContext": {"http": {"method": "GET", "path": "/v1/stats"}},
    }
    verdict = invoke("authorizer", event)
    assert verdict["isAuthorized"] is True
    return verdict["context"]


def _assert_unavailable(status: int, body: dict[str, Any], headers: dict[str, Any], dependency: str) -> None:
    assert status == 503, body
    assert body["error"]["code"] == "dependency_unavailable"
    assert body["error"]["details"]["dependency"] == dependency
    assert int(headers["retry-after"]) > 0


def test_health_is_200_when_the_database_answers(stack) -> None:
    status, body, _, seconds = _health()
    assert (status, body) == (200, {"status": "ok", "database": "ok"})
    assert seconds < PROBE_BOUND_S


def test_liveness_answers_without_the_database(stack, settings_env, silent_port) -> None:
    from engram.core.db import reset_connections
    from engram_local import gateway

    settings_env(ENGRAM_DATABASE_URL=f"postgresql://nobody@127.0.0.1:{silent_port}/engram")
    reset_connections()  # no warm connection to lean on
    started = time.monotonic()
    reply = gateway.handle("GET", "/v1/health/live", {}, b"")
    assert (reply.status, json.loads(reply.body)) == (200, {"status": "ok"})
    assert time.monotonic() - started < 1.5  # no connection attempt (one would wait the 2 s probe)
    assert _health()[0] == 503  # while the database check cannot reach it


def test_health_is_a_quick_503_when_the_database_never_answers(stack, settings_env, silent_port, tenant) -> None:
    settings_env(ENGRAM_DATABASE_URL=f"postgresql://nobody@127.0.0.1:{silent_port}/engram")
    status, body, headers, seconds = _health()
    _assert_unavailable(status, body, headers, "database")
    # One attempt of ENGRAM_DB_PROBE_TIMEOUT_S (2 s), not the 25 s wait; the bound leaves room for a loaded machine.
    assert 1.5 < seconds < PROBE_BOUND_S, seconds
    # The authorizer gives up as quickly and leaves the key to the route, instead of failing.
    started = time.monotonic()
    assert _authorizer_context(tenant.key)["key_check"] == "route"
    assert time.monotonic() - started < PROBE_BOUND_S


def test_health_is_a_503_when_the_embedded_database_is_stopped(stack) -> None:
    if stack.postgres is None:
        pytest.skip("an external database (ENGRAM_DATABASE_URL) is not ours to stop")
    assert _health()[0] == 200  # this thread holds a connection, which the stop breaks
    stack.postgres.stop()
    try:
        status, body, headers, seconds = _health()
        _assert_unavailable(status, body, headers, "database")
        assert seconds < PROBE_BOUND_S
    finally:
        stack.postgres.start()
    assert _health()[0] == 200


def test_a_secret_that_cannot_be_read_is_a_quick_503_and_never_a_500(stack, secret_env, tenant, api_for) -> None:
    missing = "arn:aws:secretsmanager:us-east-1:000000000000:secret:engram-nothing-AbCdEf"
    secret_env(missing, ENGRAM_DB_CONNECT_WAIT_S="0")
    status, body, headers, seconds = _health()
    _assert_unavailable(status, body, headers, "database_secret")
    assert seconds < PROBE_BOUND_S
    assert _authorizer_context(tenant.key)["key_check"] == "route"
    reply = api_for(tenant.key).get("/v1/stats")
    _assert_unavailable(reply.status, reply.body, reply.headers, "database_secret")


def test_an_unreachable_secrets_endpoint_is_a_quick_503(stack, secret_env, silent_port, tenant) -> None:
    arn = "arn:aws:secretsmanager:us-east-1:000000000000:secret:engram-db-AbCdEf"
    secret_env(arn, secrets_endpoint=f"http://127.0.0.1:{silent_port}", ENGRAM_DB_CONNECT_WAIT_S="0")
    status, body, headers, seconds = _health()
    _assert_unavailable(status, body, headers, "database_secret")
    # One attempt of ENGRAM_DB_SECRET_TIMEOUT_S (1 s), not botocore's 60 s x 5; room for a loaded machine.
    assert seconds < PROBE_BOUND_S, seconds
    started = time.monotonic()
    assert _authorizer_context(tenant.key)["key_check"] == "route"
    assert time.monotonic() - started < PROBE_BOUND_S


def test_a_secret_naming_a_host_that_never_answers_is_a_503_naming_the_database(stack, secret_env, silent_port) -> None:
    import boto3

    client = boto3.client("secretsmanager", endpoint_url=f"http://127.0.0.1:{stack.aws.port}")
    secret = {"host": "127.0.0.1", "port": silent_port, "username": "engram", "password": "x", "dbname": "engram"}
    arn = client.create_secret(Name=f"engram-db-{silent_port}", SecretString=json.dumps(secret))["ARN"]
    secret_env(arn)
    status, body, headers, seconds = _health()
    _assert_unavailable(status, body, headers, "database")
    assert seconds < PROBE_BOUND_S, seconds

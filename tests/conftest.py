"""Shared fixtures: one real local stack (embedded PostgreSQL 16 + pgvector, moto SQS) per run.

Set ENGRAM_DATABASE_URL to run against another Postgres 16 + pgvector (a container, say) instead.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def stack() -> Iterator[Any]:
    from engram_local.stack import LocalStack

    tmp = Path(tempfile.mkdtemp(prefix="engram-test-"))
    s = LocalStack(data_dir=tmp / "pgdata", start_poller=False, durable=False).start()  # speed over crash safety
    yield s
    s.stop()
    shutil.rmtree(tmp, ignore_errors=True)


@dataclass
class Tenant:
    id: str
    key: str


@pytest.fixture
def make_tenant(stack: Any):
    from engram.ops.operations import create_tenant_with_key

    def make(name: str = "t", scopes: list[str] | None = None) -> Tenant:
        made = create_tenant_with_key(name, scopes or ["read", "write", "admin"], dsn=stack.dsn)
        return Tenant(made["tenant_id"], made["api_key"])

    return make


@pytest.fixture
def tenant(make_tenant) -> Tenant:
    return make_tenant("tenant-a")


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]


class Api:
    """Requests through the local API Gateway stand-in: authorizer and route Lambdas run for real."""

    def __init__(self, key: str | None) -> None:
        self.key = key

    def request(
        self, method: str, path: str, body: Any = None, key: str | None = None, raw: bytes | None = None
    ) -> Reply:
        from engram_local import gateway

        headers = {"content-type": "application/json"}
        auth = key if key is not None else self.key
        if auth:
            headers["authorization"] = f"Bearer {auth}"
        payload = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
        resp = gateway.handle(method, path, headers, payload)
        try:
            parsed = json.loads(resp.body) if resp.body else None
        except ValueError:
            parsed = resp.body.decode()
        return Reply(resp.status, parsed, resp.headers)

    def get(self, path: str, **kw: Any) -> Reply:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("POST", path, body, **kw)

    def patch(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("PATCH", path, body, **kw)

    def put(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("PUT", path, body, **kw)

    def delete(self, path: str, **kw: Any) -> Reply:
        return self.request("DELETE", path, **kw)


@pytest.fixture
def api(tenant: Tenant) -> Api:
    return Api(tenant.key)


@pytest.fixture
def api_for():
    return Api


@pytest.fixture
def drain(stack: Any):
    """Run the embed worker over everything queued, as the event source mapping would."""
    return stack.embed_poller.drain


@pytest.fixture
def drain_uploads(stack: Any):
    """Deliver pending S3 ObjectCreated events to document_ingest, as the event source mapping would."""
    return stack.upload_poller.drain


@pytest.fixture
def drain_consolidation(stack: Any):
    """Run the consolidation worker over every queued run (and its continuations), as the event
    source mapping would."""
    return stack.consolidation_poller.drain


# The folders under tests/, each a registered marker.
LEVELS = ("unit", "integration", "infra", "e2e", "fuzz", "browser")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test with its folder (tests/<level>/...), so `pytest -m unit` runs one level."""
    root = Path(__file__).parent
    for item in items:
        level = item.path.relative_to(root).parts[0] if item.path.is_relative_to(root) else ""
        if level in LEVELS:
            item.add_marker(getattr(pytest.mark, level))

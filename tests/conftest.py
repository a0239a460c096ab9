"""Shared fixtures: one real local stack (embedded PostgreSQL 16 + pgvector, moto SQS) per run.

Set ENGRAM_DATABASE_URL to run against another Postgres 16 + pgvector (a container, say) instead.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.gateway_client import Api, Tenant
from tests.support.messages_api import ScriptedModel


@pytest.fixture(scope="session")
def stack() -> Iterator[Any]:
    from engram_local.stack import LocalStack

    tmp = Path(tempfile.mkdtemp(prefix="engram-test-"))
    s = LocalStack(data_dir=tmp / "pgdata", start_poller=False, durable=False).start()  # speed over crash safety
    yield s
    s.stop()
    shutil.rmtree(tmp, ignore_errors=True)


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


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, stack: Any) -> Iterator[ScriptedModel]:
    """The extraction model, scripted at the HTTP boundary, with the LLM on for one test (integration,
    browser and e2e tests use it)."""
    from engram_local.stack import LocalStack

    # Jobs an earlier test queued and never ran would take this test's scripted answers: dropped.
    sqs = stack.aws.sqs()
    while found := sqs.receive_message(QueueUrl=stack.extract_queue_url, MaxNumberOfMessages=10).get("Messages"):
        for m in found:
            sqs.delete_message(QueueUrl=stack.extract_queue_url, ReceiptHandle=m["ReceiptHandle"])
    scripted = ScriptedModel()
    for name, value in {
        "ANTHROPIC_API_KEY": "sk-test",
        "ENGRAM_ANTHROPIC_BASE_URL": scripted.stand_in.url,
        "ENGRAM_LLM_BACKOFF_S": "0.01",
        "ENGRAM_LLM_MAX_RETRIES": "1",
        "ENGRAM_LLM_LEVEL": "auto",
        "ENGRAM_EXTRACTION_MIN_TURNS": "4",
    }.items():
        monkeypatch.setenv(name, value)
    LocalStack.refresh_settings()
    yield scripted
    scripted.stand_in.close()
    monkeypatch.undo()
    LocalStack.refresh_settings()


# The folders under tests/, each a registered marker.
LEVELS = ("unit", "integration", "infra", "e2e", "fuzz", "browser")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test with its folder (tests/<level>/...), so `pytest -m unit` runs one level."""
    root = Path(__file__).parent
    for item in items:
        level = item.path.relative_to(root).parts[0] if item.path.is_relative_to(root) else ""
        if level in LEVELS:
            item.add_marker(getattr(pytest.mark, level))

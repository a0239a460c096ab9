"""The SQS embedding pipeline: batches, idempotent redelivery, poison messages to the DLQ, backfill."""

from __future__ import annotations

import json
import time

import psycopg
import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from engram_local.aws import LocalAws, sqs_record
from engram_local.lambda_runtime import invoke, load_function


def _pending(dsn: str, tenant_id: str) -> int:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT count(*) FROM chunks WHERE tenant_id = %s AND embedding IS NULL", (tenant_id,)
        ).fetchone()[0]


def test_batch_ingest_is_embedded_by_the_worker(api, tenant, stack, drain):
    items = [{"content": f"fact number {i} about the fleet", "namespace": "fleet"} for i in range(40)]
    assert api.post("/v1/memories/batch", {"items": items}).body["created"] == 40
    assert _pending(stack.dsn, tenant.id) == 40
    drain()
    assert _pending(stack.dsn, tenant.id) == 0
    with psycopg.connect(stack.dsn) as conn:
        dims = conn.execute(
            "SELECT DISTINCT embedding_dim, model_id FROM chunks WHERE tenant_id = %s", (tenant.id,)
        ).fetchall()
    assert dims == [(384, "all-minilm-l6-v2-int8")]


def test_redelivered_job_writes_nothing_twice(api, tenant, stack, drain):
    mid = api.post("/v1/memories", {"content": "redelivery check", "namespace": "redo"}).body["memory"]["id"]
    drain()
    with psycopg.connect(stack.dsn) as conn:
        chunk_id, first_at = conn.execute("SELECT id, embedded_at FROM chunks WHERE memory_id = %s", (mid,)).fetchone()
    body = json.dumps({"tenant_id": tenant.id, "chunk_ids": [str(chunk_id)]})
    event = {"Records": [sqs_record("m1", body)]}
    assert invoke("embed_worker", event) == {"batchItemFailures": []}
    with psycopg.connect(stack.dsn) as conn:
        again = conn.execute("SELECT embedded_at FROM chunks WHERE id = %s", (chunk_id,)).fetchone()[0]
    assert again == first_at


def test_poison_message_goes_to_dlq_without_blocking_the_rest(api, tenant, stack, drain):
    sqs = LocalAws.sqs()
    sqs.send_message(QueueUrl=stack.embed_queue_url, MessageBody="{not json")
    api.post("/v1/memories", {"content": "healthy message after poison", "namespace": "poison"})

    deadline = time.monotonic() + 30
    moved = []
    while time.monotonic() < deadline and not moved:
        drain()
        moved = sqs.receive_message(QueueUrl=stack.embed_dlq_url, MaxNumberOfMessages=10).get("Messages", [])
        time.sleep(0.5)
    assert [m["Body"] for m in moved] == ["{not json"]
    assert _pending(stack.dsn, tenant.id) == 0


def test_backfill_reenqueues_chunks_left_pending(api, tenant, stack, drain, monkeypatch):
    from engram.core import config

    drain()
    monkeypatch.setenv("ENGRAM_EMBED_QUEUE_URL", "http://127.0.0.1:9/nowhere")  # send fails after commit
    config.reload_settings()
    r = api.post("/v1/memories", {"content": "written while the queue was down", "namespace": "bf"})
    assert r.status == 201
    monkeypatch.setenv("ENGRAM_EMBED_QUEUE_URL", stack.embed_queue_url)
    config.reload_settings()
    assert _pending(stack.dsn, tenant.id) == 1
    from engram.ops.cli import main

    assert main(["backfill", "--tenant", tenant.id]) == 0
    drain()
    assert _pending(stack.dsn, tenant.id) == 0


def _sqs_event(bodies: list[str]) -> dict:
    return {"Records": [sqs_record(f"m{i}", body) for i, body in enumerate(bodies)]}


def _chunk_ids(api, stack, texts: list[str], namespace: str) -> list[str]:
    ids = []
    for text in texts:
        mid = api.post("/v1/memories", {"content": text, "namespace": namespace}).body["memory"]["id"]
        with psycopg.connect(stack.dsn) as conn:
            ids.append(str(conn.execute("SELECT id FROM chunks WHERE memory_id = %s", (mid,)).fetchone()[0]))
    return ids


def test_a_batch_is_embedded_together_and_only_the_bad_record_fails(api, tenant, stack, drain):
    drain()
    ids = _chunk_ids(api, stack, ["batch member one", "batch member two"], "together")
    event = _sqs_event(
        [
            json.dumps({"tenant_id": tenant.id, "chunk_ids": [ids[0]]}),
            "{broken",
            json.dumps({"tenant_id": tenant.id, "chunk_ids": [ids[1]]}),
        ]
    )
    assert invoke("embed_worker", event) == {"batchItemFailures": [{"itemIdentifier": "m1"}]}
    assert _pending(stack.dsn, tenant.id) == 0


def test_when_the_embedder_is_down_every_record_is_returned_for_retry(api, tenant, stack, drain, monkeypatch):
    drain()
    ids = _chunk_ids(api, stack, ["retry me later"], "down")

    class Down:
        model_id, dimension = "all-minilm-l6-v2-int8", 384

        def embed(self, texts):
            raise ConnectionError("model endpoint unreachable")

    from engram.adapters.embeddings import factory

    monkeypatch.setattr(factory, "embedder_from_env", lambda: Down())
    worker = load_function("embed_worker")
    monkeypatch.setattr(worker, "embedder_from_env", lambda: Down())
    event = _sqs_event([json.dumps({"tenant_id": tenant.id, "chunk_ids": ids})])
    # Every record failed: Powertools fails the invocation, so SQS makes them all visible again.
    with pytest.raises(BatchProcessingError):
        invoke("embed_worker", event)
    assert _pending(stack.dsn, tenant.id) == 1

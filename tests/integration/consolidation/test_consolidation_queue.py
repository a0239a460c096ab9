"""The consolidate-jobs queue helper: one message per run, sent in batches, failures reported."""

from __future__ import annotations

import json
import uuid

from engram.adapters import queue as jobs
from engram_local.aws import LocalAws


def _receive_all(url: str) -> list[dict]:
    sqs = LocalAws.sqs()
    bodies: list[dict] = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=30).get("Messages", [])
        if not got:
            return bodies
        bodies += [json.loads(m["Body"]) for m in got]
        sqs.delete_message_batch(
            QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)]
        )


def test_each_run_becomes_one_message_naming_tenant_and_run(stack):
    _receive_all(stack.consolidate_queue_url)
    tenant = uuid.uuid4()
    runs = [uuid.uuid4() for _ in range(23)]  # three SQS batches
    assert jobs.enqueue_consolidations([(tenant, r) for r in runs]) == []
    assert jobs.enqueue_consolidation(tenant, runs[0]) is True
    got = _receive_all(stack.consolidate_queue_url)
    assert sorted(b["run_id"] for b in got) == sorted([str(r) for r in runs] + [str(runs[0])])
    assert {b["tenant_id"] for b in got} == {str(tenant)}


def test_unreachable_queue_reports_every_run_unsent(stack, monkeypatch):
    from engram.core import config

    monkeypatch.setenv("ENGRAM_CONSOLIDATE_QUEUE_URL", "http://127.0.0.1:9/nowhere")
    config.reload_settings()
    try:
        runs = [str(uuid.uuid4()) for _ in range(3)]
        assert jobs.enqueue_consolidations([("t", r) for r in runs]) == runs
        assert jobs.enqueue_consolidation("t", runs[0]) is False
    finally:
        monkeypatch.undo()
        config.reload_settings()

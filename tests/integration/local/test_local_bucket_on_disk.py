"""The local S3's objects on disk (engram_local.aws.BucketOnDisk, what `make dev` runs): a PUT under a
kept prefix is on disk when acknowledged, a delete removes it, other prefixes stay in memory only, and
attaching again puts the kept objects back with their ObjectCreated notification sent again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from engram_local.aws import BucketOnDisk


def _take_notified_keys(stack: Any) -> list[str]:
    """The keys the uploads queue was notified of, removed from the queue (no other test sees them)."""
    sqs, keys = stack.aws.sqs(), []
    while messages := sqs.receive_message(QueueUrl=stack.uploads_queue_url, MaxNumberOfMessages=10).get("Messages"):
        for m in messages:
            keys += [unquote_plus(r["s3"]["object"]["key"]) for r in json.loads(m["Body"]).get("Records", [])]
            sqs.delete_message(QueueUrl=stack.uploads_queue_url, ReceiptHandle=m["ReceiptHandle"])
    return keys


def test_objects_are_kept_until_deleted_and_come_back_notified(stack, tmp_path: Path):
    s3, bucket = stack.aws.s3(), stack.uploads_bucket
    kept = BucketOnDisk(tmp_path / "s3", bucket, ("uploads/",))
    (tmp_path / "s3").mkdir()
    (tmp_path / "s3" / ".uploads%2Fcut-short.1.tmp").write_bytes(b"half")  # a write a crash cut short
    assert kept.attach() == 0
    try:
        assert not list((tmp_path / "s3").iterdir())  # the unacknowledged half is gone
        s3.put_object(Bucket=bucket, Key="uploads/t/a", Body=b"first body")
        s3.put_object(Bucket=bucket, Key="uploads/t/b", Body=b"second body")
        s3.put_object(Bucket=bucket, Key="exports/t/x.jsonl", Body=b"{}")  # not a kept prefix
        on_disk = {p.name: p.read_bytes() for p in (tmp_path / "s3").iterdir()}
        assert on_disk == {"uploads%2Ft%2Fa": b"first body", "uploads%2Ft%2Fb": b"second body"}
        s3.delete_object(Bucket=bucket, Key="uploads/t/b")  # ingested
        assert [p.name for p in (tmp_path / "s3").iterdir()] == ["uploads%2Ft%2Fa"]
    finally:
        kept.detach()
    _take_notified_keys(stack)

    # A new process: its S3 starts empty, and the kept object comes back, notified again.
    s3.delete_object(Bucket=bucket, Key="uploads/t/a")  # detached: the copy on disk stays
    assert s3.list_objects_v2(Bucket=bucket, Prefix="uploads/t/").get("KeyCount") == 0
    _take_notified_keys(stack)
    assert kept.attach() == 1
    try:
        assert s3.get_object(Bucket=bucket, Key="uploads/t/a")["Body"].read() == b"first body"
        assert _take_notified_keys(stack) == ["uploads/t/a"]
        s3.delete_object(Bucket=bucket, Key="uploads/t/a")
        assert not list((tmp_path / "s3").iterdir())
    finally:
        kept.detach()
        s3.delete_object(Bucket=bucket, Key="exports/t/x.jsonl")

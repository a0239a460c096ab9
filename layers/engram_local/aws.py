"""Local AWS: a moto server for SQS (and S3), the embed queue with its DLQ, a poller that
feeds queue messages to a function handler the way a Lambda event source mapping does, and a
schedule that invokes a function on an interval the way EventBridge Scheduler does.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from engram.adapters.s3 import object_created_record
from engram_local.lambda_runtime import invoke
from engram_local.postgres import free_port

REGION = "us-east-1"
MAX_RECEIVE_COUNT = 3  # as the CDK app configures: then the message moves to the DLQ


@dataclass
class LocalAws:
    port: int = field(default_factory=free_port)

    def start(self) -> LocalAws:
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one access-log line per SQS poll is noise
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()
        endpoint = f"http://127.0.0.1:{self.port}"
        for key, value in {
            "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local",
            "AWS_DEFAULT_REGION": REGION,
            "AWS_REGION": REGION,
            "AWS_ENDPOINT_URL_SQS": endpoint,
            "AWS_ENDPOINT_URL_S3": endpoint,
        }.items():
            os.environ[key] = value
        return self

    def stop(self) -> None:
        self.server.stop()

    @staticmethod
    def sqs() -> Any:
        import boto3

        return boto3.client("sqs", region_name=REGION)

    def create_queue(self, name: str, visibility_timeout: int = 2) -> tuple[str, str]:
        """A queue and its DLQ; returns (queue_url, dlq_url)."""
        sqs = self.sqs()
        dlq_url = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        url = sqs.create_queue(
            QueueName=name,
            Attributes={
                "VisibilityTimeout": str(visibility_timeout),
                "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": MAX_RECEIVE_COUNT}),
            },
        )["QueueUrl"]
        return url, dlq_url

    @staticmethod
    def s3() -> Any:
        import boto3
        from botocore.config import Config

        return boto3.client("s3", region_name=REGION, config=Config(s3={"addressing_style": "path"}))

    def create_uploads_bucket(self, bucket: str, queue_name: str) -> tuple[str, str]:
        """The uploads bucket as the CDK app builds it: ObjectCreated on uploads/ -> an SQS queue (+DLQ)
        that the document_ingest function consumes, and a 1-day expiry on uploads/. Returns the queue."""
        s3 = self.s3()
        s3.create_bucket(Bucket=bucket)
        s3.put_bucket_lifecycle_configuration(
            Bucket=bucket,
            LifecycleConfiguration={
                "Rules": [
                    {
                        "ID": "expire-uploads",
                        "Status": "Enabled",
                        "Filter": {"Prefix": "uploads/"},
                        "Expiration": {"Days": 1},
                    }
                ]
            },
        )
        url, dlq_url = self.create_queue(queue_name, visibility_timeout=120)  # a 50 MiB ingest takes seconds
        arn = self.sqs().get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        s3.put_bucket_notification_configuration(
            Bucket=bucket,
            NotificationConfiguration={
                "QueueConfigurations": [
                    {
                        "QueueArn": arn,
                        "Events": ["s3:ObjectCreated:*"],
                        "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "uploads/"}]}},
                    }
                ]
            },
        )
        return url, dlq_url

    def notify_queue(self, bucket: str, prefix: str, queue_name: str, visibility_timeout: int = 300) -> tuple[str, str]:
        """ObjectCreated under `prefix` of `bucket` -> a new queue (+DLQ), beside the bucket's other
        notifications, as the CDK app wires a function's `s3_trigger_prefix`. Returns the queue."""
        url, dlq_url = self.create_queue(queue_name, visibility_timeout=visibility_timeout)
        arn = self.sqs().get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        s3 = self.s3()
        config = s3.get_bucket_notification_configuration(Bucket=bucket)
        queues = config.get("QueueConfigurations", [])
        queues.append(
            {
                "QueueArn": arn,
                "Events": ["s3:ObjectCreated:*"],
                "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": prefix}]}},
            }
        )
        s3.put_bucket_notification_configuration(
            Bucket=bucket, NotificationConfiguration={"QueueConfigurations": queues}
        )
        return url, dlq_url


@dataclass
class BucketOnDisk:
    """Keeps a moto bucket's objects under `prefixes` in `directory`, so a crash loses none.

    moto holds objects (and the queue their ObjectCreated notification went to) in memory: an upload
    S3 acknowledged but not yet ingested would die with the process. Each PUT's bytes are written and
    fsynced here before moto stores the object, and so before the PUT is acknowledged; a delete (the
    ingest's, once it settled the upload) removes the copy. `attach` puts the copies back into the
    bucket as PUTs, so S3 notifies their ObjectCreated again and the ingest takes what it never
    finished (an upload it settled already is a duplicate: it deletes the object, nothing else)."""

    directory: Path
    bucket: str
    prefixes: tuple[str, ...]

    def _backend(self) -> Any:
        from moto.s3.models import s3_backends

        partition, account = s3_backends.bucket_accounts[self.bucket]
        return s3_backends[account][partition]

    def _path(self, key: str) -> Path:
        return self.directory / quote(key, safe="")  # one flat file a key: no key names a path outside

    def _kept(self, bucket: str, key: str) -> bool:
        return bucket == self.bucket and key.startswith(self.prefixes)

    def _write(self, key: str, value: bytes) -> None:
        path = self._path(key)
        tmp = path.with_name(f".{path.name}.{threading.get_ident()}.tmp")
        with open(tmp, "wb") as out:
            out.write(value)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        self._sync_directory()

    def _sync_directory(self) -> None:
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def attach(self) -> int:
        """Start keeping objects, after putting back the ones kept; returns how many came back."""
        self.directory.mkdir(parents=True, exist_ok=True)
        backend = self._backend()
        put_object, delete_object = backend.put_object, backend.delete_object

        def put_kept(bucket_name: str, key_name: str, value: bytes | str, *args: Any, **kwargs: Any) -> Any:
            if not self._kept(bucket_name, key_name):
                return put_object(bucket_name, key_name, value, *args, **kwargs)
            self._write(key_name, value.encode() if isinstance(value, str) else bytes(value))
            try:
                return put_object(bucket_name, key_name, value, *args, **kwargs)
            except Exception:  # refused: not acknowledged, so not kept either
                self._path(key_name).unlink(missing_ok=True)
                raise

        def delete_kept(bucket_name: str, key_name: str, *args: Any, **kwargs: Any) -> Any:
            result = delete_object(bucket_name, key_name, *args, **kwargs)
            if self._kept(bucket_name, key_name):
                self._path(key_name).unlink(missing_ok=True)
                self._sync_directory()
            return result

        restored = 0
        for path in sorted(self.directory.iterdir()):
            if path.name.startswith("."):  # a write the crash cut short: its PUT was never acknowledged
                path.unlink()
                continue
            put_object(self.bucket, unquote(path.name), path.read_bytes())  # notifies ObjectCreated:Put
            restored += 1
        backend.put_object, backend.delete_object = put_kept, delete_kept
        return restored

    def detach(self) -> None:
        """Back to moto's own methods (the process's next stack may keep nothing)."""
        backend = self._backend()
        for name in ("put_object", "delete_object"):
            backend.__dict__.pop(name, None)


def sqs_record(message_id: str, body: str, queue: str = "q") -> dict[str, Any]:
    """One SQS record as Lambda delivers it (functions parse it with Powertools' SqsRecordModel)."""
    now = str(int(time.time() * 1000))
    return {
        "messageId": message_id,
        "receiptHandle": f"r-{message_id}",
        "body": body,
        "attributes": {
            "ApproximateReceiveCount": "1",
            "SentTimestamp": now,
            "SenderId": "AIDAEXAMPLE",
            "ApproximateFirstReceiveTimestamp": now,
        },
        "messageAttributes": {},
        "md5OfBody": hashlib.md5(body.encode()).hexdigest(),
        "eventSource": "aws:sqs",
        "eventSourceARN": f"arn:aws:sqs:{REGION}:000000000000:{queue}",
        "awsRegion": REGION,
    }


# Tests build notification records with the one the API uses to re-send a lost notification.
s3_notification_record = object_created_record


def complete_s3_record(record: dict[str, Any]) -> dict[str, Any]:
    """moto's S3 notifications leave out fields AWS always sends (userIdentity, requestParameters,
    responseElements, the bucket's ownerIdentity): fill them in, so the function parses locally what
    it parses in AWS (Powertools' S3 notification models require them)."""
    record.setdefault("userIdentity", {"principalId": "AWS:LOCAL"})
    record.setdefault("requestParameters", {"sourceIPAddress": "127.0.0.1"})
    record.setdefault("responseElements", {"x-amz-request-id": "LOCAL", "x-amz-id-2": "LOCAL"})
    record["s3"]["bucket"].setdefault("ownerIdentity", {"principalId": "LOCAL"})
    return record


def complete_s3_notification(body: str) -> str:
    """An uploads-queue message body with its S3 records completed (s3:TestEvent passes unchanged)."""
    message = json.loads(body)
    if not isinstance(message, dict) or "Records" not in message:
        return body
    for record in message["Records"]:
        complete_s3_record(record)
    return json.dumps(message)


@dataclass
class SqsPoller:
    """Receives batches and invokes `function` with a Lambda SQS event; deletes what succeeded."""

    queue_url: str
    function: str
    batch_size: int = 10
    shape_body: Callable[[str], str] | None = None  # what the stand-in must add to match AWS's messages
    _stop: threading.Event = field(default_factory=threading.Event)

    def _event(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        arn = f"arn:aws:sqs:{REGION}:000000000000:{self.queue_url.rsplit('/', 1)[-1]}"
        bodies = [self.shape_body(m["Body"]) if self.shape_body else m["Body"] for m in messages]
        return {
            "Records": [
                {
                    "messageId": m["MessageId"],
                    "receiptHandle": m["ReceiptHandle"],
                    "body": body,
                    "attributes": m.get("Attributes", {}),
                    "messageAttributes": {},
                    "md5OfBody": hashlib.md5(body.encode()).hexdigest(),
                    "eventSource": "aws:sqs",
                    "eventSourceARN": arn,
                    "awsRegion": REGION,
                }
                for m, body in zip(messages, bodies, strict=True)
            ]
        }

    def poll_once(self, wait_seconds: int = 0) -> int:
        """One receive + invoke; returns how many messages were received."""
        sqs = LocalAws.sqs()
        messages = sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=wait_seconds,
            AttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            return 0
        try:
            result = invoke(self.function, self._event(messages), timeout_s=300)
            failed = {f["itemIdentifier"] for f in (result or {}).get("batchItemFailures", [])}
        except Exception:  # the whole invocation failed: every message comes back after the timeout
            failed = {m["MessageId"] for m in messages}
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)],
            )
        return len(messages)

    def drain(self, max_rounds: int = 1000) -> int:
        """Poll until the queue answers empty (tests call this for determinism)."""
        total = 0
        for _ in range(max_rounds):
            n = self.poll_once()
            if n == 0:
                break
            total += n
        return total

    def run_forever(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll_once(wait_seconds=1)
            except Exception:  # keep the dev loop alive; the message is retried or dead-lettered
                self._stop.wait(1)

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run_forever, name=f"poll-{self.function}", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()


@dataclass
class LocalSchedule:
    """Invokes `function` every `interval_s` seconds (the first time after one interval), as the
    EventBridge Scheduler schedule does in AWS. A failed invocation is logged; the next one runs."""

    function: str
    interval_s: float
    _stop: threading.Event = field(default_factory=threading.Event)

    def event(self) -> dict[str, Any]:
        return {"source": "engram.local-schedule", "detail-type": "Scheduled Event", "detail": {}}

    def run_forever(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                invoke(self.function, self.event(), timeout_s=120)
            except Exception:  # keep the dev loop alive; the next tick tries again
                logging.getLogger(__name__).exception("scheduled %s failed", self.function)

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run_forever, name=f"schedule-{self.function}", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()

"""The whole local stack in one object: database, migrations, queues, embed worker poller.

Used by `make dev`, the test fixtures and the benchmarks, so all three run the same way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engram.core import config
from engram.core.db import reset_connections
from engram_local.aws import (
    MAX_RECEIVE_COUNT,
    BucketOnDisk,
    LocalAws,
    LocalSchedule,
    SqsPoller,
    complete_s3_notification,
)
from engram_local.postgres import EmbeddedPostgres


@dataclass
class LocalStack:
    data_dir: Path | None = None  # embedded Postgres data; ignored when ENGRAM_DATABASE_URL is set
    start_poller: bool = True
    pg_port: int | None = None  # embedded Postgres port; a free one when not given
    durable: bool = True  # fsync and friends; the test suite turns them off for speed
    # Where the uploads bucket keeps its uploads/ and imports/ objects until they are ingested (make
    # dev); None: in memory only, as moto does (the test suite).
    objects_dir: Path | None = None
    bucket_on_disk: BucketOnDisk | None = None
    restored_objects: int = 0  # objects an earlier process acknowledged but had not ingested
    postgres: EmbeddedPostgres | None = None
    aws: LocalAws | None = None
    _set_database_url: bool = False
    dsn: str = ""
    embed_queue_url: str = ""
    embed_dlq_url: str = ""
    uploads_bucket: str = "engram-uploads"
    uploads_queue_url: str = ""
    consolidate_queue_url: str = ""
    consolidate_dlq_url: str = ""
    consolidation_schedule: LocalSchedule | None = None
    export_queue_url: str = ""
    import_events_queue_url: str = ""
    extract_queue_url: str = ""

    def start(self) -> LocalStack:
        external = config.Settings().database_url  # afresh: an earlier stack in this process set its own
        if external:  # any Postgres 16 with pgvector >= 0.8: a container, a managed instance
            self.dsn = external
        else:
            assert self.data_dir is not None, "data_dir is required for the embedded database"
            self.postgres = (
                EmbeddedPostgres(self.data_dir, port=self.pg_port, durable=self.durable)
                if self.pg_port
                else EmbeddedPostgres(self.data_dir, durable=self.durable)
            ).start()
            self.dsn = self.postgres.admin_dsn
            os.environ["ENGRAM_DATABASE_URL"] = self.dsn
            self._set_database_url = True
        self.aws = LocalAws().start()
        self.embed_queue_url, self.embed_dlq_url = self.aws.create_queue("engram-embed-jobs")
        os.environ["ENGRAM_EMBED_QUEUE_URL"] = self.embed_queue_url
        self.consolidate_queue_url, self.consolidate_dlq_url = self.aws.create_queue("engram-consolidate-jobs")
        os.environ["ENGRAM_CONSOLIDATE_QUEUE_URL"] = self.consolidate_queue_url
        # Extraction jobs wait on a model call: a longer visibility timeout, as the CDK app gives them.
        self.extract_queue_url, _ = self.aws.create_queue("engram-extract-jobs", visibility_timeout=30)
        os.environ["ENGRAM_EXTRACT_QUEUE_URL"] = self.extract_queue_url
        # The worker marks a run failed on the last receive before the local DLQ takes the message.
        os.environ["ENGRAM_CONSOLIDATION_MAX_RECEIVES"] = str(MAX_RECEIVE_COUNT)
        # S3 stand-in for large documents: presigned PUTs go to the moto server, its ObjectCreated
        # notifications land in an SQS queue that a poller feeds to functions/document_ingest.
        self.uploads_queue_url, _ = self.aws.create_uploads_bucket(self.uploads_bucket, "engram-upload-events")
        os.environ["ENGRAM_UPLOADS_BUCKET"] = self.uploads_bucket
        os.environ["ENGRAM_UPLOAD_EVENTS_QUEUE_URL"] = self.uploads_queue_url
        # Exports: a job queue the export worker drains; imports: files PUT under imports/ of the same
        # bucket notify a queue the import worker drains.
        self.export_queue_url, _ = self.aws.create_queue("engram-export-jobs", visibility_timeout=300)
        os.environ["ENGRAM_EXPORT_QUEUE_URL"] = self.export_queue_url
        self.import_events_queue_url, _ = self.aws.notify_queue(self.uploads_bucket, "imports/", "engram-import-events")
        if self.objects_dir is not None:  # after the notifications: the objects put back notify again
            self.bucket_on_disk = BucketOnDisk(self.objects_dir, self.uploads_bucket, ("uploads/", "imports/"))
            self.restored_objects = self.bucket_on_disk.attach()
        os.environ.setdefault("ENGRAM_EMBEDDER", "local")
        os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "engram-local")
        self.refresh_settings()
        from engram.ops.operations import migrate_and_register_embedder

        migrate_and_register_embedder(self.dsn)
        self.embed_poller = SqsPoller(self.embed_queue_url, "embed_worker")
        self.upload_poller = SqsPoller(
            self.uploads_queue_url, "document_ingest", batch_size=1, shape_body=complete_s3_notification
        )
        # One run per invocation, as the CDK app maps the queue (batch size 1).
        self.consolidation_poller = SqsPoller(self.consolidate_queue_url, "consolidation_worker", batch_size=1)
        self.export_poller = SqsPoller(self.export_queue_url, "export_worker", batch_size=1)
        self.extraction_poller = SqsPoller(self.extract_queue_url, "extraction_worker", batch_size=1)
        self.import_poller = SqsPoller(
            self.import_events_queue_url, "import_worker", batch_size=1, shape_body=complete_s3_notification
        )
        if self.start_poller:
            self.embed_poller.start()
            if not config.settings().dev_pause_upload_ingest:
                self.upload_poller.start()
            self.consolidation_poller.start()
            self.export_poller.start()
            self.extraction_poller.start()
            self.import_poller.start()
            # The consolidation schedule (ENGRAM_CONSOLIDATION_INTERVAL_S; 0 turns it off).
            interval = config.settings().consolidation_interval_s
            if interval > 0:
                self.consolidation_schedule = LocalSchedule("consolidation_dispatcher", interval)
                self.consolidation_schedule.start()
        return self

    @staticmethod
    def refresh_settings() -> None:
        """Settings are cached per process; re-read them after the environment changed."""
        config.reload_settings()
        from engram.adapters import queue as jobs

        jobs._sqs.cache_clear()
        from engram.adapters import llm, s3

        s3.client.cache_clear()
        llm.reset()
        reset_connections()

    def stop(self) -> None:
        self.embed_poller.stop()
        self.upload_poller.stop()
        self.consolidation_poller.stop()
        self.export_poller.stop()
        self.extraction_poller.stop()
        self.import_poller.stop()
        if self.consolidation_schedule:
            self.consolidation_schedule.stop()
        if self.bucket_on_disk:
            self.bucket_on_disk.detach()
        if self.aws:
            self.aws.stop()
        reset_connections()
        if self.postgres:
            self.postgres.stop()
        if self._set_database_url:  # the next stack in this process starts its own database
            os.environ.pop("ENGRAM_DATABASE_URL", None)

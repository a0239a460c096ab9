"""Import such a file (engram.portability.records says its format).

POST /v1/imports records a pending job and presigns a PUT of the file to imports/<tenant>/<id>;
the object's ObjectCreated event (through SQS) runs `import_object`. Under a lock on the job row it
reads the object into a temporary file, validates every line first (engram.portability.plan), and
only when no line is refused writes everything in that same transaction: memories (kept ids when
free, deduplicated by content hash), their versions, Tier 2 bodies, conversations and messages with
their windows, links (ends mapped to the written ids). The job is settled in the transaction that
writes the data: a worker that dies half-way leaves nothing and the redelivered event starts again;
a duplicate event finds the job settled. Vectors are not in the file: the new chunks go to the embed
queue after commit.
"""

from __future__ import annotations

import base64
import hashlib
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import IO, Any
from urllib.parse import unquote_plus
from uuid import UUID

import psycopg
from aws_lambda_powertools import Logger

from engram.adapters import s3
from engram.adapters.queue import enqueue_embedding
from engram.conversations.service import window_conversation
from engram.core.activity import record_activity
from engram.core.config import settings
from engram.core.db import tenant_transaction
from engram.core.errors import Conflict, EngramError, NotFound, TooLarge
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.core.models import NewMemory
from engram.documents.service import write_body
from engram.graph.service import apply_supersedes
from engram.memories.service import write_memories
from engram.portability import store, task_store
from engram.portability.bucket import CONTENT_TYPE, EXPIRY_GRACE, files_bucket
from engram.portability.derivation import DerivationImport
from engram.portability.models import ImportCounts, ImportCreate, ImportJob, ImportReport, ImportTicket
from engram.portability.plan import ImportRejected, Plan, validate_file
from engram.portability.records import LinkRecord, MemoryRecord, VersionRecord
from engram.portability.rows import ImportRow
from engram.portability.settings import portability_settings

logger = Logger()

IMPORTS_PREFIX = "imports/"


def import_key(tenant_id: UUID, import_id: UUID) -> str:
    return f"{IMPORTS_PREFIX}{tenant_id}/{import_id}.jsonl"


def parse_import_key(key: str) -> tuple[UUID, UUID] | None:
    parts = unquote_plus(key).split("/")
    if len(parts) != 3 or parts[0] + "/" != IMPORTS_PREFIX or not parts[2].endswith(".jsonl"):
        return None
    try:
        return UUID(parts[1]), UUID(parts[2].removesuffix(".jsonl"))
    except ValueError:
        return None


# ---- the job -------------------------------------------------------------------------------------


def _import_job(row: ImportRow) -> ImportJob:
    return ImportJob.model_validate(row, from_attributes=True)  # its fields, not the key and checksum


def create_import(tenant_id: UUID, req: ImportCreate, idempotency: IdempotencyKey | None = None) -> ImportTicket:
    """A pending import and its presigned PUT; a keyed retry gets the first ticket (its URL expires
    at the first `expires_at`)."""
    limit = portability_settings().import_max_bytes
    if req.size_bytes > limit:
        raise TooLarge(
            "size_bytes",
            req.size_bytes,
            limit,
            "Export and import one namespace at a time (POST /v1/exports {namespace}).",
        )
    bucket_name = files_bucket()
    expiry = settings().upload_url_expiry_s
    sha = bytes.fromhex(req.sha256) if req.sha256 else None
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, ImportTicket)) is not None:
            return first
        row = store.insert_import(
            conn,
            tenant_id,
            namespace=req.namespace,
            id_policy=req.id_policy,
            size=req.size_bytes,
            sha256=sha,
            expires_at=datetime.now(UTC) + timedelta(seconds=expiry),
            key_of=lambda import_id: import_key(tenant_id, import_id),
        )
        params: dict[str, Any] = {
            "Bucket": bucket_name,
            "Key": row.s3_key,
            "ContentType": CONTENT_TYPE,
            "ContentLength": req.size_bytes,
        }
        headers = {"Content-Type": CONTENT_TYPE, "Content-Length": str(req.size_bytes)}
        if sha is not None:
            params["ChecksumSHA256"] = headers["x-amz-checksum-sha256"] = base64.b64encode(sha).decode()
        url = s3.client().generate_presigned_url("put_object", ExpiresIn=expiry, Params=params)  # signed locally
        ticket = ImportTicket(**_import_job(row).model_dump(), upload_url=url, headers=headers)
        remember(conn, idempotency, ticket)
    return ticket


def get_import(tenant_id: UUID, import_id: UUID) -> ImportJob:
    with tenant_transaction(tenant_id) as conn:
        row = store.import_row(conn, import_id)
        if row is None:
            raise NotFound(f"import {import_id} not found")
        if row.status == "pending" and row.expires_at + EXPIRY_GRACE < datetime.now(UTC):
            reason = "expired: no file arrived before the upload URL expired"
            row = store.expire_import(conn, import_id, reason) or row
    return _import_job(row)


# ---- writing -------------------------------------------------------------------------------------


class LineFailed(EngramError):
    """A validated line the database refuses (a conflict with this tenant's data): nothing is kept."""

    def __init__(self, line_no: int, reason: str) -> None:
        super().__init__(reason)
        self.line_no = line_no


@dataclass
class Importer(DerivationImport):
    def memories(self) -> None:
        seen: dict[tuple[str, bytes, str, datetime | None], UUID] = {}  # this file's memories, by dedupe key
        for batch in self.records("memory"):
            keys = {r.id: (self.ns(r.namespace), r.hash(), r.status, r.created_at) for _, r in batch}
            found = store.existing_memories(self.conn, list(keys.values()))
            keepable = self.keepable("memories", batch)
            news: list[tuple[MemoryRecord, NewMemory]] = []
            for _, r in batch:
                ns, digest, status, created = keys[r.id]
                key = (ns, digest, status, None if status == "active" else created)
                match = found.get(key) or seen.get(key)
                if match is not None:
                    self.memory_ids[r.id] = match
                    self.collect_evidence(r, False)
                    self.deduplicated.memories += 1
                    continue
                new = _new_memory(r, self.new_id(r.id, keepable), ns, self.derived_metadata(r))
                assert new.id is not None
                seen[key] = self.memory_ids[r.id] = new.id
                news.append((r, new))
            written = write_memories(self.conn, self.tenant_id, [n for _, n in news])
            versions: list[tuple[UUID, VersionRecord]] = []
            for (r, new), w in zip(news, written, strict=True):
                self.memory_ids[r.id] = w.id
                self.collect_evidence(r, w.inserted)
                if not w.inserted:  # a concurrent write of the same content got there first
                    self.deduplicated.memories += 1
                    continue
                self.written_memories.add(w.id)
                self.imported.memories += 1
                self.namespaces.add(new.namespace)
                self.chunk_ids += w.chunk_ids
                versions += [(w.id, v) for v in r.versions]
                if r.document is not None:
                    self.imported.documents += 1
                    if r.document.body is not None:
                        assert r.document.content_type is not None
                        write_body(
                            self.conn,
                            self.tenant_id,
                            w.id,
                            r.document.body,
                            byte_size=len(r.document.body.encode()),
                            sha256=r.hash(),
                            content_type=r.document.content_type,
                        )
            store.insert_versions(self.conn, self.tenant_id, versions)
            self.imported.versions += len(versions)

    def conversations(self) -> None:
        written: dict[UUID, UUID] = {}  # record id -> new conversation id
        for batch in self.records("conversation"):
            found = store.existing_conversations(
                self.conn, [(r.id, self.ns(r.namespace), r.created_at, r.title, r.agent_id) for _, r in batch]
            )
            keepable = self.keepable("conversations", batch)
            for _, r in batch:
                if r.id in found:
                    self.conversation_ids[r.id] = found[r.id]
                    self.deduplicated.conversations += 1  # its messages are there too: they are skipped
                    continue
                new_id = self.new_id(r.id, keepable)
                namespace = self.ns(r.namespace)
                store.insert_conversation(
                    self.conn, self.tenant_id, new_id, r, namespace, self.plan.message_counts.get(r.id, 0)
                )
                written[r.id] = self.conversation_ids[r.id] = new_id
                self.imported.conversations += 1
                self.namespaces.add(namespace)
        for batch in self.records("message"):
            rows = [(written[m.conversation_id], m) for _, m in batch if m.conversation_id in written]
            store.insert_messages(self.conn, self.tenant_id, rows)
            self.imported.messages += len(rows)
            self.deduplicated.messages += len(batch) - len(rows)
        for conversation_id in written.values():
            self.chunk_ids += window_conversation(self.conn, self.tenant_id, conversation_id)
        self.tasks(written)

    def tasks(self, ledgers: dict[UUID, UUID]) -> None:
        """Task runs on the conversations just written, under new ids, and their checkpoints. A task whose
        ledger was already there (deduplicated) is skipped with it."""
        task_ids: dict[UUID, UUID] = {}  # record id -> new task id
        for batch in self.records("task"):
            for _, r in batch:
                if r.conversation_id not in ledgers:
                    self.deduplicated.tasks += 1
                    continue
                task = r.model_copy(update={"namespace": self.ns(r.namespace)})
                task_ids[r.id] = task_store.insert_task(self.conn, self.tenant_id, ledgers[r.conversation_id], task)
                self.imported.tasks += 1
        for batch in self.records("checkpoint"):
            rows = [(task_ids[c.task_id], c) for _, c in batch if c.task_id in task_ids]
            task_store.insert_checkpoints(self.conn, self.tenant_id, rows)
            self.imported.checkpoints += len(rows)
            self.deduplicated.checkpoints += len(batch) - len(rows)

    def links(self) -> None:
        for batch in self.records("link"):
            keepable = self.keepable("links", batch)
            ends = [(self.memory_ids[r.from_id], self.memory_ids[r.to_id]) for _, r in batch]
            there = store.overlapping_links(
                self.conn,
                [(f, t, r.relation, r.valid_from, r.valid_to) for (f, t), (_, r) in zip(ends, batch, strict=True)],
            )
            # Both ends deduplicated into one memory (two namespaces imported into one): nothing to link.
            there |= {i for i, (f, t) in enumerate(ends) if f == t}
            self.deduplicated.links += len(there)  # the same relation already holds then
            rows = [
                (number, (self.new_id(r.id, keepable), f, t, r))
                for i, ((number, r), (f, t)) in enumerate(zip(batch, ends, strict=True))
                if i not in there
            ]
            try:
                with self.conn.transaction():
                    store.insert_links(self.conn, self.tenant_id, [row for _, row in rows])
            except psycopg.errors.IntegrityError:
                self._find_refused_link(rows)  # raises LineFailed naming the line
                raise
            self.imported.links += len(rows)
            self.link_ids |= {record.id: link_id for _, (link_id, _, _, record) in rows}
            self._supersede([(number, row[0]) for number, row in rows if row[3].relation == "supersedes"])

    def _supersede(self, links: list[tuple[int, UUID]]) -> None:
        """The graph's own rules for each supersedes link, as POST /v1/links applies them: a cycle is
        refused (named by the file's ids), and the older memory ends when the newer one starts."""
        file_ids = {written: record_id for record_id, written in self.memory_ids.items()}
        for number, link_id in links:
            try:
                apply_supersedes(self.conn, self.tenant_id, [link_id])
            except Conflict as exc:
                cycle = " supersedes ".join(str(file_ids.get(UUID(m), m)) for m in exc.details["cycle"])
                raise LineFailed(number, f"link: supersedes links would form a cycle: {cycle}") from None

    def _find_refused_link(self, rows: list[tuple[int, tuple[UUID, UUID, UUID, LinkRecord]]]) -> None:
        """One by one, to name the line the database refuses (two links of the file that overlap)."""
        for number, row in rows:
            try:
                with self.conn.transaction():
                    store.insert_links(self.conn, self.tenant_id, [row])
            except psycopg.errors.IntegrityError as exc:
                raise LineFailed(number, f"link: {exc.diag.message_primary}") from None

    def run(self) -> ImportReport:
        self.extraction_settings()
        self.conversations()  # first: derived memories name their conversation (and run) in their metadata
        self.plan_runs()
        self.memories()
        self.links()
        self.runs()
        self.write_evidence()
        record_activity(self.conn, sorted(self.namespaces))  # the next consolidation builds their topic trees
        return ImportReport(
            lines=self.plan.lines,
            imported=self.imported,
            deduplicated=self.deduplicated,
            mapped_ids=self.mapped,
            topics_skipped=len(self.plan.at["topic"]),
            refused=[],
            refused_count=0,
        )


def _new_memory(r: MemoryRecord, memory_id: UUID, namespace: str, metadata: dict[str, Any]) -> NewMemory:
    doc = r.document
    return NewMemory(
        id=memory_id,
        namespace=namespace,
        content=r.content,
        kind=r.kind,
        layer=r.layer,
        importance=r.importance,
        tags=r.tags,
        source=r.source,
        metadata=metadata,
        valid_from=r.valid_from,
        valid_to=r.valid_to,
        document_tier=doc.tier if doc else None,
        content_hash=r.hash(),
        chunks=[(c.position, c.char_start, c.text) for c in doc.chunks] if doc else None,
        created_at=r.created_at,
        updated_at=r.updated_at,
        last_accessed=r.last_accessed,
        access_count=r.access_count,
        repetition_count=r.repetition_count,
        status=r.status,
        deleted_at=r.deleted_at,
        version=r.version,
        critical=r.critical,
        conflict_key=r.conflict_key,
    )


def _fetch(bucket: str, key: str, job: ImportRow, f: IO[bytes]) -> None:
    client = s3.client()
    size = int(client.head_object(Bucket=bucket, Key=key)["ContentLength"])
    if size != job.size_bytes:
        raise ImportRejected(f"the file is {size} bytes but {job.size_bytes} were declared")
    client.download_fileobj(bucket, key, f)
    f.seek(0)
    digest = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
    if job.sha256 is not None and digest.digest() != job.sha256:
        raise ImportRejected(f"sha256 mismatch: the file is {digest.hexdigest()}, declared {job.sha256.hex()}")


def _refused_report(plan: Plan) -> dict[str, Any]:
    return ImportReport(
        lines=plan.lines,
        imported=ImportCounts(),
        deduplicated=ImportCounts(),
        mapped_ids=0,
        topics_skipped=0,
        refused=plan.refused,
        refused_count=plan.refused_count,
    ).model_dump(mode="json")


def import_object(bucket: str, key: str) -> str:
    """Handle one ObjectCreated record under imports/; returns what happened (for logs and tests)."""
    parsed = parse_import_key(key)
    if parsed is None:
        logger.warning("ignoring an object outside imports/<tenant>/<import>.jsonl", extra={"key": key})
        return "ignored"
    tenant_id, import_id = parsed
    key = import_key(tenant_id, import_id)
    chunk_ids: list[UUID] = []
    with tenant_transaction(tenant_id) as conn:
        # The row lock serialises duplicate deliveries: the second waits, then finds the job settled.
        job = store.import_row(conn, import_id, lock=True)
        if job is None:
            return "unknown"  # not an import of this tenant: never read it
        if job.status != "pending":
            return "duplicate"
        outcome = "done"
        with tempfile.TemporaryFile() as f:
            try:
                _fetch(bucket, key, job, f)
                plan = validate_file(f)
                if plan.refused_count:
                    store.settle_import(
                        conn,
                        import_id,
                        report=_refused_report(plan),
                        error=f"{plan.refused_count} line(s) refused: nothing was imported",
                    )
                    outcome = "refused"
                else:
                    importer = Importer(conn, tenant_id, f, plan, job.namespace, job.id_policy == "keep")
                    with conn.transaction():  # a savepoint: a refusal while writing keeps none of it
                        report = importer.run()
                    store.settle_import(conn, import_id, report=report.model_dump(mode="json"), error=None)
                    chunk_ids = importer.chunk_ids
            except ImportRejected as exc:
                store.settle_import(conn, import_id, report=None, error=exc.message)
                outcome = "failed"
            except (psycopg.errors.DataError, psycopg.errors.IntegrityError) as exc:
                # Data the database refuses would be refused on every retry: settle the job instead.
                logger.exception("import could not be stored", extra={"import_id": str(import_id)})
                store.settle_import(
                    conn, import_id, report=None, error=f"the file could not be stored: {exc.diag.message_primary}"
                )
                outcome = "failed"
            except LineFailed as exc:
                plan.refuse(exc.line_no, exc.message)
                store.settle_import(
                    conn,
                    import_id,
                    report=_refused_report(plan),
                    error=f"line {exc.line_no} refused: nothing was imported",
                )
                outcome = "refused"
    s3.delete_object(bucket, key)
    enqueue_embedding(tenant_id, chunk_ids)
    logger.info("import settled", extra={"import_id": str(import_id), "outcome": outcome, "chunks": len(chunk_ids)})
    return outcome

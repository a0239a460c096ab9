"""Large documents through S3: a presigned PUT, then the ObjectCreated event ingests the object.

1. `create_upload` checks the declared size (<= 50 MiB, else 413 and no row), the content type
   (415) and the SHA-256, records a pending `document_uploads` row and presigns a PUT to
   `uploads/<tenant_id>/<upload_id>` bound to Content-Length, Content-Type and
   x-amz-checksum-sha256 (S3 rejects a PUT whose body does not match them).
2. S3 ObjectCreated -> (SQS) -> document_ingest -> `ingest_object`: under a row lock on the upload
   it checks the size (HEAD; oversize or not as declared: the object is deleted, never read), the
   SHA-256 and UTF-8, classifies and stores the document, and marks the upload ready or failed
   with the reason. A duplicate event finds the upload settled and does nothing.
3. The object is deleted once the upload is settled: Tier 1 must not keep its body anywhere and
   Tier 2 keeps it in Postgres. A bucket lifecycle rule (1 day on uploads/) removes objects of
   uploads that never got an event.
4. A GET of an upload still pending past its URL's expiry fails it as expired only when no object
   is there; an object that arrived but was never ingested (its notification lost) gets its
   notification sent again instead.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta
from urllib.parse import unquote_plus
from uuid import UUID

import psycopg
from aws_lambda_powertools import Logger
from pydantic import ValidationError

from engram.adapters import s3
from engram.adapters.queue import enqueue_embedding, resend_object_created
from engram.core.config import settings
from engram.core.db import Conn, tenant_transaction
from engram.core.errors import DependencyDown, EngramError, NotFound, TooLarge
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.core.text import content_hash
from engram.documents.models import HARD_MAX_BYTES, DocumentOptions, UploadCreate, UploadStatus, UploadTicket
from engram.documents.prepare import HARD_LIMIT_ALTERNATIVE, normalise_content_type, prepare
from engram.documents.service import write_document
from engram.documents.store import (
    PendingUpload,
    claim_resend,
    expire_upload,
    fail_upload,
    insert_upload,
    lock_upload,
    mark_upload_ready,
    upload_status,
)

logger = Logger()

KEY_PREFIX = "uploads/"
EXPIRY_GRACE = timedelta(minutes=15)  # an event may lag the PUT; only then is a pending upload expired


def s3_key(tenant_id: UUID | str, upload_id: UUID | str) -> str:
    return f"{KEY_PREFIX}{tenant_id}/{upload_id}"


def _bucket() -> str:
    bucket = settings().uploads_bucket
    if not bucket:
        raise DependencyDown(
            "uploads are not configured (ENGRAM_UPLOADS_BUCKET); inline POST /v1/documents still works up to 5 MiB",
            {"dependency": "uploads_bucket"},
        )
    return bucket


def create_upload(tenant_id: UUID, req: UploadCreate, idempotency: IdempotencyKey | None = None) -> UploadTicket:
    """A pending upload and its presigned PUT; a keyed retry gets the first ticket (its URL
    expires at the first `expires_at`)."""
    if req.size_bytes > HARD_MAX_BYTES:
        raise TooLarge("size_bytes", req.size_bytes, HARD_MAX_BYTES, HARD_LIMIT_ALTERNATIVE)
    ctype = normalise_content_type(req.content_type)
    bucket = _bucket()
    expiry = settings().upload_url_expiry_s
    params = req.model_dump(mode="json", exclude={"size_bytes", "sha256", "content_type", "namespace"})
    sha = bytes.fromhex(req.sha256)
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, UploadTicket)) is not None:
            return first
        status = insert_upload(
            conn,
            tenant_id,
            namespace=req.namespace,
            size=req.size_bytes,
            sha256=sha,
            content_type=ctype,
            params=params,
            expires_at=datetime.now(UTC) + timedelta(seconds=expiry),
            key_of=lambda upload_id: s3_key(tenant_id, upload_id),
        )
        key = s3_key(tenant_id, status.upload_id)
        checksum = base64.b64encode(sha).decode()
        headers = {"Content-Type": ctype, "Content-Length": str(req.size_bytes), "x-amz-checksum-sha256": checksum}
        url = s3.client().generate_presigned_url(  # signed locally: no call to S3
            "put_object",
            ExpiresIn=expiry,
            Params={
                "Bucket": bucket,
                "Key": key,
                "ContentType": ctype,
                "ContentLength": req.size_bytes,
                "ChecksumSHA256": checksum,
            },
        )
        ticket = UploadTicket(**status.model_dump(), url=url, headers=headers)
        remember(conn, idempotency, ticket)
    return ticket


def get_upload(tenant_id: UUID, upload_id: UUID) -> UploadStatus:
    """The upload's status. One still pending past its URL's expiry (plus the grace an event may lag)
    fails as expired only when its object is not there: an object that arrived but was never ingested
    (its notification lost) gets its ObjectCreated notification sent again, at most once per grace
    period, and the upload stays pending. When S3 cannot be asked, it stays pending too."""
    with tenant_transaction(tenant_id) as conn:
        status = _status(conn, upload_id)
    if status.status != "pending" or status.expires_at + EXPIRY_GRACE >= datetime.now(UTC):
        return status
    bucket, key = _bucket(), s3_key(tenant_id, upload_id)
    try:
        head = s3.head_object(bucket, key)
    except Exception:
        logger.exception("could not tell whether the upload's object arrived", extra={"upload_id": str(upload_id)})
        return status
    with tenant_transaction(tenant_id) as conn:
        # Neither waits for an ingest at work on the upload (it settles the row itself), and a missing
        # object never fails an upload that was ingested: the ingest deletes it after its commit.
        if head is None:
            expire_upload(conn, upload_id, "expired: no object arrived before the upload URL expired")
            resend = False
        else:
            resend = claim_resend(conn, upload_id, EXPIRY_GRACE)
        status = _status(conn, upload_id)
    if resend and head is not None:
        logger.warning(
            "an upload's object arrived but was not ingested: its notification is sent again",
            extra={"upload_id": str(upload_id)},
        )
        resend_object_created(bucket, key, int(head["ContentLength"]), str(head.get("ETag", "")).strip('"'))
    return status


def _status(conn: Conn, upload_id: UUID) -> UploadStatus:
    status = upload_status(conn, upload_id)
    if status is None:
        raise NotFound(f"upload {upload_id} not found")
    return status


# ---- the S3 event side ------------------------------------------------------------------------


class UploadRejected(EngramError):
    """The object cannot be ingested: the upload fails with this reason and the object is deleted."""


def parse_key(key: str) -> tuple[UUID, UUID] | None:
    parts = unquote_plus(key).split("/")
    if len(parts) != 3 or parts[0] + "/" != KEY_PREFIX:
        return None
    try:
        return UUID(parts[1]), UUID(parts[2])
    except ValueError:
        return None


def ingest_object(bucket: str, key: str) -> str:
    """Handle one ObjectCreated record; returns what happened (for logs and tests)."""
    parsed = parse_key(key)
    if parsed is None:
        logger.warning("ignoring an object outside uploads/<tenant>/<upload>", extra={"key": key})
        return "ignored"
    tenant_id, upload_id = parsed
    key = s3_key(tenant_id, upload_id)
    chunk_ids: list[UUID] = []
    with tenant_transaction(tenant_id) as conn:
        # The row lock serialises duplicate deliveries of the same event: the second one waits, then
        # finds the upload settled.
        up = lock_upload(conn, upload_id)
        if up is None:
            outcome = "unknown"  # not an upload of this tenant: never ingest it
        elif up.status != "pending":
            outcome = "duplicate"  # settled already: a repeated event, or a PUT after failure; never ingest
        else:
            outcome, chunk_ids = _ingest(conn, tenant_id, upload_id, up, bucket, key)
    s3.delete_object(bucket, key)
    enqueue_embedding(tenant_id, chunk_ids)
    logger.info("upload settled", extra={"upload_id": str(upload_id), "outcome": outcome})
    return outcome


def _ingest(
    conn: Conn, tenant_id: UUID, upload_id: UUID, up: PendingUpload, bucket: str, key: str
) -> tuple[str, list[UUID]]:
    """Store the locked pending upload's object as a document and settle the upload: ready, or failed
    with the reason; returns the outcome and the chunks to embed."""
    try:
        body = _fetch_checked(bucket, key, up)
        options = DocumentOptions.model_validate({**up.params, "namespace": up.namespace})
        doc = prepare(body, up.content_type, options, size=up.declared_bytes, sha256=up.sha256)
        del body
        with conn.transaction():  # savepoint: a failed store still lets us record the failure
            written, chunk_ids = write_document(conn, tenant_id, doc)
        mark_upload_ready(conn, upload_id, written.memory.id, written.document.tier, written.deduplicated)
        return "ready", chunk_ids
    except UploadRejected as exc:
        fail_upload(conn, upload_id, exc.message)
    except EngramError as exc:  # 413/415/422 from classification or validation
        fail_upload(conn, upload_id, exc.message)
    except ValidationError as exc:  # options stored by an earlier, laxer version
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "options"
        fail_upload(conn, upload_id, f"the upload's options are no longer valid: {field}: {first['msg']}")
    except (psycopg.errors.DataError, psycopg.errors.IntegrityError) as exc:
        # Data the database refuses would be refused on every retry: settle the upload instead.
        logger.exception("upload could not be stored", extra={"upload_id": str(upload_id)})
        fail_upload(conn, upload_id, f"the document could not be stored: {exc.diag.message_primary}")
    return "failed", []


def _fetch_checked(bucket: str, key: str, up: PendingUpload) -> str:
    client = s3.client()
    head = client.head_object(Bucket=bucket, Key=key)
    size = int(head["ContentLength"])
    if size > HARD_MAX_BYTES:
        raise UploadRejected(
            f"object is {size} bytes; documents are limited to {HARD_MAX_BYTES} bytes"
            " (the object was deleted, nothing was ingested)"
        )
    if size != up.declared_bytes:
        raise UploadRejected(f"object is {size} bytes but {up.declared_bytes} were declared")
    raw: bytes = client.get_object(Bucket=bucket, Key=key)["Body"].read()
    if len(raw) != size:
        raise UploadRejected(f"read {len(raw)} bytes of a {size}-byte object")
    digest = content_hash(raw)
    if digest != up.sha256:
        raise UploadRejected(f"sha256 mismatch: object is {digest.hex()}, declared {up.sha256.hex()}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UploadRejected(f"the object is not valid UTF-8 (byte {exc.start})") from exc
    if (nul := raw.find(b"\x00")) >= 0:  # valid UTF-8, but PostgreSQL text cannot hold it
        raise UploadRejected(f"the object must not contain NUL (\\u0000) characters (byte {nul})")
    return text

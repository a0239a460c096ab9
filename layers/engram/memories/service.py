"""Storing, reading, listing, changing and deleting memories.

Writes never wait for a model: content is chunked, chunks are stored with NULL vectors, and
embedding jobs go to the queue after commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from pydantic import ValidationError

from engram.adapters.queue import enqueue_embedding
from engram.core.activity import record_activity
from engram.core.config import settings
from engram.core.db import Conn, in_tenant_transaction, tenant_transaction
from engram.core.errors import Conflict, InvalidField, NotFound, TooLarge
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.core.models import EvidenceTurn, Memory, MemoryDetail, MemoryWrite, NewMemory
from engram.indexing.chunks import insert_chunk_groups
from engram.memories import store
from engram.memories.keys import supersede_by_key
from engram.memories.models import (
    BatchItemResult,
    BatchResult,
    MemoryCreate,
    MemoryPage,
    MemoryPatch,
    MemoryWritten,
)
from engram.memories.store import (
    Headed,
    MemoryHead,
    deactivate_chunks,
    given_chunks,
    memory_chunks,
    memory_page,
    relabel_chunks,
    replace_chunks,
    trash_memory,
    untrash_memory,
    update_memory,
    upsert_memory,
)

# read_memory, write_memory(s) and rechunk_memory are part of this service: other capabilities
# (documents, consolidation) read and write memories inside their own transaction.
# evidence_turns, insert_evidence, add_repetitions, end_validity and trash_in too: extraction records
# where a derived memory came from and acts on stored memories inside its own transaction; recall
# shows the evidence beside its results.
__all__ = [
    "add_repetitions",
    "check_content_size",
    "create_batch",
    "create_memory",
    "delete_memory",
    "end_validity",
    "evidence_turns",
    "get_memory",
    "insert_evidence",
    "list_memories",
    "patch_memory",
    "read_memory",
    "rechunk_memory",
    "restore_memory",
    "trash_in",
    "untrash_in",
    "write_memories",
    "write_memory",
]


def check_content_size(content: str, field: str = "content") -> None:
    limit = settings().max_memory_chars
    if len(content) > limit:
        raise TooLarge(
            field, len(content.encode()), limit, "Store large text with POST /v1/documents, which chunks it for recall."
        )


def _check_validity(valid_from: datetime | None, valid_to: datetime | None) -> None:
    if valid_from and valid_to and valid_to < valid_from:
        raise InvalidField("valid_to", "must not be earlier than valid_from")


def write_memories(conn: Conn, tenant_id: UUID, news: Sequence[NewMemory]) -> list[MemoryWrite]:
    """The one way memories are written (memories, batches, documents, consolidation), in the caller's
    transaction: one upsert per memory, then the chunks of every new one in one statement.

    An active duplicate (same content hash in the namespace) is bumped instead and gets no chunks.
    The caller enqueues the `chunk_ids` for embedding after its commit.
    """
    for new in news:
        _check_validity(new.valid_from, new.valid_to)
    rows = [upsert_memory(conn, tenant_id, new) for new in news]
    fresh = [(new, row) for new, row in zip(news, rows, strict=True) if row.inserted]
    chunk_ids = iter(
        insert_chunk_groups(
            conn,
            tenant_id,
            [
                (
                    row.chunk_owner(),
                    given_chunks(row, new.chunks)
                    if new.chunks is not None
                    else memory_chunks(row, new.chunk_source or new.content, new.chunking),
                )
                for new, row in fresh
            ],
        )
    )
    deactivate_chunks(conn, [row.id for new, row in fresh if new.status == "deleted"])
    return [
        MemoryWrite(id=row.id, inserted=row.inserted, chunk_ids=next(chunk_ids) if row.inserted else []) for row in rows
    ]


def write_memory(conn: Conn, tenant_id: UUID, new: NewMemory) -> MemoryWrite:
    """One memory: see write_memories."""
    return write_memories(conn, tenant_id, [new])[0]


def rechunk_memory(conn: Conn, tenant_id: UUID, memory: Headed, text: str) -> list[UUID]:
    """New content for a memory already updated in the caller's transaction (a PATCH, a consolidation
    merge): its chunks are replaced, vectors pending. `memory` holds id, namespace, kind, tags, source
    and created_at; the caller enqueues the returned ids after its commit."""
    return replace_chunks(conn, tenant_id, memory if isinstance(memory, MemoryHead) else MemoryHead.of(memory), text)


def _new_memory(req: MemoryCreate) -> NewMemory:
    check_content_size(req.content)
    _check_validity(req.valid_from, req.valid_to)
    return NewMemory.model_validate(req.model_dump())


def create_memory(tenant_id: UUID, req: MemoryCreate, idempotency: IdempotencyKey | None = None) -> MemoryWritten:
    """One memory (deduplicated by content); a keyed retry gets the first answer and writes nothing."""
    new = _new_memory(req)
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, MemoryWritten)) is not None:
            return first
        written = write_memory(conn, tenant_id, new)
        superseded = (
            supersede_by_key(conn, tenant_id, written.id, new.namespace, new.conflict_key) if new.conflict_key else []
        )
        record_activity(conn, [req.namespace])  # the next scheduled consolidation covers it
        result = MemoryWritten(
            memory=read_memory(conn, written.id), deduplicated=not written.inserted, superseded=superseded
        )
        remember(conn, idempotency, result)
    enqueue_embedding(tenant_id, written.chunk_ids)
    return result


def _error_body(exc: ValidationError | InvalidField | TooLarge) -> dict[str, Any]:
    """One batch item's error, in the same envelope a single request would get."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        exc = InvalidField(
            ".".join(str(p) for p in first["loc"]) or "item", str(first["msg"]).removeprefix("Value error, ")
        )
    return {"code": exc.code, "message": exc.message, "details": exc.details}


def create_batch(
    tenant_id: UUID, items: list[dict[str, Any]], idempotency: IdempotencyKey | None = None
) -> BatchResult:
    """Up to max_batch_items; each item succeeds or fails on its own, in one transaction.

    Items are validated first (a bad one is reported and writes nothing), then the valid ones are
    written together: one upsert each and all their chunks in one statement.
    """
    limit = settings().max_batch_items
    if len(items) > limit:
        raise InvalidField("items", f"at most {limit} items per batch, got {len(items)}", limit=limit)
    results: dict[int, BatchItemResult] = {}
    valid: list[tuple[int, NewMemory]] = []
    for index, raw in enumerate(items):
        try:
            valid.append((index, _new_memory(MemoryCreate.model_validate(raw))))
        except (ValidationError, InvalidField, TooLarge) as exc:
            results[index] = BatchItemResult(index=index, status="error", error=_error_body(exc))
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, BatchResult)) is not None:
            return first
        written = write_memories(conn, tenant_id, [new for _, new in valid])
        record_activity(conn, {new.namespace for _, new in valid})
        for n, ((index, new), w) in enumerate(zip(valid, written, strict=True)):  # in order: a later item wins
            later = [x.id for x in written[n + 1 :] if x.id != w.id]
            results[index] = BatchItemResult(
                index=index,
                status="created" if w.inserted else "deduplicated",
                memory_id=w.id,
                superseded=supersede_by_key(conn, tenant_id, w.id, new.namespace, new.conflict_key, later)
                if new.conflict_key
                else [],
            )
        ordered = [results[i] for i in range(len(items))]
        count = {s: sum(r.status == s for r in ordered) for s in ("created", "deduplicated", "error")}
        result = BatchResult(
            results=ordered, created=count["created"], deduplicated=count["deduplicated"], failed=count["error"]
        )
        remember(conn, idempotency, result)
    enqueue_embedding(tenant_id, [chunk_id for w in written for chunk_id in w.chunk_ids])
    return result


def get_memory(tenant_id: UUID, memory_id: UUID, include_deleted: bool = False) -> MemoryDetail:
    """The memory, and for one derived from conversations the turns it came from (its evidence)."""
    with tenant_transaction(tenant_id) as conn:
        memory = read_memory(conn, memory_id, deleted=None if include_deleted else False)
        evidence = evidence_turns(conn, [memory_id]).get(memory_id, []) if memory.source == "extraction" else []
    return MemoryDetail(**memory.model_dump(), evidence=evidence)


def end_validity(conn: Conn, memory_id: UUID, valid_to: datetime | None) -> datetime | None:
    """Set the active memory's valid_to (None: valid again), a new version as a PATCH makes; returns the
    valid_to it had. NotFound when it is not active."""
    current = read_memory(conn, memory_id)
    if update_memory(conn, memory_id, {"valid_to": valid_to}) is None:
        raise NotFound(f"memory {memory_id} not found")
    return current.valid_to


def trash_in(conn: Conn, memory_id: UUID) -> bool:
    """The caller's transaction moves the memory to the trash (False: it was not active)."""
    return trash_memory(conn, memory_id)


def untrash_in(conn: Conn, memory_id: UUID) -> bool:
    """The caller's transaction brings the memory back from the trash (False: it was not there)."""
    return untrash_memory(conn, memory_id)


def patch_memory(tenant_id: UUID, memory_id: UUID, patch: MemoryPatch) -> Memory:
    changes = patch.model_dump(exclude_unset=True)  # never empty: the model refuses an empty patch
    for field in ("kind", "importance", "tags", "metadata", "critical"):
        if field in changes and changes[field] is None:
            raise InvalidField(field, "cannot be null")
    if "content" in changes:
        check_content_size(changes["content"])
    chunk_ids: list[UUID] = []
    with tenant_transaction(tenant_id) as conn:
        current = read_memory(conn, memory_id)
        _check_validity(changes.get("valid_from", current.valid_from), changes.get("valid_to", current.valid_to))
        row = update_memory(conn, memory_id, changes)
        if row is None:  # deleted by a concurrent request after it was read above
            raise NotFound(f"memory {memory_id} not found")
        record_activity(conn, [row.namespace])
        if changes.get("conflict_key"):
            supersede_by_key(conn, tenant_id, memory_id, row.namespace, changes["conflict_key"])
        if "content" in changes:
            chunk_ids = rechunk_memory(conn, tenant_id, row, changes["content"])
        elif changes.keys() & {"kind", "tags", "source"}:
            relabel_chunks(conn, row)
        memory = read_memory(conn, memory_id)
    enqueue_embedding(tenant_id, chunk_ids)
    return memory


def delete_memory(tenant_id: UUID, memory_id: UUID) -> Memory:
    """Soft delete: the memory goes to the trash and out of recall; restore brings it back.
    Trash and restore take turns on the tenant's links (migration 0013): a deadlock with another
    one is run again (every effect is in the transaction)."""

    def trash(conn: Conn) -> Memory:
        if not trash_memory(conn, memory_id):
            raise NotFound(f"memory {memory_id} not found")
        return read_memory(conn, memory_id, deleted=True)

    return in_tenant_transaction(tenant_id, trash)


def restore_memory(tenant_id: UUID, memory_id: UUID) -> Memory:
    """Out of the trash, its links revived (see delete_memory)."""

    def restore(conn: Conn) -> Memory:
        if not untrash_memory(conn, memory_id):
            read_memory(conn, memory_id)  # 404 when there is no such memory at all
            raise Conflict(f"memory {memory_id} is active: only a memory in the trash can be restored")
        return read_memory(conn, memory_id)

    return in_tenant_transaction(tenant_id, restore)


def list_memories(
    tenant_id: UUID,
    *,
    namespace: str | None = None,
    tags: list[str] | None = None,
    kind: str | None = None,
    layer: str | None = None,
    deleted: bool = False,
    since: datetime | None = None,
    until: datetime | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> MemoryPage:
    with tenant_transaction(tenant_id) as conn:
        items, next_cursor = memory_page(
            conn,
            cursor=cursor,
            limit=limit,
            filters=[
                ("m.status = %s", "deleted" if deleted else "active"),
                ("m.namespace = %s", namespace),
                ("m.tags @> %s", tags),
                ("m.kind = %s", kind),
                ("m.layer = %s", layer),
                ("m.created_at >= %s", since),
                ("m.created_at < %s", until),
            ],
        )
    return MemoryPage(items=items, next_cursor=next_cursor)


# --- in the caller's transaction, for other capabilities ------------------------------------------


def read_memory(conn: Conn, memory_id: UUID, *, deleted: bool | None = False) -> Memory:
    """One memory inside the caller's tenant transaction: active (default), trashed, or either (None);
    NotFound otherwise."""
    return store.read_memory(conn, memory_id, deleted=deleted)


def evidence_turns(conn: Conn, memory_ids: Sequence[UUID]) -> dict[UUID, list[EvidenceTurn]]:
    """The turns each derived memory came from, in conversation order (none: no entry)."""
    return store.evidence_turns(conn, memory_ids)


def insert_evidence(
    conn: Conn,
    tenant_id: UUID,
    memory_id: UUID,
    conversation_id: UUID,
    message_ids: Sequence[UUID],
    run_id: UUID | None,
) -> None:
    """Record the turns a derived memory came from (a turn recorded twice is kept once)."""
    store.insert_evidence(conn, tenant_id, memory_id, conversation_id, message_ids, run_id)


def add_repetitions(conn: Conn, memory_id: UUID, delta: int) -> bool:
    """A restatement: the memory was said again (or, undone, one saying fewer); False when not active."""
    return store.add_repetitions(conn, memory_id, delta)

"""Erasure: hard deletes that reach every copy, with an audit record that outlives them.

- ``erase_memory``: one memory (active or in the trash), POST /v1/memories/{id}/erase and MCP's erase_memory.
- ``create_erasure``: everything a selector covers (memories, conversations, documents), POST /v1/erasures.
- ``erase_expired_trash``: the scheduled work empties the trash after ``trash_retention_days``.
- ``erase_tenant``: a tenant and everything it owns (its admin's route, the `engram erase-tenant` CLI).

What goes with a memory: its row, chunks and vectors, versions, links, Tier 2 body and pages, upload
record, leaf membership, its feedback weight and the recall events (with their feedback) that returned
it; its rows, chunks and reasons in consolidation actions (undo restores the rest
and names what it cannot); the stored Idempotency-Key answers naming it; the words only it gave a topic
name; the export files that may hold it. Memories derived from it follow `cascade`. All of it in one
transaction with the audit record; S3 objects are deleted after the commit.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import psycopg
from aws_lambda_powertools import Logger

from engram.adapters import s3
from engram.adapters.queue import enqueue_embedding
from engram.conversations import service as conversations
from engram.conversations.models import Message
from engram.core.config import settings
from engram.core.db import Conn, anonymous_transaction, tenant_transaction
from engram.core.errors import InvalidField, NotFound
from engram.erasure import extraction_store, store
from engram.erasure.models import Cascade, ErasedIds, Erasure, ErasureCounts, ErasureCreate
from engram.erasure.rows import NewErasure
from engram.erasure.settings import erasure_settings
from engram.feedback import service as feedback
from engram.topics import service as topics

__all__ = [
    "Actor",
    "create_erasure",
    "erase_expired_trash",
    "erase_memory",
    "erase_tenant",
    "get_erasure",
    "redact_turn",
]

logger = Logger()

Actor = str  # "api" | "mcp" | "schedule" | "cli"


@dataclass
class _Erased:
    counts: ErasureCounts = field(default_factory=ErasureCounts)
    ids: ErasedIds = field(default_factory=ErasedIds)
    namespaces: list[str] | None = None  # of what it erased (None: the whole tenant)
    s3_keys: list[str] = field(default_factory=list)  # deleted after commit


def _erase(
    conn: Conn,
    erasure_id: UUID,
    memory_ids: list[UUID],
    conversation_ids: list[UUID],
    cascade: Cascade,
    dry_run: bool,
) -> _Erased:
    """Everything of these memories (existing ones, locked by the caller) and conversations, in the
    caller's transaction. A dry run does the same work in a savepoint it rolls back, so its counts and
    ids are exactly what the erasure would touch (consolidation actions, idempotent answers, topics and
    exports included, which only doing it tells), and it deletes no S3 object."""
    if not dry_run:
        return _erase_now(conn, erasure_id, memory_ids, conversation_ids, cascade)
    with conn.transaction():
        planned = _erase_now(conn, erasure_id, memory_ids, conversation_ids, cascade)
        raise psycopg.Rollback()
    planned.s3_keys = []
    return planned


def _erase_now(
    conn: Conn, erasure_id: UUID, memory_ids: list[UUID], conversation_ids: list[UUID], cascade: Cascade
) -> _Erased:
    out = _Erased()
    derived = store.derived_from(conn, memory_ids) if memory_ids else []
    if conversation_ids:  # what extraction learned from the turns: a copy of what they said
        learned = [
            m for m in extraction_store.derived_from_conversations(conn, conversation_ids) if m not in memory_ids
        ]
        derived = sorted({*derived, *learned, *store.derived_from(conn, learned)} - set(memory_ids))
    targets = memory_ids + derived if cascade == "erase" else list(memory_ids)
    out.ids.memories = targets
    out.ids.derived = derived if cascade == "erase" else []
    out.ids.derived_kept = [] if cascade == "erase" else derived
    out.ids.conversations = list(conversation_ids)
    copies = store.copy_counts(conn, targets, conversation_ids)
    out.counts = ErasureCounts(
        memories=len(targets),
        derived=len(out.ids.derived),
        derived_kept=len(out.ids.derived_kept),
        conversations=len(conversation_ids),
        **asdict(copies),
    )
    namespaces = store.namespaces_of(conn, targets, conversation_ids)
    out.namespaces = namespaces
    if not (targets or conversation_ids):
        return out
    feedback.forget(conn, targets, conversation_ids)  # weights and recall events naming them, before they go
    if targets:
        store.trash_active(conn, targets)
        gone_words = topics.erased_words(store.memory_texts(conn, targets))
        holding = topics.topics_holding(conn, targets)
        out.counts.consolidation_actions, out.ids.consolidation_runs = store.scrub_actions(conn, targets)
        out.counts.extraction_actions = extraction_store.scrub_extraction(conn, targets)
        erased = {str(i) for i in targets}
        renamed: list[tuple[str, str, str]] = []  # (topic id, old name, new name): quoted by lineage
        for r in store.tree_images_with(conn, targets):
            image = r.before_image
            image["topic_tree"], in_image = topics.scrub_tree_image(image["topic_tree"], erased, gone_words)
            store.replace_tree_image(conn, r.run_id, r.seq, image)
            renamed += in_image
            out.counts.consolidation_actions += 1
        out.s3_keys += store.delete_uploads(conn, targets)
        store.delete_verdicts(conn, targets)
        store.delete_memories(conn, targets)
        forgot = topics.forget_memories(conn, holding, gone_words)
        for topic_id, old, new in dict.fromkeys(renamed + forgot.renamed):
            store.rename_in_lineage(conn, topic_id, old, new)
        out.counts.topics_renamed, out.counts.topics_removed = len(forgot.renamed), forgot.removed
    out.counts.idempotent_answers = store.delete_idempotent_answers(conn, targets + list(conversation_ids))
    store.delete_conversations(conn, conversation_ids)
    exports = store.retire_exports(conn, namespaces, erasure_id)
    out.ids.exports = [e.id for e in exports]
    out.counts.exports = len(exports)
    out.s3_keys += [e.s3_key for e in exports if e.s3_key]
    return out


def _record(
    conn: Conn,
    tenant_id: UUID,
    erasure_id: UUID,
    *,
    scope: str,
    selector: dict[str, Any],
    cascade: Cascade,
    dry_run: bool,
    erased: _Erased,
    actor: Actor,
    key_id: UUID | None,
) -> Erasure:
    return store.insert_erasure(
        conn,
        tenant_id,
        NewErasure(
            id=erasure_id,
            scope=scope,
            actor=actor,
            key_id=key_id,
            selector=selector,
            dry_run=dry_run,
            cascade=cascade,
            counts=erased.counts.model_dump(),
            ids=erased.ids.model_dump(mode="json"),
            namespaces=erased.namespaces,
        ),
    )


def _delete_objects(keys: list[str]) -> None:
    """After the commit (S3 is not in the transaction): best effort, the bucket's lifecycle rules
    remove what a failure here leaves (uploads after a day, exports after their expiry)."""
    bucket = settings().uploads_bucket
    if bucket:
        for key in keys:
            s3.delete_object(bucket, key)


def erase_memory(
    tenant_id: UUID, memory_id: UUID, *, cascade: Cascade = "erase", actor: Actor = "api", key_id: UUID | None = None
) -> Erasure:
    """One memory, active or in the trash. Idempotent: a memory erased already answers with the
    erasure that took it; one that never existed (or is another tenant's) is a 404."""
    erasure_id = uuid4()
    with tenant_transaction(tenant_id) as conn:
        if not store.existing_memories(conn, [memory_id]):
            earlier = store.erasure_of_memory(conn, memory_id)
            if earlier is None:
                raise NotFound(f"memory {memory_id} not found")
            return earlier
        erased = _erase(conn, erasure_id, [memory_id], [], cascade, dry_run=False)
        record = _record(
            conn,
            tenant_id,
            erasure_id,
            scope="memory",
            selector={"memory_id": str(memory_id)},
            cascade=cascade,
            dry_run=False,
            erased=erased,
            actor=actor,
            key_id=key_id,
        )
    _delete_objects(erased.s3_keys)
    logger.info("erased", extra={"erasure_id": str(erasure_id), "scope": "memory", **erased.counts.model_dump()})
    return record


def redact_turn(
    tenant_id: UUID, conversation_id: UUID, seq: int, *, actor: Actor = "api", key_id: UUID | None = None
) -> Message:
    """A conversation turn (a task event) redacted from every copy, in one transaction: its content goes
    from the message and the windows that show it (conversations.redact), and what extraction learned
    from it is erased with it, with an audit record naming the turn (never its content)."""
    erasure_id = uuid4()
    with tenant_transaction(tenant_id) as conn:
        message, chunk_ids = conversations.redact(conn, tenant_id, conversation_id, seq)
        learned = extraction_store.derived_from_messages(conn, [message.id])
        erased = _erase(conn, erasure_id, learned, [], "erase", dry_run=False) if learned else None
        if erased is not None:
            _record(
                conn,
                tenant_id,
                erasure_id,
                scope="subject",
                selector={"conversation_id": str(conversation_id), "seq": seq, "redacted": True},
                cascade="erase",
                dry_run=False,
                erased=erased,
                actor=actor,
                key_id=key_id,
            )
    enqueue_embedding(tenant_id, chunk_ids)
    if erased is not None:
        _delete_objects(erased.s3_keys)
    return message


def create_erasure(tenant_id: UUID, req: ErasureCreate, *, actor: Actor = "api", key_id: UUID | None = None) -> Erasure:
    """Everything the selector covers, in one transaction (the request waits for it: up to
    erasure_max_memories memories). A dry run records what it would erase and erases nothing."""
    selector = req.selector.model_dump(mode="json", exclude_none=True)
    limit = erasure_settings().erasure_max_memories
    erasure_id = uuid4()
    with tenant_transaction(tenant_id) as conn:
        memory_ids = store.selected_memories(conn, req.selector)
        if len(memory_ids) > limit:
            raise InvalidField(
                "selector",
                f"covers {len(memory_ids)} memories; one erasure erases at most {limit}"
                " (ENGRAM_ERASURE_MAX_MEMORIES): narrow it with since/until and erase it in parts",
                limit=limit,
            )
        memory_ids = store.existing_memories(conn, memory_ids)
        conversation_ids = store.selected_conversations(conn, req.selector)
        erased = _erase(conn, erasure_id, memory_ids, conversation_ids, req.cascade, dry_run=req.dry_run)
        record = _record(
            conn,
            tenant_id,
            erasure_id,
            scope="subject",
            selector=selector,
            cascade=req.cascade,
            dry_run=req.dry_run,
            erased=erased,
            actor=actor,
            key_id=key_id,
        )
    _delete_objects(erased.s3_keys)
    logger.info(
        "erased",
        extra={"erasure_id": str(erasure_id), "scope": "subject", "dry_run": req.dry_run, **erased.counts.model_dump()},
    )
    return record


def get_erasure(tenant_id: UUID, erasure_id: UUID) -> Erasure:
    with tenant_transaction(tenant_id) as conn:
        erasure = store.read_erasure(conn, erasure_id)
    if erasure is None:
        raise NotFound(f"erasure {erasure_id} not found")
    return erasure


def erase_expired_trash(limit: int = 5000) -> dict[str, int]:
    """The scheduled work: memories in the trash for longer than trash_retention_days are erased, one
    audit record per tenant. Derived memories stay (cascade none): expiry is housekeeping of what was
    deleted, not an erasure request; POST /v1/memories/{id}/erase is that."""
    days = erasure_settings().trash_retention_days
    with anonymous_transaction() as conn:
        rows = store.expired_trash(conn, days, limit)
    by_tenant: dict[UUID, list[UUID]] = defaultdict(list)
    for r in rows:
        by_tenant[r.tenant_id].append(r.memory_id)
    erased_total = 0
    for tenant_id, ids in by_tenant.items():
        erasure_id = uuid4()
        try:
            with tenant_transaction(tenant_id) as conn:
                found = store.existing_memories(conn, ids)
                erased = _erase(conn, erasure_id, found, [], "none", dry_run=False)
                cutoff = datetime.now(UTC) - timedelta(days=days)
                _record(
                    conn,
                    tenant_id,
                    erasure_id,
                    scope="trash",
                    selector={"deleted_before": cutoff.isoformat(), "retention_days": days},
                    cascade="none",
                    dry_run=False,
                    erased=erased,
                    actor="schedule",
                    key_id=None,
                )
        except Exception:  # one tenant's failure must not stop the others; the next sweep tries again
            logger.exception("trash expiry failed", extra={"tenant_id": str(tenant_id)})
            continue
        _delete_objects(erased.s3_keys)
        erased_total += erased.counts.memories
    result = {"tenants": len(by_tenant), "memories": erased_total}
    logger.info("trash expired", extra=result)
    return result


def erase_tenant(tenant_id: UUID, *, actor: Actor = "api", key_id: UUID | None = None) -> Erasure:
    """The tenant and every row it owns (keys included: its API stops answering it at once), then its S3
    objects (uploads, exports, imports). The audit record, with the row counts per table, stays."""
    erasure_id = uuid4()
    with tenant_transaction(tenant_id) as conn:
        if not store.tenant_exists(conn):
            raise NotFound(f"tenant {tenant_id} not found")
        rows = store.tenant_row_counts(conn)
        keys = store.tenant_object_keys(conn)
        erased = _Erased()
        erased.counts = ErasureCounts(
            memories=rows.memories,
            versions=rows.memory_versions,
            chunks=rows.chunks,
            links=rows.links,
            documents=rows.documents,
            document_pages=rows.document_pages,
            uploads=rows.document_uploads,
            conversations=rows.conversations,
            messages=rows.messages,
            idempotent_answers=rows.idempotency_keys,
            exports=rows.exports,
        )
        record = _record(
            conn,
            tenant_id,
            erasure_id,
            scope="tenant",
            selector={"tenant_id": str(tenant_id), "rows": asdict(rows), "objects": len(keys)},
            cascade="erase",
            dry_run=False,
            erased=erased,
            actor=actor,
            key_id=key_id,
        )
        store.erase_tenant(conn, tenant_id)
    _delete_objects(keys)
    logger.info("tenant erased", extra={"erasure_id": str(erasure_id), "tenant_id": str(tenant_id), **asdict(rows)})
    return record

"""Extraction runs as the API shows them (a run with its actions and their evidence turns), and undo."""

from __future__ import annotations

from uuid import UUID

from engram.conversations import service as conversations
from engram.core.db import Conn, tenant_transaction
from engram.core.errors import Conflict
from engram.extraction import store
from engram.extraction.models import ExtractionAction, ExtractionRun, ExtractionRunDetail, ExtractionRunPage
from engram.graph import service as graph
from engram.memories import service as memories


def list_runs(
    tenant_id: UUID,
    *,
    namespace: str | None = None,
    conversation_id: UUID | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> ExtractionRunPage:
    with tenant_transaction(tenant_id) as conn:
        rows, next_cursor = store.run_page(
            conn, namespace=namespace, conversation_id=conversation_id, cursor=cursor, limit=limit
        )
        counts = store.action_counts(conn, [r.id for r in rows])
    items = [r.model_copy(update={"counts": counts.get(r.id, {})}) for r in rows]
    return ExtractionRunPage(items=items, next_cursor=next_cursor)


def get_run(tenant_id: UUID, run_id: UUID) -> ExtractionRunDetail:
    """A run with its actions, each with its evidence turns verbatim."""
    with tenant_transaction(tenant_id) as conn:
        run = _read_run(conn, run_id)
        actions = store.run_actions(conn, run_id)
        evidence = memories.evidence_turns(conn, [a.memory_id for a in actions if a.memory_id])
    counts: dict[str, int] = {}
    for a in actions:
        counts[a.action] = counts.get(a.action, 0) + 1
    shaped = [
        ExtractionAction(
            seq=a.seq,
            action=a.action,  # type: ignore[arg-type]
            kind=a.kind,  # type: ignore[arg-type]
            content=a.content,
            event_date=a.event_date,
            memory_id=a.memory_id,
            target_id=a.target_id,
            evidence_seqs=a.evidence_seqs,
            evidence=evidence.get(a.memory_id, []) if a.memory_id else [],
        )
        for a in actions
    ]
    return ExtractionRunDetail(**run.model_dump(exclude={"counts"}), counts=counts, actions=shaped)


def _read_run(conn: Conn, run_id: UUID) -> ExtractionRun:
    return ExtractionRun.model_validate(store.read_run(conn, run_id).model_dump())


def undo_run(tenant_id: UUID, run_id: UUID) -> ExtractionRunDetail:
    """Every action of a done run reversed, newest first: added memories to the trash, updates
    unlinked (the old memory valid again), invalidations lifted, restatements uncounted; the summary
    as it was. The turns stay read (undo does not ask the model again)."""
    with tenant_transaction(tenant_id) as conn:
        run = store.lock_run(conn, run_id)
        if run.status != "done" or run.dry_run:
            raise Conflict(
                f"only a done, applied run can be undone; this one is {'a dry run' if run.dry_run else run.status}"
            )
        for a in reversed(store.run_actions(conn, run_id)):
            if a.link_id is not None:
                graph.remove_links(conn, link_ids=[a.link_id])
            if a.memory_id is not None:
                memories.trash_in(conn, a.memory_id)
            if a.action == "invalidate" and a.target_id is not None:
                memories.end_validity(conn, a.target_id, a.target_valid_to)
            if a.action == "restate" and a.target_id is not None:
                memories.add_repetitions(conn, a.target_id, -1)
        if run.conversation_id is not None and run.summary_after is not None:
            conversations.restore_summary(conn, run.conversation_id, run.summary_before)
            if run.summary_memory_id is not None:
                memories.trash_in(conn, run.summary_memory_id)
            if run.previous_summary_memory_id is not None:
                memories.untrash_in(conn, run.previous_summary_memory_id)
        store.mark_undone(conn, run_id)
    return get_run(tenant_id, run_id)

"""Undo of an applied consolidation run: every change it made put back from its before-images."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

from engram.consolidation import memory_store, store
from engram.consolidation.models import Run
from engram.consolidation.run_views import read_run, run_model
from engram.consolidation.store import RunRow
from engram.core.db import Conn, tenant_transaction
from engram.core.errors import Conflict
from engram.graph.service import remove_links
from engram.topics.service import place_unplaced, restore_tree

__all__ = ["undo_run"]


def _put_back(conn: Conn, tenant_id: UUID, run: RunRow) -> None:
    """Every applied action of the run undone, the last first."""
    memory_columns = memory_store.table_columns(conn, "memories")  # once, not per action
    chunk_columns = memory_store.table_columns(conn, "chunks")
    tree_restored = False
    for action in reversed(store.applied_actions(conn, run.id)):
        image = action.before_image or {}
        if "topic_tree" in image:
            restore_tree(conn, run.namespace, image["topic_tree"])
            tree_restored = True
        if action.links_created:
            remove_links(conn, link_ids=action.links_created)
        if "decay" in image:
            memory_store.restore_decay(conn, image["decay"])
        if "memories" in image:
            memory_store.restore_memory_images(conn, image["memories"], memory_columns)
        for memory_id, chunks in (image.get("chunks") or {}).items():
            memory_store.restore_chunk_images(conn, UUID(memory_id), chunks, chunk_columns)
        if image.get("created"):  # memories the run wrote (distillation): gone, chunks and all
            memory_store.delete_created_memories(conn, [UUID(i) for i in image["created"]])
    if tree_restored:  # memories placed into the run's tree since it was built
        place_unplaced(conn, tenant_id, run.namespace)


def undo_run(tenant_id: UUID, run_id: UUID) -> Run:
    """Put back exactly what the run changed: rows from their before-images, links it wrote removed,
    trash restored, memories it wrote (distillation) deleted, the topic tree it replaced back.
    Refused when one of its memories changed since (named), or a later applied run of the namespace
    exists (undo that first)."""
    with tenant_transaction(tenant_id) as conn:
        run = read_run(conn, run_id, lock=True)
        if run.dry_run:
            raise Conflict("a dry run changed nothing: there is nothing to undo")
        if run.status == "undone":
            raise Conflict(f"run {run_id} was undone already")
        if run.status in ("queued", "running"):
            raise Conflict(f"run {run_id} is {run.status}: undo it once it has finished")
        later = store.later_applied_run(conn, run)
        if later:
            raise Conflict(
                f"run {later} ran after this one in namespace {run.namespace!r}: undo it first",
                {"later_run_id": str(later)},
            )
        changed = store.changed_since_run(conn, run_id)
        if changed:
            shown = ", ".join(map(str, changed[:20])) + (" ..." if len(changed) > 20 else "")
            raise Conflict(
                f"{len(changed)} memories changed since the run: {shown}",
                {"changed_memories": [str(i) for i in changed]},
            )
        _put_back(conn, tenant_id, run)
        store.delete_run_verdicts(conn, run_id)
        store.rewind_namespace(conn, run)
        store.update_run(conn, run_id, {"status": "undone", "undone_at": datetime.now(UTC)})
        return run_model(read_run(conn, run_id))

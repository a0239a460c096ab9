"""One memory absorbing another (a merge or a supersede) and the lineage links it leaves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from uuid import UUID

import psycopg
from aws_lambda_powertools import Logger

from engram.consolidation import memory_store
from engram.consolidation.memory_store import MemoryRow
from engram.consolidation.merging import changed_fields, merged_fields
from engram.consolidation.steps.context import Details, StepContext
from engram.core.errors import EngramError
from engram.core.models import Relation
from engram.core.text import content_hash
from engram.graph.models import LinkCreate
from engram.graph.service import write_links
from engram.memories.service import rechunk_memory

logger = Logger()


def lineage(
    ctx: StepContext, newer: UUID, olders: Sequence[UUID], relations: Sequence[Relation], reason: str
) -> list[UUID]:
    """The run's links from `newer` to each of `olders` (supersedes ends an older memory's validity,
    so `as_of` still finds it; derived_from keeps where a text came from). Returns the link ids."""
    written = write_links(
        ctx.conn,
        ctx.tenant_id,
        [
            LinkCreate(from_id=newer, to_id=older, relation=rel, metadata={"reason": reason[:200]})
            for older in olders
            for rel in relations
        ],
        created_by="consolidation",
        run_id=ctx.run_id,
    )
    return [link.id for link in written]


def absorb(
    ctx: StepContext,
    step: str,
    action: str,
    survivor: MemoryRow,
    other: MemoryRow,
    reason: str,
    details: Details,
    *,
    content: str | None,
    relations: Sequence[Relation],
) -> None:
    """`survivor` takes the other's counts, importance and tags (and new content, if given); the other is
    superseded through the graph (its valid_to set), never deleted."""
    fields = merged_fields(survivor, [other])
    changes = changed_fields(survivor, fields)
    if content is not None and content != survivor.content:
        changes.update(content=content, content_hash=content_hash(content))
    ids = [survivor.id, other.id]
    before: Details = {"memories": [survivor.image, other.image]}
    links: list[UUID] = []
    if ctx.apply:
        try:
            with ctx.conn.transaction():  # a savepoint: a clash undoes only this merge
                new_chunks: list[UUID] = []
                if "content" in changes:
                    before["chunks"] = {str(survivor.id): memory_store.chunk_images(ctx.conn, survivor.id)}
                    memory_store.update_memory(ctx.conn, survivor.id, {**changes, "version": survivor.version + 1})
                    new_chunks = rechunk_memory(
                        ctx.conn, ctx.tenant_id, replace(survivor, tags=fields["tags"]), content or ""
                    )
                elif changes:
                    memory_store.update_memory(ctx.conn, survivor.id, changes)
                links = lineage(ctx, survivor.id, [other.id], relations, reason)
        except (psycopg.errors.UniqueViolation, EngramError) as exc:
            # Another active memory already has the merged text, or a link of this pair exists.
            logger.info("merge skipped", extra={"memories": [str(i) for i in ids], "error": str(exc)[:200]})
            return
        ctx.chunk_ids += new_chunks
        ctx.consumed.add(other.id)
        ctx.changed.add(survivor.id)
    ctx.act(
        step,
        action,
        ids,
        reason,
        details={
            **details,
            "survivor": str(survivor.id),
            "superseded": str(other.id),
            "changes": sorted(k for k in changes if k != "content_hash"),
            "links": list(relations),
        },
        before=before,
        links=links,
    )


# A batch is one transaction: once it has made this many LLM calls it ends at the next memory
# boundary, so locks stay short and the worker's time budget is checked often.

"""Demotion: core memories that do not belong there (session notes, ephemeral) go back to working."""

from __future__ import annotations

from engram.consolidation import memory_store
from engram.consolidation.lifecycle import demotion_reason
from engram.consolidation.steps.context import Cursor, StepContext, after_id, move_layer, next_cursor


def demote(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    rows = memory_store.live_memories(
        ctx.conn, ctx.namespace, layer="core", after=after_id(cursor), limit=ctx.batch_size, lock=ctx.apply
    )
    for m in rows:
        reason = demotion_reason(m)
        if reason:
            move_layer(ctx, m, "demote", "demote", "working", reason)
    return next_cursor([r.id for r in rows], ctx.batch_size)

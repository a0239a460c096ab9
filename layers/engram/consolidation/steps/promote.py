"""Promotion: buffer memories reinforced enough (or procedural and lessons, after some epochs) move to working."""

from __future__ import annotations

from engram.consolidation import memory_store
from engram.consolidation.lifecycle import promotion_reason
from engram.consolidation.steps.context import Cursor, StepContext, after_id, move_layer, next_cursor


def promote(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    rows = memory_store.live_memories(
        ctx.conn, ctx.namespace, layer="buffer", after=after_id(cursor), limit=ctx.batch_size, lock=ctx.apply
    )
    for m in rows:
        reason = promotion_reason(m, ctx.epoch, ctx.rules)
        if reason:
            move_layer(ctx, m, "promote", "promote", "working", reason)
    return next_cursor([r.id for r in rows], ctx.batch_size)

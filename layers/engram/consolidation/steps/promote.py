"""Promotion: buffer memories reinforced enough (or procedural and lessons, after some epochs) move to working."""

from __future__ import annotations

from typing import Any

from engram.consolidation import store
from engram.consolidation.lifecycle import promotion_reason
from engram.consolidation.steps.context import StepContext, after_id, move_layer, next_cursor

Row = dict[str, Any]


def promote(ctx: StepContext, cursor: Row | None) -> Row | None:
    rows = store.live_memories(
        ctx.conn, ctx.namespace, layer="buffer", after=after_id(cursor), limit=ctx.batch_size, lock=ctx.apply
    )
    for m in rows:
        reason = promotion_reason(m, ctx.epoch, ctx.rules)
        if reason:
            move_layer(ctx, m, "promote", "promote", "working", reason)
    return next_cursor(rows, ctx.batch_size)

"""Demotion: core memories that do not belong there (session notes, ephemeral) go back to working."""

from __future__ import annotations

from typing import Any

from engram.consolidation import store
from engram.consolidation.lifecycle import demotion_reason
from engram.consolidation.steps.context import StepContext, after_id, move_layer, next_cursor

Row = dict[str, Any]


def demote(ctx: StepContext, cursor: Row | None) -> Row | None:
    rows = store.live_memories(
        ctx.conn, ctx.namespace, layer="core", after=after_id(cursor), limit=ctx.batch_size, lock=ctx.apply
    )
    for m in rows:
        reason = demotion_reason(m)
        if reason:
            move_layer(ctx, m, "demote", "demote", "working", reason)
    return next_cursor(rows, ctx.batch_size)

"""Decayed buffer memories (importance at or under the drop threshold) go to the trash, except one
this run's merges kept (trashing it would bring back the duplicate it absorbed)."""

from __future__ import annotations

from engram.consolidation import memory_store, store
from engram.consolidation.steps.context import Cursor, StepContext, after_id, next_cursor


def drop_decayed(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    rows = memory_store.live_memories(
        ctx.conn,
        ctx.namespace,
        layer="buffer",
        after=after_id(cursor),
        limit=ctx.batch_size,
        lock=ctx.apply,
        max_importance=ctx.rules.drop_below,
    )
    survivors = store.merge_survivors(ctx.conn, ctx.run_id) if rows else set()
    dropped = [m for m in rows if m.id not in survivors]
    if ctx.apply and dropped:
        memory_store.trash_memories(ctx.conn, [m.id for m in dropped])
    for m in dropped:
        ctx.act(
            "drop_decayed",
            "drop_decayed",
            [m.id],
            f"decayed: importance {float(m.importance):.4f} <= {ctx.rules.drop_below}",
            details={"importance": float(m.importance)},
            before={"memories": [m.image]},
        )
    return next_cursor([r.id for r in rows], ctx.batch_size)

"""Decayed buffer memories (importance at or under the drop threshold) go to the trash."""

from __future__ import annotations

from typing import Any

from engram.consolidation import store
from engram.consolidation.steps.context import StepContext, after_id, next_cursor

Row = dict[str, Any]


def drop_decayed(ctx: StepContext, cursor: Row | None) -> Row | None:
    from psycopg import sql

    rows = store.live_memories(
        ctx.conn,
        ctx.namespace,
        layer="buffer",
        after=after_id(cursor),
        limit=ctx.batch_size,
        lock=ctx.apply,
        extra=sql.SQL("m.importance <= %s"),
        extra_params=[ctx.rules.drop_below],
    )
    if ctx.apply and rows:
        store.trash_memories(ctx.conn, [m["id"] for m in rows])
    for m in rows:
        ctx.act(
            "drop_decayed",
            "drop_decayed",
            [m["id"]],
            f"decayed: importance {float(m['importance']):.4f} <= {ctx.rules.drop_below}",
            details={"importance": float(m["importance"])},
            before={"memories": [m["image"]]},
        )
    return next_cursor(rows, ctx.batch_size)

"""Decay: one epoch of importance decay by kind for every live memory of the namespace."""

from __future__ import annotations

from typing import Any

from engram.consolidation import store
from engram.consolidation.lifecycle import decayed_importance
from engram.consolidation.steps.context import StepContext, after_id, next_cursor

Row = dict[str, Any]


def decay(ctx: StepContext, cursor: Row | None) -> Row | None:
    limit = ctx.batch_size * 10  # one small UPDATE per batch: rows are cheap here
    rows = store.decay_images(ctx.conn, ctx.namespace, after_id(cursor), limit)
    updates, images = [], []
    for r in rows:
        new = decayed_importance(float(r["importance"]), r["kind"], ctx.rules)
        epoch = r["layer_epoch"] if r["layer_epoch"] is not None else ctx.epoch
        if new != float(r["importance"]) or r["layer_epoch"] is None:
            updates.append((r["id"], new, epoch))
            images.append(r["image"])
    if updates:
        if ctx.apply:
            store.apply_decay(ctx.conn, updates)
        by_kind = {k: ctx.rules.decay[k] for k in sorted({r["kind"] for r in rows})}
        ctx.act(
            "decay",
            "decay",
            [u[0] for u in updates],
            f"epoch {ctx.epoch}: importance x factor by kind",
            details={"memories": len(updates), "factors": by_kind, "floor": ctx.rules.floor},
            before={"decay": images},
        )
    return next_cursor(rows, limit)

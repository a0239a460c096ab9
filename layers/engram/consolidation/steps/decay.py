"""Decay: one epoch of importance decay by kind for every live memory of the namespace."""

from __future__ import annotations

from engram.consolidation import memory_store
from engram.consolidation.lifecycle import decayed_importance
from engram.consolidation.steps.context import Cursor, StepContext, after_id, next_cursor


def decay(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    limit = ctx.batch_size * 10  # one small UPDATE per batch: rows are cheap here
    rows = memory_store.decay_images(ctx.conn, ctx.namespace, after_id(cursor), limit)
    updates, images = [], []
    for r in rows:
        new = decayed_importance(float(r.importance), r.kind, ctx.rules)
        epoch = r.layer_epoch if r.layer_epoch is not None else ctx.epoch
        if new != float(r.importance) or r.layer_epoch is None:
            updates.append((r.id, new, epoch))
            images.append(r.image)
    if updates:
        if ctx.apply:
            memory_store.apply_decay(ctx.conn, updates)
        by_kind = {k: ctx.rules.decay[k] for k in sorted({r.kind for r in rows})}
        ctx.act(
            "decay",
            "decay",
            [u[0] for u in updates],
            f"epoch {ctx.epoch}: importance x factor by kind",
            details={"memories": len(updates), "factors": by_kind, "floor": ctx.rules.floor},
            before={"decay": images},
        )
    return next_cursor([r.id for r in rows], limit)

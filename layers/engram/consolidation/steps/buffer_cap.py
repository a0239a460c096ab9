"""The buffer cap: over the cap, the lowest-weight buffer memories go to the trash, never one this
run's merges kept (trashing it would bring back the duplicate it absorbed)."""

from __future__ import annotations

from engram.consolidation import memory_store, store
from engram.consolidation.lifecycle import eviction_order
from engram.consolidation.steps.context import Cursor, StepContext


def buffer_cap(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    buffer = memory_store.buffer_weights(ctx.conn, ctx.namespace)
    doomed = eviction_order(buffer, ctx.rules.buffer_cap, keep=store.merge_survivors(ctx.conn, ctx.run_id))
    if not doomed:
        return None
    # Applied: evict a batch, then look again. Planned: nothing changes, so plan every eviction now.
    batch = doomed[: ctx.batch_size * 10] if ctx.apply else doomed
    images = memory_store.memories_by_id(ctx.conn, [m.id for m in batch], lock=ctx.apply)
    evicted = [m for m in batch if m.id in images]
    if ctx.apply:
        memory_store.trash_memories(ctx.conn, [m.id for m in evicted])
    for m in evicted:
        ctx.act(
            "buffer_cap",
            "evict",
            [m.id],
            f"evicted: buffer holds {len(buffer)} > cap {ctx.rules.buffer_cap}; lowest weight",
            details={"importance": float(m.importance)},
            before={"memories": [images[m.id].image]},
        )
    return {"round": (cursor or {}).get("round", 0) + 1} if ctx.apply and len(doomed) > len(batch) else None

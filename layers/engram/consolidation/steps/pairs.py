"""The neighbour pairs a batch of dedupe or reconcile looks at, and the namespace's common tokens."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from uuid import UUID

from engram.consolidation import memory_store, store
from engram.consolidation.memory_store import MemoryRow
from engram.consolidation.similarity import PairVerdict, classify_pair, common_tokens
from engram.consolidation.steps.context import BatchScan, Cursor, StepContext, after_id


def neighbour_pairs(
    ctx: StepContext,
    cursor: Cursor | None,
    min_cosine: float,
    wanted: tuple[str, ...],
    related: Callable[[MemoryRow, MemoryRow], bool] | None = None,
) -> tuple[Iterator[tuple[UUID, MemoryRow, MemoryRow, PairVerdict]], BatchScan]:
    """The pairs of this batch that fall in `wanted` classes (and pass `related`, if given), with both
    rows (live, locked when applying): neighbours and rows come in one query each, the text checks
    run here, and only the pairs that matter cost another look at the database (handled by this run
    already?)."""
    if ctx.space is None:
        ctx.skipped = "no embedding space yet: nothing to compare"
        return iter(()), BatchScan([], 1)
    limit = ctx.batch_size
    ids = memory_store.scan_candidates(ctx.conn, ctx.namespace, after_id(cursor), ctx.since, limit)
    pairs = memory_store.neighbours(
        ctx.conn, ctx.namespace, ids, ctx.space.model_id, ctx.space.dimension, ctx.neighbours, min_cosine
    )
    rows = memory_store.memories_by_id(ctx.conn, list({i for p in pairs for i in (p.a, p.b)}), lock=ctx.apply)

    def classified() -> Iterator[tuple[UUID, MemoryRow, MemoryRow, PairVerdict]]:
        for pair in pairs:
            a_id, b_id = pair.a, pair.b
            key = frozenset((a_id, b_id))
            if key in ctx.pairs_seen or a_id in ctx.consumed or b_id in ctx.consumed:
                continue
            ctx.pairs_seen.add(key)
            for changed in {a_id, b_id} & ctx.changed:  # a survivor of this batch: read it again
                rows.update(memory_store.memories_by_id(ctx.conn, [changed]))
                ctx.changed.discard(changed)
            a, b = rows.get(a_id), rows.get(b_id)
            if a is None or b is None:
                continue  # merged or superseded since the neighbours were found
            gap = abs((a.created_at - b.created_at).total_seconds())
            if "reconcile_candidate" in wanted and gap < ctx.thresholds.reconcile_min_gap_s:
                continue  # written together: not an update of one by the other
            verdict = classify_pair(
                a.content, b.content, a.created_at, b.created_at, float(pair.cosine), ctx.thresholds
            )
            if verdict.cls not in wanted or (related is not None and not related(a, b)):
                continue
            if not store.pair_seen_in_run(ctx.conn, ctx.run_id, a_id, b_id):
                yield a_id, a, b, verdict

    return classified(), BatchScan(ids, limit)


def namespace_common_tokens(ctx: StepContext, cursor: Cursor | None) -> frozenset[str]:
    """The namespace's common tokens: counted once, on the step's first batch, then carried in the
    step's cursor (a continuation does not count them again)."""
    if cursor and "common" in cursor:
        return frozenset(cursor["common"])
    t = ctx.thresholds
    return common_tokens(
        memory_store.live_contents(ctx.conn, ctx.namespace), t.reconcile_rare_share, t.reconcile_rare_min
    )

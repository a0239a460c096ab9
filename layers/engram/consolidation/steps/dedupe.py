"""Dedupe: exact and near-exact duplicates are merged; near-duplicates are merged when the LLM
writes one text that keeps every detail."""

from __future__ import annotations

from aws_lambda_powertools import Logger

from engram.consolidation import store
from engram.consolidation.memory_store import MemoryRow
from engram.consolidation.merging import MERGE_SYSTEM, UnusableAnswer, choose_survivor, merge_prompt, parse_merge
from engram.consolidation.similarity import tokens
from engram.consolidation.steps.absorb import absorb
from engram.consolidation.steps.context import Cursor, StepContext, undecided
from engram.consolidation.steps.pairs import neighbour_pairs

logger = Logger()


def _fuller(pair: list[MemoryRow]) -> MemoryRow:
    """A near-exact pair's survivor: the memory whose text holds every word of the other (it takes
    the higher layer with the merged fields), else the usual choice."""
    a, b = pair
    ta, tb = tokens(a.content), tokens(b.content)
    if ta != tb and (ta >= tb or tb >= ta):
        return a if ta > tb else b
    return choose_survivor(pair)


def dedupe(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    pairs, scan = neighbour_pairs(ctx, cursor, ctx.thresholds.dedupe_cosine, ("exact", "near_exact", "merge_candidate"))
    for scanned, a, b, verdict in pairs:
        if scan.enough(ctx, scanned):
            break
        details = {"cosine": round(verdict.cosine, 4), "jaccard": round(verdict.jaccard, 4)}
        if verdict.cls in ("exact", "near_exact"):
            survivor = _fuller([a, b])
            other = b if survivor is a else a
            absorb(
                ctx,
                "dedupe",
                "merge",
                survivor,
                other,
                f"{verdict.cls} duplicate: {verdict.reason}",
                details,
                content=None,
                relations=("supersedes", "derived_from"),
            )
        elif verdict.cls == "merge_candidate":
            if store.fresh_verdict(ctx.conn, a.id, b.id, "merge"):
                continue
            if undecided(ctx):
                ctx.candidate("dedupe", "merge", [a.id, b.id], f"near-duplicate: {verdict.reason}", details)
                continue
            survivor = choose_survivor([a, b])
            other = b if survivor is a else a
            answer = ctx.ask("consolidation_merge", MERGE_SYSTEM, merge_prompt([survivor.content, other.content]))
            if answer is None:
                ctx.candidates += 1
                continue
            try:
                merged = parse_merge(answer, [survivor.content, other.content], ctx.max_chars)
            except UnusableAnswer as exc:
                ctx.candidates += 1
                logger.warning("unusable merge answer", extra={"error": exc.loggable})
                continue
            if merged is None:
                store.record_verdict(ctx.conn, ctx.tenant_id, a.id, b.id, "merge", "keep_separate", ctx.run_id)
                continue
            absorb(
                ctx,
                "dedupe",
                "merge",
                survivor,
                other,
                f"llm merge: {verdict.reason}",
                details,
                content=merged,
                relations=("supersedes", "derived_from"),
            )
    return scan.cursor()

"""Reconcile: a newer memory on the same subject as an older one updates it, absorbs it, contradicts
it, or both stay (the LLM decides)."""

from __future__ import annotations

from uuid import UUID

from aws_lambda_powertools import Logger

from engram.consolidation import store
from engram.consolidation.memory_store import MemoryRow
from engram.consolidation.merging import RECONCILE_SYSTEM, UnusableAnswer, parse_reconcile, reconcile_prompt
from engram.consolidation.similarity import PairVerdict, shared_rare_tokens
from engram.consolidation.steps.absorb import absorb
from engram.consolidation.steps.context import Cursor, Details, StepContext, undecided
from engram.consolidation.steps.pairs import namespace_common_tokens, neighbour_pairs
from engram.core.errors import Conflict
from engram.graph.models import LinkCreate
from engram.graph.service import write_links

logger = Logger()


def _contradicts(ctx: StepContext, newer: MemoryRow, older: MemoryRow, verdict: PairVerdict, details: Details) -> None:
    """Both kept, linked newer -> older (`contradicts`); never resolved by consolidation."""
    links: list[UUID] = []
    try:
        written = write_links(
            ctx.conn,
            ctx.tenant_id,
            [
                LinkCreate(
                    from_id=newer.id,
                    to_id=older.id,
                    relation="contradicts",
                    metadata={"run_id": str(ctx.run_id)},
                )
            ],
            created_by="consolidation",
            run_id=ctx.run_id,
        )
        links = [link.id for link in written]
    except Conflict:
        pass  # linked by an earlier run; one side changed since, so it was asked again
    # Not asked again until one side changes (the verdict goes with this run's undo).
    store.record_verdict(ctx.conn, ctx.tenant_id, newer.id, older.id, "reconcile", "contradiction", ctx.run_id)
    ctx.act(
        "reconcile",
        "contradicts",
        [newer.id, older.id],
        f"llm: they disagree and it cannot tell which holds; both kept, linked; {verdict.reason}",
        details=details,
        links=links,
    )


def reconcile(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    """Pairs in the similarity window, the newer side at least reconcile_min_gap_s newer, that share a
    rare token (an update restates its subject: a name, an id, a rare word). Templated facts fill the
    window otherwise: without that rule the LLM was asked about two pairs per memory."""
    if ctx.apply and ctx.llm.unavailable:
        ctx.skipped = ctx.llm.unavailable  # only an LLM decides here: a plan still lists the candidates
        return None
    common = namespace_common_tokens(ctx, cursor)
    pairs, scan = neighbour_pairs(
        ctx,
        cursor,
        ctx.thresholds.reconcile_min_cosine,
        ("reconcile_candidate", "merge_candidate"),
        related=lambda a, b: bool(shared_rare_tokens(a.content, b.content, common)),
    )
    for scanned, a, b, verdict in pairs:
        if scan.enough(ctx, scanned):
            break
        if verdict.cls == "merge_candidate" and store.fresh_verdict(ctx.conn, a.id, b.id, "merge") != ("keep_separate"):
            continue  # dedupe's question; once the LLM said "not the same fact", it may be an update
        older, newer = sorted((a, b), key=lambda m: (m.created_at, str(m.id)))
        details = {
            "cosine": round(verdict.cosine, 4),
            "jaccard": round(verdict.jaccard, 4),
            "older": str(older.id),
            "newer": str(newer.id),
        }
        if store.fresh_verdict(ctx.conn, a.id, b.id, "reconcile"):
            continue
        if undecided(ctx):
            ctx.candidate(
                "reconcile",
                "reconcile",
                [newer.id, older.id],
                f"same topic, newer information? {verdict.reason}",
                details,
            )
            continue
        answer = ctx.ask("consolidation_reconcile", RECONCILE_SYSTEM, reconcile_prompt(older.content, newer.content))
        if answer is None:
            ctx.candidates += 1
            continue
        try:
            decided = parse_reconcile(answer, older.content, newer.content, ctx.max_chars)
        except UnusableAnswer as exc:
            ctx.candidates += 1
            logger.warning("unusable reconcile answer", extra={"error": exc.loggable})
            continue
        if decided.decision == "update":
            absorb(
                ctx,
                "reconcile",
                "supersede",
                newer,
                older,
                f"llm: update, the newer memory replaces the older; {verdict.reason}",
                details,
                content=None,
                relations=("supersedes",),
            )
        elif decided.decision == "absorb":
            absorb(
                ctx,
                "reconcile",
                "merge",
                newer,
                older,
                f"llm: absorb, one memory holds both; {verdict.reason}",
                details,
                content=decided.content,
                relations=("supersedes", "derived_from"),
            )
        elif decided.decision == "contradiction":
            _contradicts(ctx, newer, older, verdict, details)
        else:
            store.record_verdict(ctx.conn, ctx.tenant_id, a.id, b.id, "reconcile", "keep_both", ctx.run_id)
    step_cursor = scan.cursor()
    return {**step_cursor, "common": sorted(common)} if step_cursor else None

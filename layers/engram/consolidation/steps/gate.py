"""The gate: working memories that qualify are reviewed for core (by the LLM, or a heuristic when it
is off); a rejection sets a cooldown before the next review."""

from __future__ import annotations

from aws_lambda_powertools import Logger

from engram.consolidation import memory_store
from engram.consolidation.lifecycle import gate_candidacy, gate_heuristic, gate_rejection
from engram.consolidation.merging import GATE_SYSTEM, UnusableAnswer, gate_prompt, parse_gate
from engram.consolidation.steps.context import BatchScan, Cursor, StepContext, after_id, move_layer

logger = Logger()


def gate(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    rows = memory_store.live_memories(
        ctx.conn, ctx.namespace, layer="working", after=after_id(cursor), limit=ctx.batch_size, lock=ctx.apply
    )
    scan = BatchScan([m.id for m in rows], ctx.batch_size)
    for m in rows:
        if scan.enough(ctx, m.id):
            break
        why = gate_candidacy(m, ctx.epoch, ctx.now, ctx.rules)
        if not why:
            continue
        if ctx.llm.unavailable:
            approved, verdict = gate_heuristic(m, ctx.rules)
            verdict = f"heuristic ({ctx.llm.unavailable.split(':')[0]}): {verdict}"
        elif not ctx.apply:
            ctx.candidate("gate", "gate", [m.id], f"candidate for core: {why}", {"candidacy": why})
            continue
        else:
            answer = ctx.ask("consolidation_gate", GATE_SYSTEM, gate_prompt(m))
            if answer is None:
                ctx.candidates += 1
                continue
            try:
                approved, verdict = parse_gate(answer)
            except UnusableAnswer as exc:
                ctx.candidates += 1
                logger.warning("unusable gate answer", extra={"error": exc.loggable})
                continue
        if approved:
            move_layer(ctx, m, "gate", "gate_approve", "core", f"{why}; {verdict}")
        else:
            count, retry, note = gate_rejection(m.gate_rejections, ctx.epoch, ctx.rules)
            if ctx.apply:
                memory_store.update_memory(ctx.conn, m.id, {"gate_rejections": count, "gate_retry_epoch": retry})
            ctx.act(
                "gate",
                "gate_reject",
                [m.id],
                f"{why}; {verdict}; {note}",
                details={"rejections": count, "retry_epoch": retry},
                before={"memories": [m.image]},
            )
    return scan.cursor()

"""What every step works with: the run's context and its LLM allowance, the step cursors, and
where a batch of scanned memories ends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger

from engram.adapters import llm
from engram.consolidation import memory_store
from engram.consolidation.distilling import DistillRules
from engram.consolidation.lifecycle import LifecycleRules
from engram.consolidation.memory_store import ActiveSpace, MemoryRow
from engram.consolidation.similarity import SimilarityThresholds
from engram.consolidation.store import NewAction
from engram.core.db import Conn

logger = Logger()

# A step's place in its work (JSON, kept in the run's checkpoint between batches): None at its start.
Cursor = dict[str, Any]
# An action's details and before-image (JSON, kept with the action).
Details = dict[str, Any]


@dataclass
class LlmBudget:
    """The run's LLM allowance: the caps (per run, per tenant per UTC day) checked before each call."""

    unavailable: str | None  # why no call may be made at all (LLM off / not configured)
    run_calls: int
    run_tokens: int
    max_run_calls: int
    max_run_tokens: int
    day_calls: int
    day_tokens: int
    max_day_calls: int
    max_day_tokens: int
    capped: str | None = None
    calls: int = 0  # made in this batch
    input_tokens: int = 0
    output_tokens: int = 0

    def refusal(self) -> str | None:
        """None when one more call is allowed, else why not (and the run says so: `llm_capped`)."""
        if self.unavailable:
            return self.unavailable
        if self.capped:
            return self.capped
        used_calls, used_tokens = self.run_calls + self.calls, self.run_tokens + self.input_tokens + self.output_tokens
        day_calls = self.day_calls + self.calls
        day_tokens = self.day_tokens + self.input_tokens + self.output_tokens
        if used_calls >= self.max_run_calls:
            self.capped = f"run call cap reached: {self.max_run_calls} calls"
        elif used_tokens >= self.max_run_tokens:
            self.capped = f"run token cap reached: {self.max_run_tokens} tokens"
        elif day_calls >= self.max_day_calls:
            self.capped = f"tenant daily call cap reached: {self.max_day_calls} calls"
        elif day_tokens >= self.max_day_tokens:
            self.capped = f"tenant daily token cap reached: {self.max_day_tokens} tokens"
        return self.capped

    def spent(self, result: llm.LlmResult) -> None:
        self.calls += 1
        self.input_tokens += result.input_tokens
        self.output_tokens += result.output_tokens


@dataclass
class StepContext:
    conn: Conn
    tenant_id: UUID
    run_id: UUID
    namespace: str
    apply: bool  # False: a dry run's plan
    epoch: int  # the run's epoch (a dry run: the namespace's current one)
    since: datetime | None  # the previous applied run's start: pairs older than it were looked at then
    now: datetime
    rules: LifecycleRules
    thresholds: SimilarityThresholds
    space: ActiveSpace | None  # the active embedding space (model_id, dimension), None before any vector
    llm: LlmBudget
    batch_size: int
    neighbours: int
    max_chars: int
    distill: DistillRules
    llm_calls_per_batch: int  # a batch ends at the next memory boundary once it made this many calls
    actions: list[NewAction] = field(default_factory=list)
    candidates: int = 0
    skipped: str | None = None
    chunk_ids: list[UUID] = field(default_factory=list)  # new chunks to embed after commit
    pairs_seen: set[frozenset[UUID]] = field(default_factory=set)  # in this batch (earlier ones: actions)
    consumed: set[UUID] = field(default_factory=set)  # superseded in this batch
    changed: set[UUID] = field(default_factory=set)  # survivors changed in this batch (rows to read again)

    def act(
        self,
        step: str,
        action: str,
        memory_ids: Sequence[UUID],
        reason: str,
        *,
        details: Details | None = None,
        before: Details | None = None,
        links: Sequence[UUID] = (),
        applied: bool | None = None,
    ) -> None:
        done = self.apply if applied is None else applied
        self.actions.append(
            NewAction(
                step=step,
                action=action,
                memory_ids=list(memory_ids),
                reason=reason,
                details=details or {},
                applied=done,
                before_image=before if done else None,
                links_created=list(links),
            )
        )

    def candidate(self, step: str, action: str, memory_ids: Sequence[UUID], reason: str, details: Details) -> None:
        """An LLM-dependent action not decided (dry run, LLM off, cap reached): listed in plans only."""
        self.candidates += 1
        if not self.apply:
            self.act(step, f"{action}_candidate", memory_ids, reason, details=details, applied=False)

    def ask(self, purpose: str, system: str, prompt: str, max_tokens: int = 1024) -> str | None:
        """One LLM call within the caps; None when refused or failed (logged, the pair is left alone)."""
        refusal = self.llm.refusal()
        if refusal:
            self.skipped = refusal
            return None
        try:
            result = llm.complete(self.tenant_id, purpose, system, prompt, max_tokens=max_tokens, run_id=self.run_id)
        except llm.LlmError as exc:
            logger.warning("consolidation llm call failed", extra={"purpose": purpose, "error": str(exc)[:200]})
            self.skipped = f"llm call failed: {str(exc)[:200]}"
            return None
        self.llm.spent(result)
        return result.text


StepFn = Callable[[StepContext, Cursor | None], Cursor | None]


def after_id(cursor: Cursor | None) -> UUID | None:
    return UUID(cursor["after"]) if cursor and cursor.get("after") else None


def next_cursor(ids: Sequence[UUID], limit: int) -> Cursor | None:
    """After the last of a full batch; None when the batch was the last."""
    return None if len(ids) < limit else {"after": str(ids[-1])}


def move_layer(ctx: StepContext, m: MemoryRow, step: str, action: str, layer: str, reason: str) -> None:
    if ctx.apply:
        memory_store.update_memory(ctx.conn, m.id, {"layer": layer, "layer_epoch": ctx.epoch})
    ctx.act(step, action, [m.id], reason, details={"from": m.layer, "to": layer}, before={"memories": [m.image]})


class BatchScan:
    """Where a batch of scanned memories ends: after all of them, or earlier, between two scanned
    memories, once the batch made ctx.llm_calls_per_batch calls (the rest is the next batch's)."""

    def __init__(self, ids: Sequence[UUID], limit: int) -> None:
        self.ids, self.limit = list(ids), limit
        self.current: UUID | None = None
        self.stopped_after: UUID | None = None

    def enough(self, ctx: StepContext, scanned: UUID) -> bool:
        """Called before the work of `scanned`; True: stop here (after the memory before it)."""
        if scanned != self.current:
            if self.current is not None and ctx.llm.calls >= ctx.llm_calls_per_batch:
                self.stopped_after = self.current
                return True
            self.current = scanned
        return False

    def cursor(self) -> Cursor | None:
        if self.stopped_after is not None:
            return {"after": str(self.stopped_after)}
        return next_cursor(self.ids, self.limit)


def undecided(ctx: StepContext) -> bool:
    """True when an LLM decision cannot be had now: a plan (no call is made), the LLM off, or a cap
    reached (the step says which)."""
    refusal = ctx.llm.refusal()
    if refusal:
        ctx.skipped = refusal
    return refusal is not None or not ctx.apply

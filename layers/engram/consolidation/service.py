"""Consolidation runs: start, run (resumably), inspect, undo.

The contract the pipeline (dispatcher, worker, CLI) and the routes code against:

- ``start_run(conn, tenant_id, namespace, *, dry_run, steps, trigger) -> UUID``
  Inserts a ``consolidation_runs`` row with status ``queued`` inside the caller's open tenant
  transaction (the caller commits, then enqueues ``{"tenant_id", "run_id"}`` on consolidate-jobs).
  ``steps`` None means every step in ``STEPS`` order; an unknown step name raises InvalidField.
  ``trigger`` is ``"api" | "schedule" | "cli"``.

- ``run_cycle(dsn, tenant_id, run_id, *, time_budget_s) -> RunProgress``
  Runs the run's steps from its checkpoint, on its own connection to ``dsn`` (None: the
  configured database). Work is cut into batches; each batch commits its actions and the
  checkpoint advance in ONE transaction, under a lock on the run row, so a redelivered or
  duplicated message never applies anything twice. When ``time_budget_s`` is spent between
  batches it returns ``RunProgress(status="continue")`` (the caller sends a continuation
  message); ``"done"`` when the run finished (also for a run that was already finished: a
  no-op); ``"failed"`` when a step raised (the run row says why; the caller need not retry).
  A non-dry run advances the namespace's epoch once (decay is per active epoch).

- ``get_run(tenant_id, run_id) -> Run``; ``get_run_with_actions(tenant_id, run_id, cursor, limit)``;
  ``list_runs(tenant_id, namespace, cursor, limit) -> RunPage``;
  ``list_actions(tenant_id, run_id, cursor, limit) -> ActionPage``;
  ``undo_run(tenant_id, run_id) -> Run`` (Conflict naming the memories changed since the run).

- ``consolidate_request(tenant_id, req) -> Run`` is what ``POST /v1/consolidate`` calls: it
  writes the run row and enqueues it.

Tables (migration 0006): ``consolidation_runs``, ``consolidation_actions`` (every change with the
before-image of what it touched), ``consolidation_namespaces`` (epoch per namespace),
``llm_usage.run_id``; per-memory lifecycle columns ``memories.layer_epoch``,
``memories.gate_rejections``, ``memories.gate_retry_epoch``; ``embedding_spaces.consolidation_thresholds``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

import psycopg
from aws_lambda_powertools import Logger

from engram.adapters import llm
from engram.adapters.queue import enqueue_consolidation, enqueue_embedding
from engram.consolidation import cycle, memory_store, store
from engram.consolidation.dispatch_store import open_run
from engram.consolidation.distilling import DistillRules
from engram.consolidation.lifecycle import LifecycleRules
from engram.consolidation.models import ConsolidateRequest, Run, RunProgress
from engram.consolidation.run_views import get_run, get_run_with_actions, list_actions, list_runs, run_model
from engram.consolidation.settings import ConsolidationSettings, consolidation_settings
from engram.consolidation.similarity import SimilarityThresholds, thresholds_for
from engram.consolidation.steps.context import Cursor, LlmBudget, StepContext
from engram.consolidation.store import RunRow
from engram.consolidation.undo import undo_run
from engram.core.config import settings
from engram.core.db import Conn, app_connection, set_tenant, tenant_transaction
from engram.core.errors import Conflict, InvalidField, NotFound
from engram.core.idempotency import IdempotencyKey, remember, replay

__all__ = [
    "STEPS",
    "Trigger",
    "consolidate_request",
    "get_run",
    "get_run_with_actions",
    "list_actions",
    "list_runs",
    "run_cycle",
    "start_run",
    "undo_run",
]

logger = Logger()

STEPS: tuple[str, ...] = (
    "decay",
    "promote",
    "gate",
    "demote",
    "dedupe",
    "reconcile",
    "buffer_cap",
    "drop_decayed",
    "distill",
    "topics",
)
Trigger = Literal["api", "schedule", "cli"]


# --- starting a run -----------------------------------------------------------------------------


def _steps(steps: Sequence[str] | None) -> list[str]:
    if not steps:
        return list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise InvalidField("steps", f"unknown step {unknown[0]!r}; steps are {', '.join(STEPS)}")
    return [s for s in STEPS if s in steps]  # always in the cycle's order


def start_run(
    conn: Conn,
    tenant_id: UUID,
    namespace: str,
    *,
    dry_run: bool,
    steps: Sequence[str] | None,
    trigger: Trigger,
) -> UUID:
    """A queued run, inside the caller's tenant transaction (the caller commits, then enqueues)."""
    return store.insert_run(conn, tenant_id, namespace, dry_run, _steps(steps), trigger)


def consolidate_request(tenant_id: UUID, req: ConsolidateRequest, idempotency: IdempotencyKey | None = None) -> Run:
    """POST /v1/consolidate: the run row, then its job on consolidate-jobs. One applied run at a time
    per namespace: a second is refused while the first is open (a dry run may always be asked for).
    A keyed retry gets the first answer (the run as queued) before that check, and sends nothing."""
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, Run)) is not None:
            return first
        if not req.dry_run:
            open_ = open_run(conn, req.namespace)
            if open_ is not None:
                raise Conflict(
                    f"run {open_.id} of namespace {req.namespace!r} is {open_.status}; wait for it to finish",
                    {"run_id": str(open_.id)},
                )
        run_id = start_run(conn, tenant_id, req.namespace, dry_run=req.dry_run, steps=req.steps, trigger="api")
        run = store.read_run(conn, run_id)
        assert run is not None
        queued = run_model(run)
        remember(conn, idempotency, queued)
    # Not sent (no queue, SQS down): the run stays queued and the dispatcher sends it again.
    enqueue_consolidation(tenant_id, run_id)
    return queued


# --- running ------------------------------------------------------------------------------------


@contextmanager
def _run_connection(dsn: str | None) -> Iterator[Conn]:
    """The worker's own connection, as the request role (row-level security applies): it holds the
    run's session lock, so it is not the thread's shared request connection."""
    with app_connection(dsn) as conn:
        yield conn


def _similarity_defaults(s: ConsolidationSettings) -> SimilarityThresholds:
    return SimilarityThresholds(
        dedupe_cosine=s.consolidation_dedupe_cosine,
        near_exact_jaccard=s.consolidation_near_exact_jaccard,
        merge_jaccard=s.consolidation_merge_jaccard,
        reconcile_min_cosine=s.consolidation_reconcile_min_cosine,
        reconcile_max_cosine=s.consolidation_reconcile_max_cosine,
        reconcile_min_gap_s=s.consolidation_reconcile_min_gap_s,
        reconcile_rare_share=s.consolidation_reconcile_rare_share,
        reconcile_rare_min=s.consolidation_reconcile_rare_min,
    )


def _context(conn: Conn, tenant_id: UUID, run: RunRow, epoch: int, since: datetime | None) -> StepContext:
    s, shared = consolidation_settings(), settings()
    space = memory_store.space_thresholds(conn)
    day_calls, day_tokens = llm.usage_today(conn)
    budget = LlmBudget(
        unavailable=llm.llm_unavailable(),
        run_calls=run.llm_calls,
        run_tokens=run.llm_input_tokens + run.llm_output_tokens,
        max_run_calls=s.consolidation_llm_run_calls,
        max_run_tokens=s.consolidation_llm_run_tokens,
        day_calls=day_calls,
        day_tokens=day_tokens,
        max_day_calls=shared.consolidation_llm_daily_calls,
        max_day_tokens=shared.consolidation_llm_daily_tokens,
        capped=run.llm_capped,
    )
    return StepContext(
        conn=conn,
        tenant_id=tenant_id,
        run_id=run.id,
        namespace=run.namespace,
        apply=not run.dry_run,
        epoch=epoch,
        since=since,
        now=datetime.now(UTC),
        rules=LifecycleRules.from_settings(s),
        thresholds=thresholds_for(
            _similarity_defaults(s),
            space.model_id if space else None,
            space.consolidation_thresholds if space else None,
        ),
        space=space,
        llm=budget,
        batch_size=s.consolidation_batch_size,
        neighbours=s.consolidation_neighbours,
        max_chars=shared.max_memory_chars,
        distill=DistillRules.from_settings(s),
        llm_calls_per_batch=cycle.LLM_CALLS_PER_BATCH,
    )


@dataclass
class RunCheckpoint:
    """One batch's hold on its run: the row as read under its lock, and the changes the batch
    writes back to it with its actions (one UPDATE, in the batch's transaction)."""

    run: RunRow
    changes: dict[str, Any] = field(default_factory=dict)
    started_at: datetime | None = None  # the run's start (set by the batch that starts it)
    since: str | None = None  # the previous applied run's start (ISO), kept in the checkpoint's cursor

    @classmethod
    def locked(cls, conn: Conn, run_id: UUID) -> RunCheckpoint:
        run = store.read_run(conn, run_id, lock=True)
        if run is None:
            raise NotFound(f"consolidation run {run_id} not found")
        return cls(run, started_at=run.started_at, since=(run.step_cursor or {}).get("since"))

    def outcome(self) -> RunProgress | None:
        """What a run already over answers with (a redelivered message), else None."""
        if self.run.status in ("done", "undone"):
            return RunProgress("done", self.run.id)
        if self.run.status == "failed":
            return RunProgress("failed", self.run.id, error=self.run.error)
        return None

    def start(self) -> None:
        if self.run.status == "queued":
            self.started_at = datetime.now(UTC)
            self.changes.update(status="running", started_at=self.started_at)

    def finished(self) -> bool:
        return self.run.step_index >= len(self.run.steps)

    def finish(self, conn: Conn) -> RunProgress:
        self.changes.update(status="done", finished_at=datetime.now(UTC), step_cursor=None)
        if not self.run.dry_run:
            assert self.started_at is not None
            store.finish_namespace_run(conn, self.run.namespace, self.run.id, self.started_at)
        self.save(conn)
        return RunProgress("done", self.run.id)

    def clock(self, conn: Conn, tenant_id: UUID) -> tuple[int, datetime | None]:
        """The run's epoch and the previous applied run's start: an applied run advances the
        namespace's epoch on its first batch and keeps both; a dry run reads the current ones."""
        run = self.run
        step_cursor = run.step_cursor
        if run.dry_run:
            epoch, since = store.namespace_clock(conn, run.namespace)
            self.since = since.isoformat() if since else None
            if step_cursor is not None:
                self.since = step_cursor.get("since")
            return epoch, since
        if run.epoch is None:
            epoch, since = store.advance_epoch(conn, tenant_id, run.namespace)
            self.changes["epoch"] = epoch
            self.since = since.isoformat() if since else None
            return epoch, since
        return run.epoch, datetime.fromisoformat(self.since) if self.since else None

    def step_cursor(self) -> Cursor | None:
        """Where the current step continues (None: from its start; an applied run's first batch
        starts afresh)."""
        if not self.run.dry_run and self.run.epoch is None:
            return None
        step: Cursor | None = (self.run.step_cursor or {}).get("step")
        return step

    def record(self, step: str, ctx: StepContext, seconds: float, step_cursor: Cursor | None) -> None:
        """The batch's counts and LLM use added to the run's, and the checkpoint moved past it."""
        run = self.run
        counts = dict(run.step_counts or {})
        mine = counts.setdefault(step, {"actions": 0, "candidates": 0, "skipped": None})
        mine["seconds"] = round(mine.get("seconds", 0.0) + seconds, 3)
        mine["actions"] += sum(1 for a in ctx.actions if a.applied or run.dry_run)
        mine["candidates"] += ctx.candidates
        mine["skipped"] = ctx.skipped or mine["skipped"]
        self.changes.update(
            step_counts=counts,
            next_action_seq=run.next_action_seq + len(ctx.actions),
            llm_calls=run.llm_calls + ctx.llm.calls,
            llm_input_tokens=run.llm_input_tokens + ctx.llm.input_tokens,
            llm_output_tokens=run.llm_output_tokens + ctx.llm.output_tokens,
            llm_capped=ctx.llm.capped,
        )
        if step_cursor is None:
            self.changes.update(step_index=run.step_index + 1, step_cursor={"since": self.since})
        else:
            self.changes["step_cursor"] = {"since": self.since, "step": step_cursor}

    def save(self, conn: Conn) -> None:
        store.update_run(conn, self.run.id, self.changes)


def _batch(conn: Conn, tenant_id: UUID, run_id: UUID) -> tuple[RunProgress | None, list[UUID]]:
    """One batch in one transaction: lock the run, do the next piece of its current step, write the
    actions and the checkpoint. Returns the final progress when the run is (or already was) over."""
    with conn.transaction():
        set_tenant(conn, tenant_id)
        checkpoint = RunCheckpoint.locked(conn, run_id)
        if (over := checkpoint.outcome()) is not None:
            return over, []
        store.lock_namespace(conn, tenant_id, checkpoint.run.namespace)
        checkpoint.start()
        if checkpoint.finished():
            return checkpoint.finish(conn), []
        epoch, since = checkpoint.clock(conn, tenant_id)
        run = checkpoint.run
        step = run.steps[run.step_index]
        ctx = _context(conn, tenant_id, run, epoch, since)
        started = time.monotonic()
        step_cursor = cycle.STEP_FUNCTIONS[step](ctx, checkpoint.step_cursor())
        checkpoint.record(step, ctx, time.monotonic() - started, step_cursor)
        store.insert_actions(conn, tenant_id, run_id, run.next_action_seq, ctx.actions)
        checkpoint.save(conn)
    return None, ctx.chunk_ids


# The backend of a worker that just died holds the run's lock until it notices: at once when it
# waits for the client, within client_connection_check_interval (5 s, set below) when a statement runs.
DEAD_WORKER_WAIT_S = 15.0


def _claim(conn: Conn, tenant_id: UUID, run_id: UUID) -> RunProgress | None:
    """Mark the run as worked on now. A mark left set means the last worker on it died mid-run: one
    more interruption; at the limit the run is failed (what it committed stays, and can be undone)."""
    with conn.transaction():
        set_tenant(conn, tenant_id)
        run = store.read_run(conn, run_id, lock=True)
        if run is None:
            raise NotFound(f"consolidation run {run_id} not found")
        if run.status not in ("queued", "running"):
            return None  # the first batch answers for a finished run
        changes: dict[str, Any] = {"worker_started_at": datetime.now(UTC)}
        if run.worker_started_at is not None:
            interruptions = changes["interruptions"] = run.interruptions + 1
            limit = consolidation_settings().consolidation_max_interruptions
            logger.warning(
                "consolidation run resumed after its worker died",
                extra={"run_id": str(run_id), "interruptions": interruptions},
            )
            if interruptions >= limit:
                error = (
                    f"interrupted {interruptions} times: the process working on it stopped mid-run"
                    f" (last time after {run.updated_at.isoformat()}); what it committed stays and can be undone"
                )
                changes.update(status="failed", error=error, finished_at=datetime.now(UTC), worker_started_at=None)
                store.update_run(conn, run_id, changes)
                return RunProgress("failed", run_id, error=error)
        store.update_run(conn, run_id, changes)
    return None


def run_cycle(dsn: str | None, tenant_id: UUID, run_id: UUID, *, time_budget_s: float) -> RunProgress:
    """Run (or resume) a run from its checkpoint until it is done or the time budget is spent. While
    it works it holds the run's worker lock; a message for a run another live worker holds answers
    `busy` (that worker carries the run on)."""
    with _run_connection(dsn) as conn:
        store.check_client_every(conn, 5)
        if not store.hold_run(conn, run_id, DEAD_WORKER_WAIT_S):
            return RunProgress("busy", run_id)
        progress = _claim(conn, tenant_id, run_id) or _work(conn, tenant_id, run_id, time_budget_s)
        # Not reached when the work raised: the mark stays and the next worker counts an interruption.
        with conn.transaction():
            set_tenant(conn, tenant_id)
            store.clear_worker_mark(conn, run_id)
        store.let_go_of_run(conn, run_id)
        return progress


def _work(conn: Conn, tenant_id: UUID, run_id: UUID, time_budget_s: float) -> RunProgress:
    deadline = time.monotonic() + time_budget_s
    batches = 0
    while True:
        try:
            final, chunk_ids = _batch(conn, tenant_id, run_id)
        except (NotFound, psycopg.OperationalError):
            raise  # a lost connection is not the run's fault: the message is delivered again
        except Exception as exc:  # the batch rolled back: nothing of it is applied
            logger.exception("consolidation batch failed", extra={"run_id": str(run_id)})
            error = f"{type(exc).__name__}: {exc}"[:1000]
            with conn.transaction():
                set_tenant(conn, tenant_id)
                store.update_run(conn, run_id, {"status": "failed", "error": error, "finished_at": datetime.now(UTC)})
            return RunProgress("failed", run_id, batches=batches, error=error)
        enqueue_embedding(tenant_id, chunk_ids)
        if final is not None:
            final.batches = batches
            return final
        batches += 1
        if time.monotonic() >= deadline:
            with conn.transaction():
                set_tenant(conn, tenant_id)
                run = store.read_run(conn, run_id)
                assert run is not None
                store.update_run(conn, run_id, {"cycles": run.cycles + 1})
            step = run.steps[run.step_index] if run.step_index < len(run.steps) else None
            return RunProgress("continue", run_id, step=step, batches=batches)

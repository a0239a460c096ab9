"""The pipeline around the consolidation cycle: the scheduled dispatcher, one worker message, and
the CLI's run-to-the-end.

- `dispatch()` (EventBridge Scheduler -> consolidation_dispatcher, or `make dev`'s interval):
  every (tenant, namespace) with writes, recalls or appends since its last dispatch gets one
  run (`start_run(..., trigger="schedule")`) and one consolidate-jobs message. A namespace whose
  applying run is still queued or running gets no second one. Idle namespaces get nothing, so
  they do not decay. It also sends again runs whose message was lost, and fails runs abandoned
  by a worker that kept dying (their message is in the dead-letter queue).
- `work_on_run()` (consolidate-jobs -> consolidation_worker): one `run_cycle` within a time
  budget; a run that needs more time gets a continuation message. A duplicate or redelivered
  message changes nothing: run_cycle never applies a step twice and answers `done` for a
  finished run, whose message is then acknowledged.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from uuid import UUID

from aws_lambda_powertools import Logger

from engram.adapters.queue import enqueue_consolidation, enqueue_consolidations
from engram.consolidation import service
from engram.consolidation.dispatch_store import every_open_run, fail_run, open_run, stale_runs
from engram.consolidation.models import Run, RunProgress
from engram.consolidation.settings import consolidation_settings
from engram.core.activity import lock_activity, mark_dispatched, namespaces_to_consolidate
from engram.core.db import anonymous_transaction, owner_connection, tenant_transaction
from engram.core.errors import Conflict, NotFound

logger = Logger()

# Left of a Lambda's remaining time when the budget is cut to fit it: the batch that is running
# when the budget runs out must still commit.
SAFETY_MARGIN_S = 120.0


@dataclass
class DispatchResult:
    started: list[str] = field(default_factory=list)  # run ids started and sent
    covered: int = 0  # active namespaces whose open run already covers their activity
    waiting: int = 0  # active namespaces left for the next dispatch: an older run is still open
    resent: list[str] = field(default_factory=list)  # queued runs whose message was sent again
    abandoned: list[str] = field(default_factory=list)  # open runs marked failed
    unsent: list[str] = field(default_factory=list)  # runs left queued: the send failed (sent again later)
    errors: int = 0  # namespaces that raised (logged); the others went on

    def counts(self) -> dict[str, int]:
        return {k: len(v) if isinstance(v, list) else v for k, v in asdict(self).items()}


def dispatch(limit: int | None = None) -> DispatchResult:
    s = consolidation_settings()
    result = DispatchResult()
    with anonymous_transaction() as conn:
        stale = stale_runs(
            conn,
            requeue_after_s=s.consolidation_requeue_after_s,
            abandon_after_s=s.consolidation_abandon_after_s,
            limit=s.consolidation_dispatch_limit,
        )
        pairs = namespaces_to_consolidate(conn, limit or s.consolidation_dispatch_limit)

    to_send: list[tuple[UUID, UUID]] = []
    abandoned = (
        f"abandoned: no progress for {s.consolidation_abandon_after_s} s"
        " (its message is in the consolidate-jobs dead-letter queue)"
    )
    for run in stale:
        if run.abandoned:
            with tenant_transaction(run.tenant_id) as tconn:
                if fail_run(tconn, run.run_id, abandoned):
                    result.abandoned.append(str(run.run_id))
        else:
            to_send.append((run.tenant_id, run.run_id))
            result.resent.append(str(run.run_id))

    for tenant_id, namespace in pairs:
        try:
            run_id = _start_scheduled_run(tenant_id, namespace, result)
        except Exception:  # one broken tenant must not stop the others
            logger.exception(
                "could not start a scheduled run", extra={"tenant_id": str(tenant_id), "namespace": namespace}
            )
            result.errors += 1
            continue
        if run_id is not None:
            to_send.append((tenant_id, run_id))
            result.started.append(str(run_id))

    result.unsent = enqueue_consolidations(to_send)
    logger.info("consolidation dispatched", extra=result.counts())  # the CDK app makes metrics of it
    return result


def resend_open_runs(dsn: str | None = None) -> list[UUID]:
    """`make dev`'s start: its queue lived in the memory of the process before, so every run that
    was queued or running lost its message. Each is sent again and resumes from its checkpoint (a
    run whose worker died mid-batch counts an interruption). Returns the runs sent."""
    with owner_connection(dsn) as owner:
        runs = every_open_run(owner)
    unsent = set(enqueue_consolidations(runs))
    return [run_id for _, run_id in runs if str(run_id) not in unsent]


def _start_scheduled_run(tenant_id: UUID, namespace: str, result: DispatchResult) -> UUID | None:
    with tenant_transaction(tenant_id) as conn:
        activity = lock_activity(conn, namespace)  # serialises concurrent dispatchers per namespace
        if activity is None:
            return None
        last_activity_at, _ = activity
        current = open_run(conn, namespace)
        if current is not None:
            if current.created_at >= last_activity_at:
                mark_dispatched(conn, namespace)  # that run will see this activity
                result.covered += 1
            else:
                result.waiting += 1  # newer activity: a run starts once this one is done
            return None
        try:
            run_id = service.start_run(conn, tenant_id, namespace, dry_run=False, steps=None, trigger="schedule")
        except Conflict:  # a run asked for through the API opened since open_run looked
            result.waiting += 1
            return None
        mark_dispatched(conn, namespace)
        return run_id


def time_budget(remaining_s: float | None) -> float:
    """The configured budget, cut so that the invocation ends with SAFETY_MARGIN_S to spare."""
    budget = consolidation_settings().consolidation_time_budget_s
    if remaining_s is not None:
        budget = min(budget, max(remaining_s - SAFETY_MARGIN_S, remaining_s / 2))
    return budget


def work_on_run(
    tenant_id: UUID, run_id: UUID, *, remaining_s: float | None = None, receive_count: int = 1
) -> RunProgress:
    """One consolidate-jobs message. Raises to have the message retried (SQS redelivers it; after
    `consolidation_max_receives` it goes to the dead-letter queue, and the run is marked failed)."""
    started = time.monotonic()
    log = {"tenant_id": str(tenant_id), "run_id": str(run_id), "receive_count": receive_count}
    try:
        progress = service.run_cycle(None, tenant_id, run_id, time_budget_s=time_budget(remaining_s))
    except NotFound:
        # The run is gone (tenant or namespace purged): nothing to do, and retrying cannot help.
        logger.warning("consolidation run not found; message dropped", extra=log)
        return RunProgress(status="done", run_id=run_id)
    except Exception as exc:
        final = receive_count >= consolidation_settings().consolidation_max_receives
        if final:
            with tenant_transaction(tenant_id) as conn:
                fail_run(conn, run_id, f"worker failed {receive_count} times; last: {type(exc).__name__}: {exc}")
        # One line per cycle, failed or not: the CDK app counts the failed ones (an alarm).
        logger.exception("consolidation cycle", extra={**log, "status": "failed" if final else "retry"})
        raise
    if progress.status == "continue" and not enqueue_consolidation(tenant_id, run_id):
        # No continuation was sent: fail this message so SQS delivers it again, which continues the run.
        raise RuntimeError(f"run {run_id} needs a continuation and the queue refused it")
    logger.info(
        "consolidation cycle",
        extra={
            **log,
            "status": progress.status,
            "step": progress.step,
            "batches": progress.batches,
            "seconds": round(time.monotonic() - started, 3),
            "error": progress.error,
        },
    )
    return progress


def consolidate_now(
    tenant_id: UUID,
    namespace: str,
    *,
    dry_run: bool = False,
    steps: list[str] | None = None,
    time_budget_s: float | None = None,
) -> Run:
    """Start a run and work it to the end in this process (the CLI), cycle after cycle."""
    with tenant_transaction(tenant_id) as conn:
        run_id = service.start_run(conn, tenant_id, namespace, dry_run=dry_run, steps=steps, trigger="cli")
    budget = time_budget_s or consolidation_settings().consolidation_time_budget_s
    while service.run_cycle(None, tenant_id, run_id, time_budget_s=budget).status == "continue":
        pass
    return service.get_run(tenant_id, run_id)

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
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

import psycopg
from aws_lambda_powertools import Logger
from psycopg import sql

from engram.adapters import llm
from engram.adapters.queue import enqueue_consolidation, enqueue_embedding
from engram.consolidation import cycle, store
from engram.consolidation.dispatch_store import open_run
from engram.consolidation.distilling import DistillRules
from engram.consolidation.lifecycle import LifecycleRules
from engram.consolidation.models import (
    Action,
    ActionPage,
    ConsolidateRequest,
    Run,
    RunPage,
    RunProgress,
    RunWithActions,
    StepCounts,
)
from engram.consolidation.similarity import SimilarityThresholds, thresholds_for
from engram.consolidation.steps.context import LlmBudget, StepContext
from engram.core.config import Settings, settings
from engram.core.db import open_connection, tenant_transaction
from engram.core.errors import Conflict, InvalidField, NotFound
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.core.pagination import MAX_PAGE, decode_cursor, encode_cursor
from engram.graph.service import remove_links
from engram.topics.service import place_unplaced, restore_tree

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
Row = dict[str, Any]


# --- starting a run -----------------------------------------------------------------------------


def _steps(steps: Sequence[str] | None) -> list[str]:
    if not steps:
        return list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise InvalidField("steps", f"unknown step {unknown[0]!r}; steps are {', '.join(STEPS)}")
    return [s for s in STEPS if s in steps]  # always in the cycle's order


def start_run(
    conn: psycopg.Connection[Any],
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
        queued = _run_model(run)
        remember(conn, idempotency, queued)
    # Not sent (no queue, SQS down): the run stays queued and the dispatcher sends it again.
    enqueue_consolidation(tenant_id, run_id)
    return queued


# --- running ------------------------------------------------------------------------------------


@contextmanager
def _run_connection(dsn: str | None) -> Iterator[psycopg.Connection[Any]]:
    """The worker's own connection, as the request role (row-level security applies)."""
    with open_connection(dsn) as conn:
        role = settings().db_app_role
        if role:
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
        conn.execute("SET jit = off")
        conn.commit()
        yield conn


def _begin(conn: psycopg.Connection[Any], tenant_id: UUID) -> None:
    conn.execute("SELECT set_config('engram.tenant_id', %s, true)", (str(tenant_id),))


def _similarity_defaults(s: Settings) -> SimilarityThresholds:
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


def _context(
    conn: psycopg.Connection[Any], tenant_id: UUID, run: Row, epoch: int, since: datetime | None
) -> StepContext:
    s = settings()
    space = store.space_thresholds(conn)
    day_calls, day_tokens = llm.usage_today(conn)
    budget = LlmBudget(
        unavailable=llm.llm_unavailable(),
        run_calls=run["llm_calls"],
        run_tokens=run["llm_input_tokens"] + run["llm_output_tokens"],
        max_run_calls=s.consolidation_llm_run_calls,
        max_run_tokens=s.consolidation_llm_run_tokens,
        day_calls=day_calls,
        day_tokens=day_tokens,
        max_day_calls=s.consolidation_llm_daily_calls,
        max_day_tokens=s.consolidation_llm_daily_tokens,
        capped=run["llm_capped"],
    )
    return StepContext(
        conn=conn,
        tenant_id=tenant_id,
        run_id=run["id"],
        namespace=run["namespace"],
        apply=not run["dry_run"],
        epoch=epoch,
        since=since,
        now=datetime.now(UTC),
        rules=LifecycleRules.from_settings(s),
        thresholds=thresholds_for(
            _similarity_defaults(s),
            space["model_id"] if space else None,
            space["consolidation_thresholds"] if space else None,
        ),
        space=space,
        llm=budget,
        batch_size=s.consolidation_batch_size,
        neighbours=s.consolidation_neighbours,
        max_chars=s.max_memory_chars,
        distill=DistillRules.from_settings(s),
        llm_calls_per_batch=cycle.LLM_CALLS_PER_BATCH,
    )


def _batch(conn: psycopg.Connection[Any], tenant_id: UUID, run_id: UUID) -> tuple[RunProgress | None, list[UUID]]:
    """One batch in one transaction: lock the run, do the next piece of its current step, write the
    actions and the checkpoint. Returns the final progress when the run is (or already was) over."""
    with conn.transaction():
        _begin(conn, tenant_id)
        run = store.read_run(conn, run_id, lock=True)
        if run is None:
            raise NotFound(f"consolidation run {run_id} not found")
        if run["status"] in ("done", "undone"):
            return RunProgress("done", run_id), []
        if run["status"] == "failed":
            return RunProgress("failed", run_id, error=run["error"]), []
        store.lock_namespace(conn, tenant_id, run["namespace"])
        changes: Row = {}
        if run["status"] == "queued":
            changes.update(status="running", started_at=datetime.now(UTC))
            run["started_at"] = changes["started_at"]
        steps: list[str] = run["steps"]
        if run["step_index"] >= len(steps):
            changes.update(status="done", finished_at=datetime.now(UTC), step_cursor=None)
            if not run["dry_run"]:
                store.finish_namespace_run(conn, run["namespace"], run_id, run["started_at"])
            store.update_run(conn, run_id, changes)
            return RunProgress("done", run_id), []
        if run["dry_run"]:
            epoch, since = store.namespace_clock(conn, run["namespace"])
        elif run["epoch"] is None:
            epoch, since = store.advance_epoch(conn, tenant_id, run["namespace"])
            changes["epoch"] = epoch
            run["step_cursor"] = {"since": since.isoformat() if since else None}
        else:
            epoch = run["epoch"]
            stored = (run["step_cursor"] or {}).get("since")
            since = datetime.fromisoformat(stored) if stored else None
        if run["dry_run"] and run["step_cursor"] is None:
            run["step_cursor"] = {"since": since.isoformat() if since else None}
        step = steps[run["step_index"]]
        cursor = dict(run["step_cursor"] or {})
        ctx = _context(conn, tenant_id, run, epoch, since)
        started = time.monotonic()
        step_cursor = cycle.STEP_FUNCTIONS[step](ctx, cursor.get("step"))
        counts = dict(run["step_counts"] or {})
        mine = counts.setdefault(step, {"actions": 0, "candidates": 0, "skipped": None})
        mine["seconds"] = round(mine.get("seconds", 0.0) + time.monotonic() - started, 3)
        mine["actions"] += sum(1 for a in ctx.actions if a["applied"] or run["dry_run"])
        mine["candidates"] += ctx.candidates
        mine["skipped"] = ctx.skipped or mine["skipped"]
        store.insert_actions(conn, tenant_id, run_id, run["next_action_seq"], ctx.actions)
        changes.update(
            step_counts=counts,
            next_action_seq=run["next_action_seq"] + len(ctx.actions),
            llm_calls=run["llm_calls"] + ctx.llm.calls,
            llm_input_tokens=run["llm_input_tokens"] + ctx.llm.input_tokens,
            llm_output_tokens=run["llm_output_tokens"] + ctx.llm.output_tokens,
            llm_capped=ctx.llm.capped,
        )
        if step_cursor is None:
            changes.update(step_index=run["step_index"] + 1, step_cursor={"since": cursor.get("since")})
        else:
            changes["step_cursor"] = {"since": cursor.get("since"), "step": step_cursor}
        store.update_run(conn, run_id, changes)
    return None, ctx.chunk_ids


# The backend of a worker that just died holds the run's lock until it notices: at once when it
# waits for the client, within client_connection_check_interval (5 s, set below) when a statement runs.
DEAD_WORKER_WAIT_S = 15.0


def _claim(conn: psycopg.Connection[Any], tenant_id: UUID, run_id: UUID) -> RunProgress | None:
    """Mark the run as worked on now. A mark left set means the last worker on it died mid-run: one
    more interruption; at the limit the run is failed (what it committed stays, and can be undone)."""
    with conn.transaction():
        _begin(conn, tenant_id)
        run = store.read_run(conn, run_id, lock=True)
        if run is None:
            raise NotFound(f"consolidation run {run_id} not found")
        if run["status"] not in ("queued", "running"):
            return None  # the first batch answers for a finished run
        changes: Row = {"worker_started_at": datetime.now(UTC)}
        if run["worker_started_at"] is not None:
            changes["interruptions"] = run["interruptions"] + 1
            limit = settings().consolidation_max_interruptions
            logger.warning(
                "consolidation run resumed after its worker died",
                extra={"run_id": str(run_id), "interruptions": changes["interruptions"]},
            )
            if changes["interruptions"] >= limit:
                error = (
                    f"interrupted {changes['interruptions']} times: the process working on it stopped mid-run"
                    f" (last time after {run['updated_at'].isoformat()}); what it committed stays and can be undone"
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
        conn.execute("SET client_connection_check_interval = '5s'")
        conn.commit()
        if not store.hold_run(conn, run_id, DEAD_WORKER_WAIT_S):
            return RunProgress("busy", run_id)
        progress = _claim(conn, tenant_id, run_id) or _work(conn, tenant_id, run_id, time_budget_s)
        # Not reached when the work raised: the mark stays and the next worker counts an interruption.
        with conn.transaction():
            _begin(conn, tenant_id)
            store.clear_worker_mark(conn, run_id)
        store.let_go_of_run(conn, run_id)
        return progress


def _work(conn: psycopg.Connection[Any], tenant_id: UUID, run_id: UUID, time_budget_s: float) -> RunProgress:
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
                _begin(conn, tenant_id)
                store.update_run(conn, run_id, {"status": "failed", "error": error, "finished_at": datetime.now(UTC)})
            return RunProgress("failed", run_id, batches=batches, error=error)
        enqueue_embedding(tenant_id, chunk_ids)
        if final is not None:
            final.batches = batches
            return final
        batches += 1
        if time.monotonic() >= deadline:
            with conn.transaction():
                _begin(conn, tenant_id)
                run = store.read_run(conn, run_id)
                assert run is not None
                store.update_run(conn, run_id, {"cycles": run["cycles"] + 1})
            step = run["steps"][run["step_index"]] if run["step_index"] < len(run["steps"]) else None
            return RunProgress("continue", run_id, step=step, batches=batches)


# --- reading ------------------------------------------------------------------------------------


def _run_model(row: Row) -> Run:
    counts = row["step_counts"] or {}
    return Run(
        id=row["id"],
        namespace=row["namespace"],
        status=row["status"],
        dry_run=row["dry_run"],
        trigger=row["trigger"],
        steps=row["steps"],
        step_counts=[StepCounts(step=s, **counts[s]) for s in row["steps"] if s in counts],
        epoch=row["epoch"],
        llm_calls=row["llm_calls"],
        llm_input_tokens=row["llm_input_tokens"],
        llm_output_tokens=row["llm_output_tokens"],
        llm_capped=row["llm_capped"],
        error=row["error"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        undone_at=row["undone_at"],
        erased_memories=row["erased_memories"],
    )


def _read(conn: psycopg.Connection[Any], run_id: UUID, lock: bool = False) -> Row:
    row = store.read_run(conn, run_id, lock=lock)
    if row is None:
        raise NotFound(f"consolidation run {run_id} not found")
    return row


def get_run(tenant_id: UUID, run_id: UUID) -> Run:
    with tenant_transaction(tenant_id) as conn:
        return _run_model(_read(conn, run_id))


def get_run_with_actions(tenant_id: UUID, run_id: UUID, cursor: str | None = None, limit: int = 100) -> RunWithActions:
    with tenant_transaction(tenant_id) as conn:
        run = _run_model(_read(conn, run_id))
        page = _actions(conn, run_id, cursor, limit)
    return RunWithActions(**run.model_dump(), actions=page)


def list_runs(tenant_id: UUID, namespace: str | None = None, cursor: str | None = None, limit: int = 50) -> RunPage:
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidField("limit", f"must be between 1 and {MAX_PAGE}", limit=MAX_PAGE)
    with tenant_transaction(tenant_id) as conn:
        rows = store.list_runs(conn, namespace, decode_cursor(cursor) if cursor else None, limit + 1)
    page = rows[:limit]
    nxt = encode_cursor(page[-1]["created_at"], page[-1]["id"]) if len(rows) > limit else None
    return RunPage(items=[_run_model(r) for r in page], next_cursor=nxt)


def _actions(conn: psycopg.Connection[Any], run_id: UUID, cursor: str | None, limit: int) -> ActionPage:
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidField("limit", f"must be between 1 and {MAX_PAGE}", limit=MAX_PAGE)
    after = 0
    if cursor:
        try:
            after = int(cursor)
        except ValueError as exc:
            raise InvalidField("cursor", "is not a cursor this API returned") from exc
    rows = store.list_actions(conn, run_id, after, limit + 1)
    page = rows[:limit]
    return ActionPage(
        items=[Action.model_validate(r) for r in page], next_cursor=str(page[-1]["seq"]) if len(rows) > limit else None
    )


def list_actions(tenant_id: UUID, run_id: UUID, cursor: str | None = None, limit: int = 100) -> ActionPage:
    with tenant_transaction(tenant_id) as conn:
        _read(conn, run_id)
        return _actions(conn, run_id, cursor, limit)


# --- undo ---------------------------------------------------------------------------------------


def _put_back(conn: psycopg.Connection[Any], tenant_id: UUID, run: Row) -> None:
    """Every applied action of the run undone, the last first."""
    memory_columns = store.table_columns(conn, "memories")  # once, not per action
    chunk_columns = store.table_columns(conn, "chunks")
    tree_restored = False
    for action in reversed(store.applied_actions(conn, run["id"])):
        image = action["before_image"] or {}
        if "topic_tree" in image:
            restore_tree(conn, run["namespace"], image["topic_tree"])
            tree_restored = True
        if action["links_created"]:
            remove_links(conn, link_ids=action["links_created"])
        if "decay" in image:
            store.restore_decay(conn, image["decay"])
        if "memories" in image:
            store.restore_memory_images(conn, image["memories"], memory_columns)
        for memory_id, chunks in (image.get("chunks") or {}).items():
            store.restore_chunk_images(conn, UUID(memory_id), chunks, chunk_columns)
        if image.get("created"):  # memories the run wrote (distillation): gone, chunks and all
            store.delete_created_memories(conn, [UUID(i) for i in image["created"]])
    if tree_restored:  # memories placed into the run's tree since it was built
        place_unplaced(conn, tenant_id, run["namespace"])


def undo_run(tenant_id: UUID, run_id: UUID) -> Run:
    """Put back exactly what the run changed: rows from their before-images, links it wrote removed,
    trash restored, memories it wrote (distillation) deleted, the topic tree it replaced back.
    Refused when one of its memories changed since (named), or a later applied run of the namespace
    exists (undo that first)."""
    with tenant_transaction(tenant_id) as conn:
        run = _read(conn, run_id, lock=True)
        if run["dry_run"]:
            raise Conflict("a dry run changed nothing: there is nothing to undo")
        if run["status"] == "undone":
            raise Conflict(f"run {run_id} was undone already")
        if run["status"] in ("queued", "running"):
            raise Conflict(f"run {run_id} is {run['status']}: undo it once it has finished")
        later = store.later_applied_run(conn, run)
        if later:
            raise Conflict(
                f"run {later['id']} ran after this one in namespace {run['namespace']!r}: undo it first",
                {"later_run_id": str(later["id"])},
            )
        changed = store.changed_since_run(conn, run_id)
        if changed:
            shown = ", ".join(map(str, changed[:20])) + (" ..." if len(changed) > 20 else "")
            raise Conflict(
                f"{len(changed)} memories changed since the run: {shown}",
                {"changed_memories": [str(i) for i in changed]},
            )
        _put_back(conn, tenant_id, run)
        store.delete_run_verdicts(conn, run_id)
        store.rewind_namespace(conn, run)
        store.update_run(conn, run_id, {"status": "undone", "undone_at": datetime.now(UTC)})
        return _run_model(_read(conn, run_id))

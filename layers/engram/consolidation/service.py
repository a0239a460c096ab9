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

- ``get_run(tenant_id, run_id) -> Run``; ``list_runs(tenant_id, namespace, cursor, limit) -> RunPage``;
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

from typing import Literal
from uuid import UUID

import psycopg

from engram.consolidation.models import ActionPage, ConsolidateRequest, Run, RunPage, RunProgress

STEPS: tuple[str, ...] = (
    "decay", "promote", "gate", "demote", "dedupe", "reconcile", "buffer_cap", "drop_decayed",
)
Trigger = Literal["api", "schedule", "cli"]


def start_run(conn: psycopg.Connection, tenant_id: UUID, namespace: str, *, dry_run: bool,
              steps: list[str] | None, trigger: Trigger) -> UUID:
    raise NotImplementedError


def run_cycle(dsn: str | None, tenant_id: UUID, run_id: UUID, *, time_budget_s: float) -> RunProgress:
    raise NotImplementedError


def consolidate_request(tenant_id: UUID, req: ConsolidateRequest) -> Run:
    raise NotImplementedError


def get_run(tenant_id: UUID, run_id: UUID) -> Run:
    raise NotImplementedError


def list_runs(tenant_id: UUID, namespace: str | None = None, cursor: str | None = None, limit: int = 50) -> RunPage:
    raise NotImplementedError


def list_actions(tenant_id: UUID, run_id: UUID, cursor: str | None = None, limit: int = 100) -> ActionPage:
    raise NotImplementedError


def undo_run(tenant_id: UUID, run_id: UUID) -> Run:
    raise NotImplementedError

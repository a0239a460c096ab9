"""Edge models of consolidation: the run request, runs, their actions, and a cycle's progress."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field

from engram.core.models import Namespace, Strict

StepName = Literal[
    "decay", "promote", "gate", "demote", "dedupe", "reconcile", "buffer_cap", "drop_decayed", "distill", "topics"
]
RunStatus = Literal["queued", "running", "done", "failed", "undone"]


class ConsolidateRequest(Strict):
    namespace: Namespace = "default"
    dry_run: bool = Field(default=False, description="Plan only: list every action with its reason; change nothing")
    steps: list[StepName] | None = Field(
        default=None, min_length=1, max_length=10, description="Steps to run, in the cycle's order (default: all)"
    )


class StepCounts(BaseModel):
    step: str
    actions: int = 0
    candidates: int = 0  # LLM-dependent actions listed but not decided (dry run, LLM off, cap reached)
    skipped: str | None = None  # why the step did nothing (LLM off, cap reached)
    seconds: float = 0.0  # time spent in the step's batches, all continuations together


class Run(BaseModel):
    id: UUID
    namespace: str
    status: RunStatus
    dry_run: bool
    trigger: Literal["api", "schedule", "cli"]
    steps: list[str]
    step_counts: list[StepCounts]
    epoch: int | None = Field(description="The namespace's epoch this run advanced to (None for dry runs / not yet)")
    llm_calls: int
    llm_input_tokens: int
    llm_output_tokens: int
    llm_capped: str | None = Field(description="Set when a cap stopped the run's LLM steps: which cap")
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    undone_at: datetime | None
    erased_memories: list[UUID] = Field(
        default_factory=list,
        description="Memories this run touched that were erased since (POST /v1/memories/{id}/erase, "
        "POST /v1/erasures): undo restores everything else and cannot bring these back",
    )


class RunPage(BaseModel):
    items: list[Run]
    next_cursor: str | None


class Action(BaseModel):
    seq: int
    step: str
    action: str = Field(
        description="decay, promote, gate_approve, gate_reject, demote, merge, supersede, "
        "contradicts, evict, drop_decayed, distill (distill_refused and distill_declined: not applied, with the "
        "reason), topic_tree, or *_candidate in plans"
    )
    memory_ids: list[UUID]
    reason: str
    details: dict[str, Any]
    applied: bool = Field(description="False in a dry run's plan and for LLM candidates not decided")
    created_at: datetime


class ActionPage(BaseModel):
    items: list[Action]
    next_cursor: str | None


class RunWithActions(Run):
    actions: ActionPage


@dataclass
class RunProgress:
    """What run_cycle tells the worker: finished, needs a continuation, failed, or busy (another live
    worker holds the run and carries it on: this message has nothing to do)."""

    status: Literal["done", "continue", "failed", "busy"]
    run_id: UUID
    step: str | None = None  # the step the checkpoint points at (None when done)
    batches: int = 0  # batches committed by this call
    error: str | None = None
    counts: dict[str, int] = field(default_factory=dict)

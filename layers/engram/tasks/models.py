"""Edge models of task runs: the run, its events (conversation messages), checkpoints and context."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field, StringConstraints, model_validator

from engram.core.models import Metadata, Namespace, Strict

TaskStatus = Literal["running", "done", "failed", "cancelled"]
Item = Annotated[str, StringConstraints(min_length=1, max_length=2000)]
Items = Annotated[list[Item], Field(max_length=100)]


class TaskCreate(Strict):
    goal: str = Field(min_length=1, max_length=4000, description="What the task is for, in the agent's words")
    namespace: Namespace = "default"
    agent_id: str | None = Field(default=None, max_length=200)
    metadata: Metadata = Field(default_factory=dict)


class Task(BaseModel):
    id: UUID
    conversation_id: UUID = Field(description="The ledger: its messages are the task's events")
    namespace: str
    goal: str
    agent_id: str | None
    status: TaskStatus
    outcome: str | None
    metadata: dict[str, Any]
    event_count: int
    checkpoint_count: int
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None


class TaskPage(BaseModel):
    items: list[Task]
    next_cursor: str | None


class TaskEnd(Strict):
    status: Literal["done", "failed", "cancelled"] = "done"
    outcome: str | None = Field(default=None, max_length=4000, description="How it ended, in a few words")


class Artifact(Strict):
    name: str = Field(min_length=1, max_length=500)
    uri: str | None = Field(default=None, max_length=2000, description="Where it is: a path, a URL, a commit")
    note: str | None = Field(default=None, max_length=2000)


class CheckpointCreate(Strict):
    summary: str = Field(min_length=1, max_length=8000, description="Where the task stands")
    completed: Items = Field(default_factory=list)
    pending: Items = Field(default_factory=list)
    decisions: Items = Field(default_factory=list)
    blockers: Items = Field(default_factory=list)
    artifacts: list[Artifact] = Field(default_factory=list, max_length=100)
    seq_to: int | None = Field(
        default=None, ge=0, description="The last event it covers; default the ledger's last event"
    )


class Checkpoint(BaseModel):
    id: UUID
    task_id: UUID
    seq_to: int
    summary: str
    completed: list[str]
    pending: list[str]
    decisions: list[str]
    blockers: list[str]
    artifacts: list[dict[str, Any]]
    created_at: datetime


class ContextShares(Strict):
    """How budget_chars is split between the sections; what one leaves unused goes to the next."""

    checkpoint: float = Field(default=0.3, ge=0, le=1)
    events: float = Field(default=0.3, ge=0, le=1)
    memories: float = Field(default=0.3, ge=0, le=1)
    neighbours: float = Field(default=0.1, ge=0, le=1)

    @model_validator(mode="after")
    def _at_most_whole(self) -> ContextShares:
        total = self.checkpoint + self.events + self.memories + self.neighbours
        if total > 1.000001:
            raise ValueError(f"the shares add up to {total:g}; at most 1")
        return self


class TaskContextRequest(Strict):
    query: str | None = Field(
        default=None, min_length=1, max_length=4000, description="What the agent needs next; default the goal"
    )
    budget_chars: int = Field(default=8000, ge=200, le=100_000, description="A hard limit on the text returned")
    shares: ContextShares = Field(default_factory=ContextShares)


class ContextEvent(BaseModel):
    seq: int
    role: str
    text: str
    created_at: datetime
    truncated: bool
    redacted: bool


class ContextMemory(BaseModel):
    memory_id: UUID
    text: str
    score: float
    critical: bool
    truncated: bool


class ContextNeighbour(BaseModel):
    memory_id: UUID
    relation: str
    of: UUID = Field(description="The memory it is linked to")
    text: str
    truncated: bool


class ContextSection(BaseModel):
    budget_chars: int = Field(description="Its share of budget_chars, with what earlier sections left")
    used_chars: int
    omitted: int = Field(description="Items that did not fit")


class TaskContext(BaseModel):
    task: Task
    query: str
    budget_chars: int
    used_chars: int = Field(description="Characters of `text`; never above budget_chars")
    checkpoints: list[Checkpoint] = Field(description="The latest checkpoint first, then earlier ones as room allows")
    events: list[ContextEvent] = Field(description="Events since the latest checkpoint, in order (the newest kept)")
    critical: list[ContextMemory] = Field(description="The namespace's critical facts, first in the text")
    memories: list[ContextMemory]
    neighbours: list[ContextNeighbour]
    sections: dict[str, ContextSection]
    degraded: list[str]
    text: str = Field(description="The context as text to paste into a prompt")

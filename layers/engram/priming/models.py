"""Edge models of resume and prime."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

from engram.core.models import Namespace, SearchText, StoredImportance, Strict

MAX_BUDGET_CHARS = 100_000


class ResumeMemory(BaseModel):
    memory_id: UUID
    namespace: str
    kind: str
    layer: str
    importance: StoredImportance
    updated_at: datetime
    text: str
    truncated: bool = Field(description="Cut to fit its section (Recent only: Core memories are whole or left out)")


class ResumeTopic(BaseModel):
    id: str
    name: str
    member_count: int
    namespace: str


class ResumeTrigger(BaseModel):
    trigger: str = Field(description="The tag without its `trigger:` prefix")
    access_count: int = Field(description="Recalls of the memories carrying it, together")
    memories: int


class ResumeSession(BaseModel):
    """A conversation's rolling summary (extraction keeps it), or the project status distilled from them."""

    conversation_id: UUID | None = Field(description="None for the project status")
    title: str | None
    namespace: str
    summary: str
    updated_at: datetime


class ResumeSection(BaseModel):
    budget_chars: int = Field(description="The section's share of budget_chars (with what earlier sections left)")
    used_chars: int
    omitted: int = Field(description="Items that did not fit")


class ResumeResponse(BaseModel):
    namespaces: list[str] = Field(description="The namespace asked for, merged with `default`")
    budget_chars: int
    used_chars: int = Field(description="Characters of the text form; never above budget_chars")
    recent_hours: int
    critical: list[ResumeMemory] = Field(
        description="Critical facts, first and within ENGRAM_RECALL_CRITICAL_SHARE of the budget (each line cut to "
        "300 characters)"
    )
    core: list[ResumeMemory]
    sessions: list[ResumeSession] = Field(
        default_factory=list, description="The project status and the latest conversations' summaries"
    )
    recent: list[ResumeMemory]
    topics: list[ResumeTopic]
    triggers: list[ResumeTrigger]
    sections: dict[str, ResumeSection]
    text: str = Field(description="The briefing as text, what format=text returns")


class PrimeRequest(Strict):
    task: SearchText = Field(min_length=1, max_length=8000, description="What the agent is about to do, in its words")
    namespace: Namespace = "default"
    budget_chars: int = Field(default=4000, ge=200, le=MAX_BUDGET_CHARS)
    limit: int = Field(default=10, ge=1, le=50)


class PrimeTopic(BaseModel):
    id: str
    name: str


class PrimedMemory(BaseModel):
    memory_id: UUID
    namespace: str
    kind: str
    layer: str | None
    importance: StoredImportance
    tags: list[str]
    created_at: datetime
    score: float = Field(description="Relevance to the task (recall's score, core memories weighted up)")
    text: str
    truncated: bool
    critical: bool = Field(default=False, description="A critical fact: they come first, whatever the task")
    topic: PrimeTopic | None = Field(description="The leaf topic the memory belongs to, when the tree has it")


class PrimeResponse(BaseModel):
    results: list[PrimedMemory]
    topics: list[PrimeTopic] = Field(description="The topics the results come from, in order of first appearance")
    budget_chars: int
    used_chars: int
    degraded: list[str]


ResumeFormat = Literal["json", "text"]

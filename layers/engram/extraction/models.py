"""Pydantic models of extraction: what callers send and get back, and what the model may answer."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal
from uuid import UUID

from pydantic import BaseModel, Field, model_validator
from pydantic import Strict as StrictMode

from engram.core.models import EvidenceTurn, Namespace, Strict, UuidField

DerivedKind = Literal["fact", "preference", "decision", "event"]
ActionName = Literal["add", "update", "invalidate", "restate"]
RunStatus = Literal["queued", "running", "waiting", "done", "failed", "undone"]
KINDS: tuple[DerivedKind, ...] = ("fact", "preference", "decision", "event")
MAX_CONTENT_CHARS = 1000  # one derived memory: a sentence or two, not a transcript
MAX_PROPOSALS = 40  # per model answer
MAX_SUMMARY_CHARS = 4000
MAX_INSTRUCTIONS_CHARS = 2000
MAX_TEXT_CHARS = 50_000  # POST /v1/extract with text


class Proposal(Strict):
    """One thing the model proposes (the tool's schema): checked against the window before anything is written."""

    action: ActionName
    kind: DerivedKind
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    evidence: list[int] = Field(min_length=1, max_length=50, description="Sequence numbers of the supporting turns")
    target: int | None = Field(
        default=None, ge=1, description="update / invalidate / restate: the stored memory's number"
    )
    event_date: Annotated[date, StrictMode(False)] | None = Field(
        default=None, description="event: the absolute date it happened (YYYY-MM-DD)"
    )

    @model_validator(mode="after")
    def _target(self) -> Proposal:
        if (self.action == "add") != (self.target is None):
            raise ValueError("target: required for update, invalidate and restate; not allowed for add")
        return self


class ModelAnswer(Strict):
    """The whole answer of one extraction call, in the tool's schema."""

    summary: str = Field(max_length=MAX_SUMMARY_CHARS)
    memories: list[Proposal] = Field(max_length=MAX_PROPOSALS)


class ExtractRequest(Strict):
    text: str | None = Field(
        default=None, min_length=1, max_length=MAX_TEXT_CHARS, description="Any text: a meeting note, a tool result"
    )
    conversation_id: UuidField | None = Field(default=None, description="Or a conversation's turns")
    seq_from: int | None = Field(default=None, ge=1, description="With conversation_id: first turn (default: 1)")
    seq_to: int | None = Field(default=None, ge=1, description="With conversation_id: last turn (default: the last)")
    namespace: Namespace | None = Field(
        default=None, description="Where derived memories go (default: the conversation's, else 'default')"
    )
    dry_run: bool = Field(default=False, description="Answer the decisions; write nothing")

    @model_validator(mode="after")
    def _one_source(self) -> ExtractRequest:
        if (self.text is None) == (self.conversation_id is None):
            raise ValueError("text: give either text or conversation_id, not both")
        if self.text is not None and (self.seq_from is not None or self.seq_to is not None):
            raise ValueError("seq_from: only with conversation_id")
        if self.seq_from is not None and self.seq_to is not None and self.seq_to < self.seq_from:
            raise ValueError("seq_to: must not be below seq_from")
        return self


class ExtractionAction(BaseModel):
    seq: int
    action: ActionName
    kind: DerivedKind
    content: str
    event_date: date | None
    memory_id: UUID | None = Field(description="The memory written (add, update)")
    target_id: UUID | None = Field(description="The stored memory acted on (update, invalidate, restate)")
    evidence_seqs: list[int]
    evidence: list[EvidenceTurn] = Field(default_factory=list, description="The turns, verbatim (run detail)")


class ExtractionRun(BaseModel):
    id: UUID
    namespace: str
    conversation_id: UUID | None
    seq_from: int | None
    seq_to: int | None
    trigger: Literal["turns", "quiet", "api"]
    dry_run: bool
    status: RunStatus
    reason: str | None
    attempts: int
    llm_calls: int
    llm_input_tokens: int
    llm_output_tokens: int
    summary_after: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    undone_at: datetime | None
    counts: dict[str, int] = Field(default_factory=dict, description="Actions by name")


class ExtractionRunDetail(ExtractionRun):
    actions: list[ExtractionAction]


class ExtractionRunPage(BaseModel):
    items: list[ExtractionRun]
    next_cursor: str | None


class ExtractionSettingsUpdate(Strict):
    namespace: Namespace
    enabled: bool = True
    kinds: list[DerivedKind] = Field(default_factory=lambda: list(KINDS), min_length=1, max_length=4)
    instructions: str | None = Field(
        default=None,
        max_length=MAX_INSTRUCTIONS_CHARS,
        description="Added to the model's instructions for this namespace (what matters here, what to leave out)",
    )


class NamespaceExtraction(BaseModel):
    namespace: str
    enabled: bool
    kinds: list[DerivedKind]
    instructions: str | None
    updated_at: datetime | None

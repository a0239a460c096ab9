"""Edge models of feedback on recall."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field, model_validator

from engram.core.models import Strict, UuidField

# engram-go's failure classes: why a recall missed, in the agent's judgement.
FailureClass = Literal[
    "vocabulary_mismatch", "aggregation_failure", "stale_ranking", "missing_content", "scope_mismatch"
]
FAILURE_CLASSES: tuple[str, ...] = (
    "vocabulary_mismatch",
    "aggregation_failure",
    "stale_ranking",
    "missing_content",
    "scope_mismatch",
)
FEEDBACK_IDS_MAX = 100


class FeedbackCreate(Strict):
    recall_id: UuidField = Field(description="The recall_id a POST /v1/recall answered")
    useful: list[UuidField] = Field(
        default_factory=list,
        max_length=FEEDBACK_IDS_MAX,
        description="Results that helped: memory ids, chunk ids or conversation message ids that recall returned",
    )
    not_useful: list[UuidField] = Field(
        default_factory=list, max_length=FEEDBACK_IDS_MAX, description="Results that did not help (the same ids)"
    )
    failure_class: FailureClass | None = Field(default=None, description="Why the recall missed, when it did")
    note: str | None = Field(default=None, max_length=2000)

    @model_validator(mode="after")
    def _something_said(self) -> FeedbackCreate:
        if not (self.useful or self.not_useful or self.failure_class):
            raise ValueError("give useful, not_useful or failure_class")
        both = set(self.useful) & set(self.not_useful)
        if both:
            raise ValueError(f"an id cannot be both useful and not useful: {sorted(map(str, both))[0]}")
        return self


class FeedbackWeight(BaseModel):
    id: UUID = Field(description="What ranking weighs: a memory id, or a conversation window's chunk id")
    weight: float = Field(description="-0.5..1 now; decays back to 0 with time")
    ranking_factor: float = Field(description="What recall multiplies its fused score by: 1 + weight")


class Feedback(BaseModel):
    id: UUID
    recall_id: UUID
    failure_class: FailureClass | None
    note: str | None
    created_at: datetime
    weights: list[FeedbackWeight] = Field(description="The weights this feedback moved, as they stand now")


class FeedbackStats(BaseModel):
    retention_days: int
    recall_events: int
    feedback: int
    useful: int = Field(description="Results marked useful, summed over the feedback kept")
    not_useful: int
    by_failure_class: dict[str, int]
    weighted_results: int = Field(description="Results whose ranking weight is not neutral")

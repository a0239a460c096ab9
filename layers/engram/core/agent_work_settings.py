"""Settings of what long-running agents lean on: critical facts, feedback on recall and task runs. One
group of engram.core.config.Settings, which inherits it (config.py would otherwise pass 500 lines)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class AgentWorkSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ENGRAM_", extra="ignore")

    recall_critical_share: float = Field(
        default=0.25,
        ge=0.0,
        le=1.0,
        description="The share of a recall's budget_chars (and of resume's, prime's and task context's) reserved "
        "for the namespace's critical facts, which come first",
    )
    recall_critical_max: int = Field(
        default=10, ge=0, le=100, description="Critical facts one recall, briefing or task context returns at most"
    )
    feedback_retention_days: int = Field(
        default=90,
        ge=0,
        le=3650,
        description="Days recall events (the ids a recall returned, never its query), feedback and feedback weights "
        "are kept; 0: recalls are not kept, answer no recall_id, and feedback is off",
    )
    feedback_half_life_days: float = Field(
        default=14.0,
        gt=0,
        le=3650,
        description="Feedback's effect on ranking halves every this many days without new feedback on the result",
    )

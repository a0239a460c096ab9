"""Feedback's settings: how long recall events and feedback are kept, and how fast feedback fades."""

from __future__ import annotations

from pydantic import Field

from engram.core.config import SettingsGroup, settings_accessor


class FeedbackSettings(SettingsGroup):
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


@settings_accessor
def feedback_settings() -> FeedbackSettings:
    return FeedbackSettings()

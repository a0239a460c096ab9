"""Extraction's settings (memories derived from conversations): how the sweep and a job read a
conversation, and how long a job may hold it. Whether and when an append queues a job are
conversations' settings; the extract-jobs queue and the daily token budget (tenancy reports it) are
shared, in engram.core.config.Settings."""

from __future__ import annotations

from pydantic import Field

from engram.core.config import SettingsGroup, settings_accessor


class ExtractionSettings(SettingsGroup):
    """When conversations are read for facts, preferences, decisions and events."""

    extraction_quiet_s: int = Field(
        default=600,
        ge=0,
        description="A conversation with unread turns and no append for this long is queued by the sweep, seconds",
    )
    extraction_window_turns: int = Field(
        default=60, ge=1, le=200, description="Turns one extraction call reads at most (the rest go to the next job)"
    )
    extraction_neighbours: int = Field(
        default=8, ge=0, le=40, description="Nearest stored memories of the namespace the model is shown"
    )
    extraction_max_attempts: int = Field(
        default=3, ge=1, le=10, description="Model answers tried per job (late, refused, malformed) before it fails"
    )
    extraction_lease_s: int = Field(
        default=300, ge=30, description="A running job's claim: past it, a worker killed mid-job is taken over"
    )


@settings_accessor
def extraction_settings() -> ExtractionSettings:
    return ExtractionSettings()

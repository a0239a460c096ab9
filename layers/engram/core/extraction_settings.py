"""Extraction's settings (memories derived from conversations): one group of
engram.core.config.Settings, which inherits it."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ExtractionSettings(BaseSettings):
    """When conversations are read for facts, preferences, decisions and events, and what it may cost."""

    model_config = SettingsConfigDict(env_prefix="ENGRAM_", extra="ignore")

    extract_queue_url: str | None = Field(
        default=None,
        description="The extract-jobs SQS queue: appends and the sweep send conversation windows, the extraction "
        "worker consumes them",
    )
    extraction_enabled: bool = Field(
        default=True,
        description="Derive memories from conversations in the background (also needs an LLM: ENGRAM_LLM_LEVEL "
        "and a provider); per namespace, PUT /v1/extraction/settings turns it off or narrows it",
    )
    extraction_min_turns: int = Field(
        default=20, ge=1, le=200, description="New turns that queue an extraction job at once (from the append)"
    )
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
    extraction_daily_tokens: int = Field(
        default=500_000,
        ge=0,
        description="Per tenant per UTC day, LLM tokens background extraction may spend (every purpose counts "
        "towards it); over it jobs wait for the next day and say so",
    )
    extraction_max_attempts: int = Field(
        default=3, ge=1, le=10, description="Model answers tried per job (late, refused, malformed) before it fails"
    )
    extraction_lease_s: int = Field(
        default=300, ge=30, description="A running job's claim: past it, a worker killed mid-job is taken over"
    )

"""Erasure's settings: how long the trash keeps a memory, and how much one erasure request may erase."""

from __future__ import annotations

from pydantic import Field

from engram.core.config import SettingsGroup, settings_accessor


class ErasureSettings(SettingsGroup):
    trash_retention_days: int = Field(
        default=30,
        ge=1,
        le=3650,
        description="Days a memory stays in the trash (restorable); after that the scheduled work erases it for good",
    )
    erasure_max_memories: int = Field(
        default=50_000,
        ge=1,
        description="Memories one POST /v1/erasures may erase (it runs in the request); a larger subject is "
        "refused with the count: narrow the selector (a time range) and erase it in parts",
    )


@settings_accessor
def erasure_settings() -> ErasureSettings:
    return ErasureSettings()

"""Portability's settings: an export's download link, and the largest file an import takes."""

from __future__ import annotations

from pydantic import Field

from engram.core.config import SettingsGroup, settings_accessor


class PortabilitySettings(SettingsGroup):
    export_url_expiry_s: int = Field(
        default=3600, ge=60, le=7 * 24 * 3600, description="Lifetime of an export's presigned download URL, seconds"
    )
    import_max_bytes: int = Field(
        default=256 * 1024 * 1024,
        ge=1024,
        le=5 * 1024 * 1024 * 1024,
        description="Largest JSONL file POST /v1/imports accepts, bytes (the worker keeps it in its temp space)",
    )


@settings_accessor
def portability_settings() -> PortabilitySettings:
    return PortabilitySettings()

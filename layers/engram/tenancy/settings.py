"""Tenancy's settings: how many API keys a tenant may hold."""

from __future__ import annotations

from pydantic import Field

from engram.core.config import SettingsGroup, settings_accessor


class TenancySettings(SettingsGroup):
    max_active_keys_per_tenant: int = Field(
        default=100, ge=1, description="Active API keys per tenant: a leak of issued keys stops here"
    )


@settings_accessor
def tenancy_settings() -> TenancySettings:
    return TenancySettings()

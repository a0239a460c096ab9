"""OAuth's settings, for the remote MCP endpoint (connectors), whose authorization server the API is:
token lives, and how clients are registered and kept."""

from __future__ import annotations

from pydantic import Field

from engram.core.config import SettingsGroup, settings_accessor


class OAuthSettings(SettingsGroup):
    oauth_access_token_ttl_s: int = Field(
        default=900, ge=60, le=86_400, description="An OAuth access token's life, seconds (MCP connectors)"
    )
    oauth_refresh_token_ttl_s: int = Field(
        default=30 * 86_400,
        ge=3600,
        le=365 * 86_400,
        description="An OAuth refresh token's life, seconds; each refresh rotates it and starts a new one",
    )
    oauth_client_metadata_documents: bool = Field(
        default=True,
        description="Fetch Client ID Metadata Documents (a client id that is an https URL) and advertise it in "
        "the authorization server metadata. The CDK app turns it off where the oauth function has no route to "
        "the internet (no NAT gateway): clients then register (RFC 7591) instead of failing at /oauth/authorize",
    )
    oauth_unused_client_ttl_s: int = Field(
        default=86_400,
        ge=600,
        le=365 * 86_400,
        description="How long an OAuth client is kept after it registered or last started an authorization, "
        "seconds, unless a grant it holds lasts longer; then it is deleted (registration is open to anyone)",
    )
    oauth_allow_local_metadata_urls: bool = Field(
        default=False,
        description="Accept http://127.0.0.1 / localhost Client ID Metadata Document URLs (tests, local runs "
        "only); otherwise a client id URL must be https",
    )


@settings_accessor
def oauth_settings() -> OAuthSettings:
    return OAuthSettings()

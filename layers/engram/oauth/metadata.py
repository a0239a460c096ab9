"""The discovery documents of the remote MCP endpoint and its authorization server (RFC 9728,
RFC 8414), and the resource every access token is bound to (RFC 8707)."""

from __future__ import annotations

from typing import Any

from engram.oauth.models import SCOPES
from engram.oauth.settings import oauth_settings

__all__ = ["authorization_server_metadata", "protected_resource_metadata", "resource_url", "same_resource"]


def resource_url(base: str) -> str:
    """The canonical MCP URL: the resource every access token is bound to."""
    return f"{base}/mcp"


def same_resource(a: str, b: str) -> bool:
    return a.rstrip("/") == b.rstrip("/")


def protected_resource_metadata(base: str) -> dict[str, Any]:
    """RFC 9728: what the MCP endpoint is and which authorization server issues its tokens."""
    return {
        "resource": resource_url(base),
        "authorization_servers": [base],
        "scopes_supported": list(SCOPES),
        "bearer_methods_supported": ["header"],
        "resource_name": "Engram memory (MCP)",
    }


def authorization_server_metadata(base: str) -> dict[str, Any]:
    """RFC 8414."""
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/oauth/authorize",
        "token_endpoint": f"{base}/oauth/token",
        "registration_endpoint": f"{base}/oauth/register",
        "revocation_endpoint": f"{base}/oauth/revoke",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": list(SCOPES),
        # Only where the function can fetch them: a client that prefers them would fail at /oauth/authorize.
        "client_id_metadata_document_supported": oauth_settings().oauth_client_metadata_documents,
    }

"""What the OAuth endpoints read, stated for the OpenAPI document. /oauth/token and /oauth/revoke take
form bodies and /oauth/authorize a query string, which their handlers read as plain mappings (so
that every error keeps OAuth's shape); these models and parameters say what those mappings must
hold. engram_http.openapi puts them into the document."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from engram.oauth.authorization import MAX_STATE_CHARS
from engram.oauth.models import MAX_URI_CHARS

_SCOPES_PATTERN = r"^(read|write|admin)( (read|write|admin))*$"
_VERIFIER_PATTERN = r"^[A-Za-z0-9._~-]{43,128}$"
_CHALLENGE_PATTERN = r"^[A-Za-z0-9_-]{43}$"


class TokenForm(BaseModel):
    """The token endpoint's form (application/x-www-form-urlencoded). authorization_code needs code,
    code_verifier, redirect_uri and client_id; refresh_token needs refresh_token and client_id. A
    parameter sent twice is invalid_request."""

    grant_type: Literal["authorization_code", "refresh_token"]
    client_id: str = Field(max_length=MAX_URI_CHARS, description="The client the code or token was issued to")
    code: str | None = Field(default=None, max_length=200, description="authorization_code: the one-time code")
    code_verifier: str | None = Field(
        default=None, pattern=_VERIFIER_PATTERN, description="authorization_code: the PKCE verifier (RFC 7636)"
    )
    redirect_uri: str | None = Field(
        default=None, max_length=MAX_URI_CHARS, description="authorization_code: as in the authorization request"
    )
    refresh_token: str | None = Field(default=None, max_length=200, description="refresh_token: the token")
    scope: str | None = Field(
        default=None, pattern=_SCOPES_PATTERN, description="refresh_token: narrower scopes (never wider)"
    )
    resource: str | None = Field(default=None, description="This API's <base>/mcp when given (RFC 8707)")


class RevokeForm(BaseModel):
    """The revocation endpoint's form (RFC 7009): an unknown, expired or revoked token is no error."""

    token: str = Field(min_length=1)
    token_type_hint: Literal["access_token", "refresh_token"] | None = None


FORM_MODELS: dict[tuple[str, str], type[BaseModel]] = {
    ("post", "/oauth/token"): TokenForm,
    ("post", "/oauth/revoke"): RevokeForm,
}


def _query(name: str, schema: dict[str, Any], description: str, *, required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": schema, "description": description}


AUTHORIZE_PARAMETERS: list[dict[str, Any]] = [
    _query("response_type", {"type": "string", "enum": ["code"]}, "Always code", required=True),
    _query(
        "client_id",
        {"type": "string", "maxLength": MAX_URI_CHARS},
        "A registered client's id, or the https URL of its Client ID Metadata Document; anything else gets the page",
        required=True,
    ),
    _query(
        "redirect_uri",
        {"type": "string", "maxLength": MAX_URI_CHARS},
        "One of the client's registered redirect URIs (may be left out when it registered exactly one)",
    ),
    _query("code_challenge", {"type": "string", "pattern": _CHALLENGE_PATTERN}, "PKCE S256 challenge", required=True),
    _query("code_challenge_method", {"type": "string", "enum": ["S256"]}, "Always S256", required=True),
    _query("state", {"type": "string", "maxLength": MAX_STATE_CHARS}, "Returned as given"),
    _query("scope", {"type": "string", "pattern": _SCOPES_PATTERN}, "Space-separated; default read write"),
    _query("resource", {"type": "string"}, "This API's <base>/mcp (RFC 8707); default that"),
]
QUERY_PARAMETERS: dict[tuple[str, str], list[dict[str, Any]]] = {("get", "/oauth/authorize"): AUTHORIZE_PARAMETERS}

"""OAuth's edge models (registration, consent, tokens, grants) and the rows the store returns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engram.core.models import Namespace, Strict
from engram.core.text import storable_text

# An API key's scopes (engram.tenancy; the tables' CHECKs hold both to this set): a grant's are a subset.
SCOPES = ("read", "write", "admin")
Scope = Literal["read", "write", "admin"]
ACCESS_TOKEN_PREFIX = "eat_"
REFRESH_TOKEN_PREFIX = "ert_"
CODE_PREFIX = "eac_"
MAX_REDIRECT_URIS = 10
MAX_URI_CHARS = 2000
MAX_GRANT_NAMESPACES = 50
# A registration document with ten redirect URIs of MAX_URI_CHARS fits; anything larger is refused
# before it is parsed (the endpoint is open to anyone).
MAX_REGISTRATION_BYTES = 32 * 1024


class OAuthError(Exception):
    """An error in RFC 6749's shape ({"error", "error_description"}), not the API's envelope:
    OAuth clients read these codes. `status` 400 unless said otherwise."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


class AuthorizePageError(Exception):
    """An /authorize request that cannot be sent back to the client (unknown client, redirect URI not
    registered): the person gets a page saying why, never a redirect to an unverified URI."""


class ClientRegistration(BaseModel):
    """RFC 7591's request, public clients only: the members the server uses, each capped. Any other
    member is ignored and not kept (RFC 7591 §2: a server ignores metadata it does not understand)."""

    model_config = ConfigDict(extra="ignore")

    redirect_uris: list[Annotated[str, Field(max_length=MAX_URI_CHARS)]] = Field(
        min_length=1,
        max_length=MAX_REDIRECT_URIS,
        description="Each https, http on a loopback host (127.0.0.1, localhost, [::1]: native apps), or an"
        " app's own scheme (com.example.app:/cb); absolute, with a host and port that parse, no fragment, no"
        " user name or password",
    )
    client_name: str | None = Field(default=None, max_length=200)
    token_endpoint_auth_method: Literal["none"] | None = Field(default=None, description="Public clients only")
    grant_types: list[Literal["authorization_code", "refresh_token"]] | None = Field(default=None, max_length=10)
    response_types: list[Literal["code"]] | None = Field(default=None, max_length=10)
    scope: str | None = Field(default=None, max_length=200)

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, document: Any) -> Any:
        return storable_text(document)  # kept in jsonb, which holds no NUL


class RegisteredClient(BaseModel):
    client_id: str
    client_id_issued_at: int
    client_name: str | None
    redirect_uris: list[str]
    token_endpoint_auth_method: Literal["none"] = "none"
    grant_types: list[str] = ["authorization_code", "refresh_token"]
    response_types: list[str] = ["code"]


class PendingAuthorization(BaseModel):
    """What the consent page shows: who asks, for what, and where the answer goes."""

    client_name: str
    client_id: str
    redirect_host: str = Field(
        description="The host (and port) the answer goes to, never a user name; IDNA for non-ASCII names"
    )
    scopes: list[str]
    resource: str
    expires_at: datetime


class Approval(Strict):
    scopes: list[Scope] = Field(
        min_length=1,
        max_length=3,
        description="Within the request's and the key's scopes; admin only without namespaces",
    )
    namespaces: list[Namespace] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_GRANT_NAMESPACES,
        description="Confine the grant to these namespaces; null: every namespace",
    )


class RedirectTo(BaseModel):
    redirect_to: str = Field(description="Where the consent page sends the browser back to the client")


class TokenAnswer(BaseModel):
    access_token: str
    token_type: Literal["Bearer"] = "Bearer"
    expires_in: int
    refresh_token: str
    scope: str


class GrantInfo(BaseModel):
    id: UUID
    client_id: str
    client_name: str
    key_id: UUID = Field(description="The API key that granted it; revoking the key revokes the grant")
    scopes: list[str]
    namespaces: list[str] | None = Field(description="null: every namespace")
    resource: str
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime = Field(description="When its refresh token expires unless used")
    revoked_at: datetime | None


class GrantList(BaseModel):
    grants: list[GrantInfo]


@dataclass(frozen=True)
class ClientRow:
    id: str
    client_name: str
    redirect_uris: list[str]
    metadata_document: bool
    fetched_at: datetime | None
    approved: bool  # a person approved it once: /authorize may redirect its errors to it


@dataclass(frozen=True)
class RequestRow:
    id: str
    client_id: str
    client_name: str
    redirect_uri: str
    code_challenge: str
    state: str | None
    scopes: list[str]
    resource: str
    expires_at: datetime


@dataclass(frozen=True)
class CodeRow:
    grant_id: UUID
    client_id: str
    redirect_uri: str
    code_challenge: str
    expired: bool
    used: bool
    scopes: list[str]
    resource: str
    grant_revoked: bool


@dataclass(frozen=True)
class RefreshRow:
    grant_id: UUID
    client_id: str
    kind: str
    scopes: list[str]
    resource: str
    expired: bool
    rotated: bool
    revoked: bool
    grant_revoked: bool
    key_scopes: list[str]


@dataclass(frozen=True)
class TokenCaller:
    """An access token's caller, as engram_authenticate_token returns it."""

    grant_id: UUID
    tenant_id: UUID
    key_id: UUID
    scopes: list[str]
    namespaces: list[str] | None
    resource: str

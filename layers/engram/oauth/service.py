"""OAuth 2.1 for the remote MCP endpoint, as the MCP authorization spec asks: the public face of
oauth. engram.oauth.metadata holds the metadata documents (RFC 9728, RFC 8414) and the resource
tokens are bound to (RFC 8707); engram.oauth.clients client registration (RFC 7591) and Client ID
Metadata Documents; engram.oauth.authorization /authorize with PKCE S256 and the consent's approval
or denial; engram.oauth.tokens the token endpoint (authorization code, refresh tokens rotated on
use), revocation (RFC 7009) and the access token check; engram.oauth.grants a tenant's grants.

Stateless: every step's state (pending authorizations, codes, grants, tokens) is in PostgreSQL with
its expiry. A grant never does more than its granting key: the key's current scopes bound every
token at each use, and revoking the key revokes its grants (a trigger)."""

from __future__ import annotations

from engram.oauth.authorization import DEFAULT_SCOPES, approve, authorize, deny, pending_authorization
from engram.oauth.clients import register_client
from engram.oauth.grants import list_grants, revoke_grant
from engram.oauth.metadata import authorization_server_metadata, protected_resource_metadata, resource_url
from engram.oauth.tokens import authenticate_access_token, revoke, token

__all__ = [
    "DEFAULT_SCOPES",
    "approve",
    "authenticate_access_token",
    "authorization_server_metadata",
    "authorize",
    "deny",
    "list_grants",
    "pending_authorization",
    "protected_resource_metadata",
    "register_client",
    "resource_url",
    "revoke",
    "revoke_grant",
    "token",
]

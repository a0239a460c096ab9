"""The token endpoint for public clients (an authorization code with PKCE S256, or a refresh token,
rotated on use; a code or refresh token presented twice revokes its grant), revocation (RFC 7009),
and who an access token's bearer is."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Mapping, Sequence
from uuid import UUID

from engram.core.db import Conn, anonymous_transaction, tenant_transaction
from engram.core.text import storable_text
from engram.oauth import store
from engram.oauth.metadata import resource_url, same_resource
from engram.oauth.models import ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX, OAuthError, TokenAnswer, TokenCaller
from engram.oauth.settings import oauth_settings

__all__ = ["authenticate_access_token", "revoke", "token"]

# RFC 7636: a verifier is 43-128 characters of [A-Z a-z 0-9 - . _ ~].
_VERIFIER = re.compile(r"^[A-Za-z0-9\-._~]{43,128}$")


def _required(form: Mapping[str, str], name: str) -> str:
    value = form.get(name)
    if not value:
        raise OAuthError("invalid_request", f"{name} is required")
    return value


def _pkce_matches(verifier: str, challenge: str) -> bool:
    if not _VERIFIER.match(verifier):
        return False
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return secrets.compare_digest(digest, challenge)


def _issue(conn: Conn, tenant_id: UUID, grant_id: UUID, scopes: Sequence[str]) -> TokenAnswer:
    s = oauth_settings()
    access = ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)
    refresh = REFRESH_TOKEN_PREFIX + secrets.token_urlsafe(32)
    store.save_token(conn, tenant_id, grant_id, access, "access", scopes, s.oauth_access_token_ttl_s)
    store.save_token(conn, tenant_id, grant_id, refresh, "refresh", scopes, s.oauth_refresh_token_ttl_s)
    store.extend_grant(conn, grant_id, s.oauth_refresh_token_ttl_s)
    store.keep_client_of_grant(conn, grant_id, s.oauth_refresh_token_ttl_s)
    store.drop_expired_tokens(conn, grant_id)
    return TokenAnswer(
        access_token=access, expires_in=s.oauth_access_token_ttl_s, refresh_token=refresh, scope=" ".join(scopes)
    )


def _tenant_of(secret: str) -> UUID:
    if len(secret) > 200 or not secret.isascii():
        raise OAuthError("invalid_grant", "the code or token is not valid")
    with anonymous_transaction() as conn:
        tenant_id = store.tenant_of(conn, secret)
    if tenant_id is None:
        raise OAuthError("invalid_grant", "the code or token is not valid")
    return tenant_id


def _storable(form: Mapping[str, str]) -> None:
    """Parameters the database can compare: no NUL, valid Unicode."""
    try:
        storable_text(list(form.items()))
    except ValueError as exc:
        raise OAuthError("invalid_request", f"a parameter {exc}") from None


def token(form: Mapping[str, str], base: str) -> TokenAnswer:
    """POST /oauth/token for public clients: authorization_code (PKCE S256) or refresh_token."""
    _storable(form)
    grant_type = _required(form, "grant_type")
    if grant_type == "authorization_code":
        return _redeem_code(form, base)
    if grant_type == "refresh_token":
        return _refresh(form, base)
    raise OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")


def _redeem_code(form: Mapping[str, str], base: str) -> TokenAnswer:
    code = _required(form, "code")
    verifier = _required(form, "code_verifier")
    redirect_uri = _required(form, "redirect_uri")
    client_id = _required(form, "client_id")
    resource = form.get("resource")
    if resource is not None and not same_resource(resource, resource_url(base)):
        raise OAuthError("invalid_target", f"the resource must be {resource_url(base)}")
    tenant_id = _tenant_of(code)
    reused = False
    with tenant_transaction(tenant_id) as conn:
        row = store.code_for_update(conn, code)
        if row is None:
            raise OAuthError("invalid_grant", "the code is not valid")
        if row.used:
            # A code presented twice was stolen or replayed: what it issued is revoked (RFC 6749 §4.1.2).
            store.revoke_grant(conn, row.grant_id)
            reused = True
        else:
            if row.expired:
                raise OAuthError("invalid_grant", "the code expired")
            if row.client_id != client_id:
                raise OAuthError("invalid_grant", "the code was issued to another client")
            if row.redirect_uri != redirect_uri:
                raise OAuthError("invalid_grant", "redirect_uri does not match the authorization request's")
            if not _pkce_matches(verifier, row.code_challenge):
                raise OAuthError("invalid_grant", "code_verifier does not match the code_challenge (PKCE)")
            if row.grant_revoked:
                raise OAuthError("invalid_grant", "the grant was revoked")
            if not same_resource(row.resource, resource_url(base)):
                raise OAuthError("invalid_target", "the code was issued for another resource")
            store.mark_code_used(conn, code)
            answer = _issue(conn, tenant_id, row.grant_id, row.scopes)
    if reused:
        raise OAuthError("invalid_grant", "the code was already used; the tokens it issued are revoked")
    return answer


def _refresh(form: Mapping[str, str], base: str) -> TokenAnswer:
    refresh = _required(form, "refresh_token")
    client_id = _required(form, "client_id")
    resource = form.get("resource")
    if resource is not None and not same_resource(resource, resource_url(base)):
        raise OAuthError("invalid_target", f"the resource must be {resource_url(base)}")
    tenant_id = _tenant_of(refresh)
    reused = False
    with tenant_transaction(tenant_id) as conn:
        row = store.refresh_for_update(conn, refresh)
        if row is None or row.kind != "refresh":
            raise OAuthError("invalid_grant", "the refresh token is not valid")
        if row.rotated and not row.revoked:
            # A rotated refresh token presented again: one of the two holders is not the client.
            store.revoke_grant(conn, row.grant_id)
            reused = True
        else:
            if row.revoked or row.grant_revoked or row.rotated:
                raise OAuthError("invalid_grant", "the refresh token was revoked")
            if row.expired:
                raise OAuthError("invalid_grant", "the refresh token expired")
            if row.client_id != client_id:
                raise OAuthError("invalid_grant", "the refresh token was issued to another client")
            if not same_resource(row.resource, resource_url(base)):
                raise OAuthError("invalid_target", "the refresh token was issued for another resource")
            scopes = row.scopes
            if form.get("scope"):
                asked = list(dict.fromkeys((form.get("scope") or "").split()))
                wider = [s for s in asked if s not in row.scopes]
                if wider:
                    raise OAuthError("invalid_scope", f"the grant does not include the '{wider[0]}' scope")
                scopes = asked
            store.mark_rotated(conn, refresh)
            answer = _issue(conn, tenant_id, row.grant_id, scopes)
    if reused:
        raise OAuthError("invalid_grant", "the refresh token was already used; the grant is revoked")
    return answer


def revoke(form: Mapping[str, str]) -> None:
    """RFC 7009: a token that is unknown, expired or already revoked is no error."""
    _storable(form)
    value = _required(form, "token")
    try:
        tenant_id = _tenant_of(value)
    except OAuthError:
        return
    with tenant_transaction(tenant_id) as conn:
        store.revoke_token(conn, value)


def authenticate_access_token(conn: Conn, access_token: str, base: str | None) -> TokenCaller | None:
    """The caller of an active access token bound to this API's resource (`base`'s /mcp; None: any);
    None for anything else. Its scopes are within the granting key's current scopes."""
    if not access_token.startswith(ACCESS_TOKEN_PREFIX) or len(access_token) > 200 or not access_token.isascii():
        return None
    found = store.authenticate_token(conn, access_token)
    if found is None:
        return None
    if base is not None and not same_resource(found.resource, resource_url(base)):
        return None  # a token for another deployment's resource
    return found

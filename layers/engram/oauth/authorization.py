"""/authorize and the consent: an authorization request is checked (PKCE S256, scopes, the resource)
and kept for the consent page, which the person approves (a grant and a one-time code for the
client's redirect URI) or denies."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit
from uuid import UUID

from engram.core.db import anonymous_transaction, tenant_transaction
from engram.core.errors import Forbidden, InvalidField, NotFound
from engram.core.text import storable_text
from engram.oauth import store
from engram.oauth.clients import redirect_host, resolve_client
from engram.oauth.metadata import resource_url, same_resource
from engram.oauth.models import (
    CODE_PREFIX,
    SCOPES,
    Approval,
    AuthorizePageError,
    ClientRow,
    OAuthError,
    PendingAuthorization,
    RedirectTo,
)
from engram.oauth.settings import oauth_settings

__all__ = ["DEFAULT_SCOPES", "approve", "authorize", "deny", "pending_authorization"]

REQUEST_TTL_S = 600  # the person has ten minutes on the consent page
CODE_TTL_S = 60
DEFAULT_SCOPES = ("read", "write")  # an /authorize request without `scope`
MAX_STATE_CHARS = 1000
# RFC 7636: an S256 challenge is 43 characters of base64url.
_CHALLENGE = re.compile(r"^[A-Za-z0-9\-_]{43}$")


def _with_params(uri: str, params: Mapping[str, str | None]) -> str:
    parts = urlsplit(uri)
    query = parse_qsl(parts.query, keep_blank_values=True)
    query += [(k, v) for k, v in params.items() if v is not None]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def _scopes(requested: str | None) -> list[str]:
    if requested is None or not requested.strip():
        return list(DEFAULT_SCOPES)
    asked = list(dict.fromkeys(requested.split()))
    unknown = [s for s in asked if s not in SCOPES]
    if unknown:
        raise OAuthError("invalid_scope", f"unknown scope {unknown[0]!r}; the scopes are {' '.join(SCOPES)}")
    return asked


def _client_and_redirect(params: Mapping[str, str]) -> tuple[ClientRow, str]:
    """The registered client and one of its redirect URIs, or AuthorizePageError: until both are
    known there is nowhere safe to send an error."""
    try:
        storable_text(list(params.items()))
    except ValueError as exc:
        raise AuthorizePageError(f"a parameter {exc}") from None
    client_id = params.get("client_id") or ""
    if not client_id:
        raise AuthorizePageError("client_id is missing")
    client = resolve_client(client_id)
    if client is None:
        raise AuthorizePageError("this client is not registered")
    redirect_uri = params.get("redirect_uri")
    if redirect_uri is None and len(client.redirect_uris) == 1:
        redirect_uri = client.redirect_uris[0]
    if redirect_uri is None or redirect_uri not in client.redirect_uris:
        raise AuthorizePageError("redirect_uri is missing or not one the client registered")
    return client, redirect_uri


def authorize(params: Mapping[str, str], base: str) -> str:
    """The Location /authorize answers with: the consent page for a valid request, the client's
    redirect URI with `error` for an invalid one. AuthorizePageError: nowhere safe to redirect to,
    which includes any error of a client no person has approved yet (RFC 9700 §4.11.2: registering
    is open to anyone, so a redirect before then would make this API an open redirector)."""
    client, redirect_uri = _client_and_redirect(params)
    state = params.get("state")
    try:
        if state is not None and len(state) > MAX_STATE_CHARS:
            raise OAuthError("invalid_request", f"state is at most {MAX_STATE_CHARS} characters")
        if params.get("response_type") != "code":
            raise OAuthError("unsupported_response_type", "response_type must be code")
        challenge = params.get("code_challenge")
        if not challenge:
            raise OAuthError("invalid_request", "code_challenge is required (PKCE)")
        if params.get("code_challenge_method") != "S256":
            raise OAuthError("invalid_request", "code_challenge_method must be S256")
        if not _CHALLENGE.match(challenge):
            raise OAuthError("invalid_request", "code_challenge must be 43 base64url characters (S256)")
        scopes = _scopes(params.get("scope"))
        resource = params.get("resource") or resource_url(base)
        if not same_resource(resource, resource_url(base)):
            raise OAuthError("invalid_target", f"the resource must be {resource_url(base)}")
    except OAuthError as exc:
        if not client.approved:
            raise AuthorizePageError(f"{exc.description} ({exc.error})") from None
        return _with_params(redirect_uri, {"error": exc.error, "error_description": exc.description, "state": state})
    request_id = secrets.token_urlsafe(32)
    with anonymous_transaction() as conn:
        if not store.keep_client(conn, client.id, oauth_settings().oauth_unused_client_ttl_s):
            raise AuthorizePageError("this client is not registered")  # it expired a moment ago
        store.save_request(
            conn, request_id, client.id, redirect_uri, challenge, state, scopes, resource_url(base), REQUEST_TTL_S
        )
    return f"{base}/console/consent.html?{urlencode({'request': request_id})}"


def _request_id(request_id: str) -> str:
    if len(request_id) > 100:
        raise NotFound("no such authorization request, or it expired")
    return request_id


def pending_authorization(request_id: str) -> PendingAuthorization:
    with anonymous_transaction() as conn:
        row = store.pending_request(conn, _request_id(request_id))
    if row is None:
        raise NotFound("no such authorization request, or it expired")
    return PendingAuthorization(
        client_name=row.client_name or row.client_id,
        client_id=row.client_id,
        redirect_host=redirect_host(row.redirect_uri),
        scopes=row.scopes,
        resource=row.resource,
        expires_at=row.expires_at,
    )


def approve(
    request_id: str,
    approval: Approval,
    *,
    tenant_id: UUID,
    key_id: UUID,
    key_scopes: frozenset[str],
    via_token: bool,
) -> RedirectTo:
    """The person signed in with an API key (`key_id`, holding `key_scopes`) and allowed the client
    `approval`: a grant and a one-time code. Consumes the request."""
    if via_token:
        raise Forbidden("an OAuth access token cannot grant access; sign in with an API key")
    scopes = list(dict.fromkeys(approval.scopes))
    if approval.namespaces is not None and "admin" in scopes:
        raise InvalidField(
            "scopes", "admin cannot be granted with namespaces (admin manages keys, which no namespace confines)"
        )
    code = CODE_PREFIX + secrets.token_urlsafe(32)
    with tenant_transaction(tenant_id) as conn:
        row = store.pending_request(conn, _request_id(request_id))
        if row is None:
            raise NotFound("no such authorization request, or it expired")
        for scope in scopes:
            if scope not in row.scopes:
                raise Forbidden(f"the client did not ask for the '{scope}' scope", {"scope": scope})
            if scope not in key_scopes and "admin" not in key_scopes:
                raise Forbidden(f"this key lacks the '{scope}' scope, so it cannot grant it", {"scope": scope})
        store.take_request(conn, row.id)
        store.mark_client_approved(conn, row.client_id)
        grant_id = store.create_grant(
            conn,
            tenant_id,
            key_id,
            row.client_id,
            row.client_name,
            scopes,
            list(dict.fromkeys(approval.namespaces)) if approval.namespaces is not None else None,
            row.resource,
            oauth_settings().oauth_refresh_token_ttl_s,
        )
        store.keep_client_of_grant(conn, grant_id, oauth_settings().oauth_refresh_token_ttl_s)
        store.save_code(conn, tenant_id, code, grant_id, row.redirect_uri, row.code_challenge, CODE_TTL_S)
    return RedirectTo(redirect_to=_with_params(row.redirect_uri, {"code": code, "state": row.state}))


def deny(request_id: str) -> RedirectTo:
    with anonymous_transaction() as conn:
        row = store.take_request(conn, _request_id(request_id))
    if row is None:
        raise NotFound("no such authorization request, or it expired")
    return RedirectTo(
        redirect_to=_with_params(
            row.redirect_uri,
            {"error": "access_denied", "error_description": "the person declined", "state": row.state},
        )
    )

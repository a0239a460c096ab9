"""OAuth 2.1 for the remote MCP endpoint, as the MCP authorization spec asks: the metadata documents
(RFC 9728, RFC 8414), client registration (RFC 7591, and Client ID Metadata Documents), /authorize
with PKCE S256 and resource indicators (RFC 8707), the consent's approval, the token endpoint
(authorization code, refresh tokens rotated on use), revocation (RFC 7009), grants.

Stateless: every step's state (pending authorizations, codes, grants, tokens) is in PostgreSQL with
its expiry. A grant never does more than its granting key: the key's current scopes bound every
token at each use, and revoking the key revokes its grants (a trigger)."""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import re
import secrets
import socket
import time
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit
from uuid import UUID

from pydantic import ValidationError

from engram.core.config import settings
from engram.core.db import Conn, anonymous_transaction, tenant_transaction
from engram.core.errors import Forbidden, InvalidField, NotFound
from engram.oauth import store
from engram.oauth.models import (
    ACCESS_TOKEN_PREFIX,
    CODE_PREFIX,
    MAX_URI_CHARS,
    REFRESH_TOKEN_PREFIX,
    SCOPES,
    Approval,
    AuthorizePageError,
    ClientRegistration,
    ClientRow,
    GrantList,
    OAuthError,
    PendingAuthorization,
    RedirectTo,
    RegisteredClient,
    TokenAnswer,
    TokenCaller,
)

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

REQUEST_TTL_S = 600  # the person has ten minutes on the consent page
CODE_TTL_S = 60
DEFAULT_SCOPES = ("read", "write")  # an /authorize request without `scope`
METADATA_DOCUMENT_TIMEOUT_S = 3.0
METADATA_DOCUMENT_MAX_BYTES = 64 * 1024
METADATA_DOCUMENT_MAX_AGE_S = 3600  # a Client ID Metadata Document is fetched again after an hour
MAX_STATE_CHARS = 1000
# RFC 7636: 43-128 characters of [A-Z a-z 0-9 - . _ ~] (a verifier); an S256 challenge is 43 of base64url.
_VERIFIER = re.compile(r"^[A-Za-z0-9\-._~]{43,128}$")
_CHALLENGE = re.compile(r"^[A-Za-z0-9\-_]{43}$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*$")
_UNSAFE_SCHEMES = {"javascript", "data", "file", "vbscript", "about", "blob"}
_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


def resource_url(base: str) -> str:
    """The canonical MCP URL: the resource every access token is bound to."""
    return f"{base}/mcp"


def _same_resource(a: str, b: str) -> bool:
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
        "client_id_metadata_document_supported": True,
    }


# Clients.


def _check_redirect_uri(uri: str) -> None:
    """https, http on a loopback host (native apps, RFC 8252), or a private-use scheme; no fragment."""
    if len(uri) > MAX_URI_CHARS:
        raise OAuthError("invalid_redirect_uri", f"a redirect URI is at most {MAX_URI_CHARS} characters")
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if not _SCHEME.match(scheme) or scheme in _UNSAFE_SCHEMES or parts.fragment:
        raise OAuthError("invalid_redirect_uri", f"{uri[:200]!r} is not an absolute URI without a fragment")
    if scheme == "http" and (parts.hostname or "") not in _LOOPBACK_HOSTS:
        raise OAuthError("invalid_redirect_uri", f"{uri[:200]!r}: http is allowed for loopback hosts only; use https")
    if scheme in ("http", "https") and not parts.hostname:
        raise OAuthError("invalid_redirect_uri", f"{uri[:200]!r} has no host")


def _client_metadata(document: Mapping[str, Any]) -> ClientRegistration:
    try:
        meta = ClientRegistration.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "metadata"
        error = "invalid_redirect_uri" if where.startswith("redirect_uris") else "invalid_client_metadata"
        raise OAuthError(error, f"{where}: {first['msg']}") from None
    for uri in meta.redirect_uris:
        _check_redirect_uri(uri)
    if meta.token_endpoint_auth_method not in (None, "none"):
        raise OAuthError(
            "invalid_client_metadata", "token_endpoint_auth_method: only public clients ('none') are supported"
        )
    if meta.grant_types is not None and not set(meta.grant_types) <= {"authorization_code", "refresh_token"}:
        raise OAuthError("invalid_client_metadata", "grant_types: only authorization_code and refresh_token")
    if meta.response_types is not None and not set(meta.response_types) <= {"code"}:
        raise OAuthError("invalid_client_metadata", "response_types: only code")
    return meta


def register_client(document: Mapping[str, Any]) -> RegisteredClient:
    """RFC 7591 dynamic registration of a public client."""
    meta = _client_metadata(document)
    client_id = "ecl_" + secrets.token_urlsafe(24)
    with anonymous_transaction() as conn:
        store.save_client(
            conn, client_id, meta.client_name or "", meta.redirect_uris, meta.model_dump(mode="json"), False
        )
    return RegisteredClient(
        client_id=client_id,
        client_id_issued_at=int(time.time()),
        client_name=meta.client_name,
        redirect_uris=meta.redirect_uris,
    )


def _is_metadata_document_url(client_id: str) -> bool:
    return client_id.startswith(("https://", "http://"))


def _check_metadata_document_url(url: str) -> None:
    """An https URL with a path (Client ID Metadata Documents) whose host is public: the fetch must not
    reach into the network the function runs in. Loopback http only when the setting allows (tests)."""
    parts = urlsplit(url)
    local = settings().oauth_allow_local_metadata_urls and parts.hostname in _LOOPBACK_HOSTS
    if len(url) > MAX_URI_CHARS or parts.fragment or not parts.hostname or parts.path in ("", "/"):
        raise AuthorizePageError("the client id URL must be an https URL with a path and no fragment")
    if local:
        return
    if parts.scheme != "https":
        raise AuthorizePageError("the client id URL must be https")
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(parts.hostname, parts.port or 443)}
    except OSError:
        raise AuthorizePageError(f"the client id URL's host {parts.hostname!r} does not resolve") from None
    for address in addresses:
        ip = ipaddress.ip_address(str(address).split("%")[0])
        if not ip.is_global:
            raise AuthorizePageError(f"the client id URL's host {parts.hostname!r} is not a public address")


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect could lead the fetch to a host the URL check never saw."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_NO_REDIRECTS = urllib.request.build_opener(_RefuseRedirects)


def _fetch_metadata_document(url: str) -> dict[str, Any]:
    _check_metadata_document_url(url)
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with _NO_REDIRECTS.open(request, timeout=METADATA_DOCUMENT_TIMEOUT_S) as response:
            body = response.read(METADATA_DOCUMENT_MAX_BYTES + 1)
    except (OSError, ValueError) as exc:
        reason = type(exc).__name__
        raise AuthorizePageError(f"the client's metadata document could not be fetched ({reason})") from None
    if len(body) > METADATA_DOCUMENT_MAX_BYTES:
        raise AuthorizePageError(f"the client's metadata document is over {METADATA_DOCUMENT_MAX_BYTES} bytes")
    try:
        document = json.loads(body)
    except ValueError:
        raise AuthorizePageError("the client's metadata document is not JSON") from None
    if not isinstance(document, dict):
        raise AuthorizePageError("the client's metadata document is not a JSON object")
    if document.get("client_id") != url:
        raise AuthorizePageError("the client's metadata document names another client_id than its URL")
    return document


def _client(client_id: str) -> ClientRow | None:
    """A registered client, or a metadata document's (fetched, and again once it is an hour old)."""
    with anonymous_transaction() as conn:
        found = store.client(conn, client_id)
    if not _is_metadata_document_url(client_id):
        return found
    if (
        found is not None
        and found.fetched_at is not None
        and time.time() - found.fetched_at.timestamp() < (METADATA_DOCUMENT_MAX_AGE_S)
    ):
        return found
    document = _fetch_metadata_document(client_id)
    try:
        meta = _client_metadata(document)
    except OAuthError as exc:
        raise AuthorizePageError(f"the client's metadata document is invalid: {exc.description}") from None
    with anonymous_transaction() as conn:
        store.save_client(conn, client_id, meta.client_name or "", meta.redirect_uris, document, True)
        return store.client(conn, client_id)


# /authorize and the consent.


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


def authorize(params: Mapping[str, str], base: str) -> str:
    """The Location /authorize answers with: the consent page for a valid request, the client's
    redirect URI with `error` for an invalid one. AuthorizePageError: nowhere safe to redirect to."""
    client_id = params.get("client_id") or ""
    if not client_id:
        raise AuthorizePageError("client_id is missing")
    client = _client(client_id)
    if client is None:
        raise AuthorizePageError("this client is not registered")
    redirect_uri = params.get("redirect_uri")
    if redirect_uri is None and len(client.redirect_uris) == 1:
        redirect_uri = client.redirect_uris[0]
    if redirect_uri is None or redirect_uri not in client.redirect_uris:
        raise AuthorizePageError("redirect_uri is missing or not one the client registered")
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
        if not _same_resource(resource, resource_url(base)):
            raise OAuthError("invalid_target", f"the resource must be {resource_url(base)}")
    except OAuthError as exc:
        return _with_params(redirect_uri, {"error": exc.error, "error_description": exc.description, "state": state})
    request_id = secrets.token_urlsafe(32)
    with anonymous_transaction() as conn:
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
        redirect_host=urlsplit(row.redirect_uri).netloc or row.redirect_uri.split(":", 1)[0],
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
        grant_id = store.create_grant(
            conn,
            tenant_id,
            key_id,
            row.client_id,
            row.client_name,
            scopes,
            list(dict.fromkeys(approval.namespaces)) if approval.namespaces is not None else None,
            row.resource,
            settings().oauth_refresh_token_ttl_s,
        )
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


# The token endpoint.


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
    s = settings()
    access = ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)
    refresh = REFRESH_TOKEN_PREFIX + secrets.token_urlsafe(32)
    store.save_token(conn, tenant_id, grant_id, access, "access", scopes, s.oauth_access_token_ttl_s)
    store.save_token(conn, tenant_id, grant_id, refresh, "refresh", scopes, s.oauth_refresh_token_ttl_s)
    store.extend_grant(conn, grant_id, s.oauth_refresh_token_ttl_s)
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


def token(form: Mapping[str, str], base: str) -> TokenAnswer:
    """POST /oauth/token for public clients: authorization_code (PKCE S256) or refresh_token."""
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
    if resource is not None and not _same_resource(resource, resource_url(base)):
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
            if not _same_resource(row.resource, resource_url(base)):
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
    if resource is not None and not _same_resource(resource, resource_url(base)):
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
            if not _same_resource(row.resource, resource_url(base)):
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
    value = _required(form, "token")
    try:
        tenant_id = _tenant_of(value)
    except OAuthError:
        return
    with tenant_transaction(tenant_id) as conn:
        store.revoke_token(conn, value)


# Callers and grants.


def authenticate_access_token(conn: Conn, access_token: str, base: str | None) -> TokenCaller | None:
    """The caller of an active access token bound to this API's resource (`base`'s /mcp; None: any);
    None for anything else. Its scopes are within the granting key's current scopes."""
    if not access_token.startswith(ACCESS_TOKEN_PREFIX) or len(access_token) > 200 or not access_token.isascii():
        return None
    found = store.authenticate_token(conn, access_token)
    if found is None:
        return None
    if base is not None and not _same_resource(found.resource, resource_url(base)):
        return None  # a token for another deployment's resource
    return found


def list_grants(tenant_id: UUID) -> GrantList:
    with tenant_transaction(tenant_id) as conn:
        return GrantList(grants=store.list_grants(conn))


def revoke_grant(tenant_id: UUID, grant_id: UUID) -> None:
    with tenant_transaction(tenant_id) as conn:
        if not store.revoke_grant(conn, grant_id):
            raise NotFound(f"no grant {grant_id}")

"""OAuth clients: RFC 7591 dynamic registration of public clients, and Client ID Metadata Documents
(a client id that is an https URL names a JSON document describing the client, fetched and kept for
an hour)."""

from __future__ import annotations

import ipaddress
import json
import re
import secrets
import socket
import time
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import SplitResult, urlsplit

from pydantic import ValidationError

from engram.core.db import anonymous_transaction
from engram.oauth import store
from engram.oauth.models import (
    MAX_URI_CHARS,
    AuthorizePageError,
    ClientRegistration,
    ClientRow,
    OAuthError,
    RegisteredClient,
)
from engram.oauth.settings import oauth_settings

__all__ = ["redirect_host", "register_client", "resolve_client", "split_uri"]

METADATA_DOCUMENT_TIMEOUT_S = 3.0
METADATA_DOCUMENT_MAX_BYTES = 64 * 1024
METADATA_DOCUMENT_MAX_AGE_S = 3600  # a Client ID Metadata Document is fetched again after an hour
_SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*$")
_UNSAFE_SCHEMES = {"javascript", "data", "file", "vbscript", "about", "blob"}
_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


def split_uri(uri: str) -> SplitResult | None:
    """The URI's parts, every one read once: None for what urllib cannot parse (an unclosed IPv6
    bracket, a port that is not a number from 0 to 65535), which it raises on only when a part is read."""
    try:
        parts = urlsplit(uri)
        _ = parts.hostname, parts.port
    except ValueError:
        return None
    return parts


def redirect_host(uri: str) -> str:
    """Where a redirect URI sends the browser, as the consent page shows it: the host (IDNA, so a
    look-alike Unicode name shows as xn--...) and port, never a user name; a private-use scheme
    (a native app's) by its name."""
    parts = split_uri(uri)
    if parts is None or not parts.hostname:
        return (parts.scheme if parts else "") or uri.split(":", 1)[0]
    try:
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError:
        host = parts.hostname
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{parts.port}" if parts.port is not None else host


def _check_redirect_uri(uri: str) -> None:
    """https, http on a loopback host (native apps, RFC 8252), or a private-use scheme; no fragment."""
    if len(uri) > MAX_URI_CHARS:
        raise OAuthError("invalid_redirect_uri", f"a redirect URI is at most {MAX_URI_CHARS} characters")
    parts = split_uri(uri)
    if parts is None:
        raise OAuthError("invalid_redirect_uri", f"{uri[:200]!r} is not a URI: its host or port cannot be read")
    scheme = parts.scheme.lower()
    if not _SCHEME.match(scheme) or scheme in _UNSAFE_SCHEMES or parts.fragment:
        raise OAuthError("invalid_redirect_uri", f"{uri[:200]!r} is not an absolute URI without a fragment")
    if "@" in parts.netloc:
        # https://trusted.example@evil.example/ goes to evil.example: the consent page must not show
        # a name the browser will not visit.
        raise OAuthError("invalid_redirect_uri", f"{uri[:200]!r}: a redirect URI carries no user name or password")
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
    return meta


def _kept(meta: ClientRegistration) -> dict[str, Any]:
    """What is stored of a registration: the members the server uses, as validated."""
    return meta.model_dump(mode="json", exclude_none=True)


def _unused_ttl_s() -> int:
    return oauth_settings().oauth_unused_client_ttl_s


def register_client(document: Mapping[str, Any]) -> RegisteredClient:
    """RFC 7591 dynamic registration of a public client. Kept for ENGRAM_OAUTH_UNUSED_CLIENT_TTL_S
    unless an authorization or a grant keeps it longer (then deleted as later clients register)."""
    meta = _client_metadata(document)
    client_id = "ecl_" + secrets.token_urlsafe(24)
    with anonymous_transaction() as conn:
        store.drop_expired_clients(conn)
        store.save_client(
            conn, client_id, meta.client_name or "", meta.redirect_uris, _kept(meta), False, _unused_ttl_s()
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
    parts = split_uri(url)
    if parts is None:
        raise AuthorizePageError("the client id URL is not a URL: its host or port cannot be read")
    local = oauth_settings().oauth_allow_local_metadata_urls and parts.hostname in _LOOPBACK_HOSTS
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


def resolve_client(client_id: str) -> ClientRow | None:
    """A registered client, or a metadata document's (fetched, and again once it is an hour old)."""
    with anonymous_transaction() as conn:
        found = store.client(conn, client_id)
    if not _is_metadata_document_url(client_id):
        return found
    if not oauth_settings().oauth_client_metadata_documents:
        if found is not None:  # fetched while the setting allowed it: its stored document still stands
            return found
        raise AuthorizePageError(
            "this server does not fetch client metadata documents (its metadata says so): register the client "
            "at /oauth/register and use the client_id it answers"
        )
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
        store.drop_expired_clients(conn)
        store.save_client(
            conn, client_id, meta.client_name or "", meta.redirect_uris, _kept(meta), True, _unused_ttl_s()
        )
        return store.client(conn, client_id)

"""OAuth 2.1 for the remote MCP endpoint (engram.oauth.service): the metadata documents, registration,
/authorize, the consent page's calls, the token and revocation endpoints; and the tenant's grants.

The token and revocation endpoints take form bodies (RFC 6749), which the API's JSON protocol check
would refuse: the handler lets Powertools resolve those two routes without it."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import parse_qsl
from uuid import UUID

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Path

from engram.core.db import confine_to_namespaces
from engram.oauth import service
from engram.oauth.models import (
    MAX_REGISTRATION_BYTES,
    Approval,
    AuthorizePageError,
    GrantList,
    OAuthError,
    PendingAuthorization,
    RedirectTo,
)
from engram_http.auth import current_caller, principal
from engram_http.authorizer import request_base_url
from engram_http.resolver import build_resolver, json_response

router = Router()

FORM_ROUTES = frozenset({"POST /oauth/token", "POST /oauth/revoke"})
FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"
MAX_FORM_BYTES = 16 * 1024
# OAuth answers must not be cached anywhere (RFC 6749 §5.1).
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _base() -> str:
    event = router.current_event
    return request_base_url(event.get("headers"), event.get("requestContext"))


def _oauth_error(exc: OAuthError) -> Response[Any]:
    headers = dict(NO_STORE)
    if exc.status == 401:
        headers["WWW-Authenticate"] = 'Bearer error="invalid_client"'
    return Response(status_code=exc.status, content_type="application/json", body=exc.body(), headers=headers)


def _form() -> dict[str, str]:
    """The form body of the token and revocation endpoints; a parameter sent twice is an error."""
    event = router.current_event
    media = (event.headers.get("content-type") or "").split(";")[0].strip().lower()
    if media != FORM_MEDIA_TYPE:
        raise OAuthError("invalid_request", f"send the parameters as {FORM_MEDIA_TYPE}")
    try:
        body = event.decoded_body or ""
    except (UnicodeDecodeError, ValueError):  # not UTF-8 (or not base64 when flagged so)
        raise OAuthError("invalid_request", "the request body is not UTF-8") from None
    if len(body) > MAX_FORM_BYTES:
        raise OAuthError("invalid_request", f"the request body is over {MAX_FORM_BYTES} bytes")
    form: dict[str, str] = {}
    for name, value in parse_qsl(body, keep_blank_values=True):
        if name in form:
            raise OAuthError("invalid_request", f"{name} is sent more than once")
        form[name] = value
    return form


@router.get(
    "/.well-known/oauth-protected-resource",
    tags=["oauth"],
    summary="Protected resource metadata of /mcp (RFC 9728; no auth)",
)
def protected_resource() -> Response[dict[str, Any]]:
    return json_response(service.protected_resource_metadata(_base()))


@router.get(
    "/.well-known/oauth-protected-resource/mcp",
    tags=["oauth"],
    summary="Protected resource metadata of /mcp at its path-suffixed location (RFC 9728; no auth)",
)
def protected_resource_mcp() -> Response[dict[str, Any]]:
    return json_response(service.protected_resource_metadata(_base()))


@router.get(
    "/.well-known/oauth-authorization-server",
    tags=["oauth"],
    summary="Authorization server metadata (RFC 8414; no auth)",
)
def authorization_server() -> Response[dict[str, Any]]:
    return json_response(service.authorization_server_metadata(_base()))


@router.get(
    "/.well-known/openid-configuration",
    tags=["oauth"],
    summary="The authorization server metadata again, for clients that look here (no auth)",
)
def openid_configuration() -> Response[dict[str, Any]]:
    return json_response(service.authorization_server_metadata(_base()))


@router.post(
    "/oauth/register",
    tags=["oauth"],
    summary="Register a public client (RFC 7591 dynamic client registration; no auth)",
    responses={
        201: {"description": "Registered"},
        400: {"description": "invalid_redirect_uri, invalid_client_metadata"},
        413: {"description": f"invalid_client_metadata: the document is over {MAX_REGISTRATION_BYTES} bytes"},
    },
)
def register(document: dict[str, Any]) -> Response[Any]:
    try:
        client = service.register_client(document)
    except OAuthError as exc:
        return _oauth_error(exc)
    return Response(
        status_code=201, content_type="application/json", body=client.model_dump(mode="json"), headers=NO_STORE
    )


def _page(status: int, title: str, message: str) -> Response[str]:
    body = (
        f"<!doctype html><html lang=en><meta charset=utf-8><title>Engram: {html.escape(title)}</title>"
        f"<body><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p>"
        "<p>Go back to the app you came from and connect again.</p></body></html>"
    )
    headers = {"Content-Security-Policy": "default-src 'none'", "X-Content-Type-Options": "nosniff", **NO_STORE}
    return Response(status_code=status, content_type="text/html; charset=utf-8", body=body, headers=headers)


@router.get(
    "/oauth/authorize",
    tags=["oauth"],
    summary="Start an authorization (code + PKCE S256): redirects to the consent page (no auth)",
    responses={302: {"description": "To the consent page, or back to the client with error="}},
)
def authorize() -> Response[Any]:
    params = dict(router.current_event.query_string_parameters or {})
    try:
        location = service.authorize(params, _base())
    except AuthorizePageError as exc:
        return _page(400, "This app cannot connect", str(exc))
    return Response(status_code=302, content_type="text/plain", body="", headers={"Location": location, **NO_STORE})


@router.get(
    "/oauth/requests/<request_id>",
    tags=["oauth"],
    summary="A pending authorization, as the consent page shows it (no auth: the id is unguessable)",
)
def pending(request_id: Annotated[str, Path(max_length=100)]) -> PendingAuthorization:
    return service.pending_authorization(request_id)


@router.post(
    "/oauth/requests/<request_id>/approve",
    tags=["oauth"],
    summary="Grant the client the scopes and namespaces chosen (signed in with an API key): a one-time code",
)
def approve(request_id: Annotated[str, Path(max_length=100)], approval: Approval) -> RedirectTo:
    who = current_caller(router)
    return service.approve(
        request_id,
        approval,
        tenant_id=who.tenant_id,
        key_id=who.key_id,
        key_scopes=who.scopes,
        via_token=who.grant_id is not None,
    )


@router.post(
    "/oauth/requests/<request_id>/deny",
    tags=["oauth"],
    summary="Decline a pending authorization: back to the client with error=access_denied (no auth)",
)
def deny(request_id: Annotated[str, Path(max_length=100)]) -> RedirectTo:
    return service.deny(request_id)


@router.post(
    "/oauth/token",
    tags=["oauth"],
    summary="Exchange a code (PKCE) or a refresh token for tokens (form-encoded, public clients; no auth)",
)
def token() -> Response[Any]:
    try:
        answer = service.token(_form(), _base())
    except OAuthError as exc:
        return _oauth_error(exc)
    return Response(status_code=200, content_type="application/json", body=answer.model_dump(), headers=NO_STORE)


@router.post(
    "/oauth/revoke",
    tags=["oauth"],
    summary="Revoke an access or refresh token (RFC 7009, form-encoded; no auth): 200 for any token",
)
def revoke() -> Response[Any]:
    try:
        service.revoke(_form())
    except OAuthError as exc:
        return _oauth_error(exc)
    return Response(status_code=200, content_type="application/json", body={}, headers=NO_STORE)


@router.get("/v1/grants", tags=["oauth"], summary="This tenant's OAuth grants (connected apps; admin scope)")
def grants() -> GrantList:
    who = principal(router, "admin")
    return service.list_grants(who.tenant_id)


@router.delete("/v1/grants/<grant_id>", tags=["oauth"], summary="Revoke a grant: its tokens stop at once (admin scope)")
def revoke_grant(grant_id: UUID) -> dict[str, str]:
    who = principal(router, "admin")
    service.revoke_grant(who.tenant_id, grant_id)
    return {"revoked": str(grant_id)}


def _body_bytes(event: dict[str, Any]) -> int:
    """The body's size in bytes, without decoding it (base64 carries 3 bytes in 4 characters)."""
    body = event.get("body") or ""
    return len(body) * 3 // 4 if event.get("isBase64Encoded") else len(body.encode("utf-8", "surrogatepass"))


def _registration_too_large() -> dict[str, Any]:
    """413 before the body is parsed: registration is open to anyone, so a large document costs us
    nothing but this answer."""
    error = OAuthError(
        "invalid_client_metadata",
        f"the registration document is over {MAX_REGISTRATION_BYTES} bytes; send only the RFC 7591 fields"
        " the server uses (redirect_uris, client_name, token_endpoint_auth_method, grant_types,"
        " response_types, scope)",
        status=413,
    )
    return {
        "statusCode": error.status,
        "headers": {"Content-Type": "application/json", **NO_STORE},
        "body": json.dumps(error.body()),
        "isBase64Encoded": False,
    }


def lambda_handler() -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """functions/oauth's entry point: the resolver, except that the two form routes skip the JSON
    body check (Powertools' own resolve serves them)."""
    from aws_lambda_powertools import Logger
    from aws_lambda_powertools.logging import correlation_paths

    logger = Logger()
    app = build_resolver(router)

    @logger.inject_lambda_context(clear_state=True, correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            if event.get("routeKey") == "POST /oauth/register" and _body_bytes(event) > MAX_REGISTRATION_BYTES:
                return _registration_too_large()
            if event.get("routeKey") in FORM_ROUTES:
                return APIGatewayHttpResolver.resolve(app, event, context)
            return app.resolve(event, context)
        finally:
            confine_to_namespaces(None)  # what runs next in this thread is not this caller's

    return handler

"""Every error leaves as {"error": {"code", "message", "details"}} with an honest status."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from engram.core.errors import EngramError
from engram_http.auth import bearer_challenge
from engram_http.authorizer import request_base_url

logger = Logger()

_FRIENDLY = {
    "extra_forbidden": "is not a known field",
    "missing": "is required",
}


def error_response(
    status: int, code: str, message: str, details: Any = None, retry_after_s: int | None = None
) -> Response[Any]:
    return Response(
        status_code=status,
        content_type="application/json",
        body={"error": {"code": code, "message": message, "details": details}},
        headers={"Retry-After": str(retry_after_s)} if retry_after_s is not None else None,
    )


def _field(loc: tuple[Any, ...] | list[Any], whole: str | None) -> str:
    parts = [str(p) for p in loc]
    if whole is None:
        whole = "body"
        if parts and parts[0] in ("body", "query", "path", "header"):  # where it came from, not a field name
            parts = parts[1:]
    return ".".join(parts) or whole


def validation_response(exc: RequestValidationError) -> Response[Any]:
    errors = exc.errors()
    for e in errors:
        if e.get("type") == "json_invalid":
            reason = (e.get("ctx") or {}).get("error")
            return error_response(
                400, "malformed_json", "the request body is not valid JSON", {"reason": reason} if reason else None
            )
    message, details = invalid_fields(errors)
    return error_response(422, "invalid_field", message, details)


def invalid_fields(errors: Sequence[Any], whole: str | None = None) -> tuple[str, dict[str, Any]]:
    """pydantic's errors as the 422 answer's message and details: the first field named, with its
    limit, and every field in `fields`. The MCP tools answer bad arguments with the same words; their
    locs name the argument alone (`query` is an argument there, not the query string), and an error
    of the whole model is named `whole`."""
    fields = []
    for e in errors:
        message = _FRIENDLY.get(e.get("type", ""), str(e.get("msg", "is invalid")).removeprefix("Value error, "))
        item: dict[str, Any] = {"field": _field(e.get("loc", ()), whole), "message": message}
        ctx = e.get("ctx") or {}
        for key in ("max_length", "min_length", "le", "ge", "lt", "gt", "pattern", "expected"):
            if key in ctx:
                item["limit" if key != "pattern" and key != "expected" else key] = ctx[key]
        fields.append(item)
    first = fields[0]
    details = {"field": first["field"], **({"limit": first["limit"]} if "limit" in first else {}), "fields": fields}
    return f"{first['field']}: {first['message']}", details


def install_error_handlers(app: APIGatewayHttpResolver) -> None:
    @app.exception_handler(EngramError)
    def _domain(exc: EngramError) -> Response[Any]:
        response = error_response(exc.status, exc.code, exc.message, exc.details, exc.retry_after_s)
        if exc.status in (401, 403):  # the bearer challenge that sends an OAuth client to our metadata
            event = app.current_event
            base = request_base_url(event.get("headers"), event.get("requestContext"))
            challenge = bearer_challenge(exc, event.get("headers"), base)
            if challenge:
                response.headers["WWW-Authenticate"] = challenge
        return response

    @app.exception_handler(RequestValidationError)
    def _validation(exc: RequestValidationError) -> Response[Any]:
        return validation_response(exc)

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response[Any]:
        # A bug, not the caller's fault: log it whole, answer without internals.
        logger.exception("unhandled error")
        request_id = app.current_event.request_context.request_id
        return error_response(
            500, "internal_error", "something went wrong on our side; it has been logged", {"request_id": request_id}
        )

    @app.not_found
    def _not_found(exc: Exception) -> Response[Any]:
        return error_response(404, "not_found", "no such route")

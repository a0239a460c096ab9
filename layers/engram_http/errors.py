"""Every error leaves as {"error": {"code", "message", "details"}} with an honest status."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from engram.errors import EngramError

logger = Logger()

_FRIENDLY = {
    "extra_forbidden": "is not a known field",
    "missing": "is required",
}


def error_response(status: int, code: str, message: str, details: Any = None) -> Response:
    return Response(status_code=status, content_type="application/json",
                    body={"error": {"code": code, "message": message, "details": details}})


def _field(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts) or "body"


def validation_response(exc: RequestValidationError) -> Response:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return error_response(400, "malformed_json", "the request body is not valid JSON")
    fields = []
    for e in errors:
        item: dict[str, Any] = {"field": _field(e.get("loc", ())),
                                "message": _FRIENDLY.get(e.get("type", ""), e.get("msg", "is invalid"))}
        ctx = e.get("ctx") or {}
        for key in ("max_length", "min_length", "le", "ge", "lt", "gt", "pattern", "expected"):
            if key in ctx:
                item["limit" if key != "pattern" and key != "expected" else key] = ctx[key]
        fields.append(item)
    first = fields[0]
    return error_response(422, "invalid_field", f"{first['field']}: {first['message']}", {"fields": fields})


def install_error_handlers(app: APIGatewayHttpResolver) -> None:
    @app.exception_handler(EngramError)
    def _domain(exc: EngramError) -> Response:
        return error_response(exc.status, exc.code, exc.message, exc.details)

    @app.exception_handler(RequestValidationError)
    def _validation(exc: RequestValidationError) -> Response:
        return validation_response(exc)

    @app.not_found
    def _not_found(exc: Exception) -> Response:
        return error_response(404, "not_found", "no such route")

"""One way to build a route Lambda's resolver: validation on, errors shaped, routers included."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import BaseModel

from engram.core.db import confine_to_namespaces
from engram_http.errors import install_error_handlers
from engram_http.protocol import BodyRefused, check_request, parse_json_body
from engram_http.route_match import method_not_allowed, methods_at, requested_path


def _serialize(obj: Any) -> str:
    if isinstance(obj, BaseModel):
        return obj.model_dump_json()
    return json.dumps(obj, default=str, separators=(",", ":"))


def _refusal(
    status: int, code: str, message: str, details: Any, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json", **(headers or {})},
        "body": json.dumps({"error": {"code": code, "message": message, "details": details}}, separators=(",", ":")),
        "isBase64Encoded": False,
    }


class EngramResolver(APIGatewayHttpResolver):
    """Powertools' HTTP API resolver, with the body's protocol checked before validation runs
    (Powertools would read form or multipart bodies, and fail on bytes that are not UTF-8), and a
    method the path does not serve answered 405: API Gateway hands `GET /v1/memories/batch` to
    `GET /v1/memories/{memory_id}`, but that path is the batch store's (engram_http.route_match)."""

    def resolve(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        if event.get("pathParameters"):
            method = ((event.get("requestContext") or {}).get("http") or {}).get("method", "")
            path = requested_path(str(event.get("routeKey", "")), event["pathParameters"])
            allowed = methods_at(path)
            if allowed and method not in allowed:
                message, details = method_not_allowed(method, path, allowed)
                return _refusal(405, "method_not_allowed", message, details, {"Allow": ", ".join(allowed)})
        try:
            media_type = check_request(event)
        except BodyRefused as refused:
            return _refusal(refused.status, refused.code, refused.message, refused.details)
        if media_type:  # media types are case-insensitive; Powertools compares them as written
            event = {**event, "headers": {**event["headers"], "content-type": media_type}}
        return super().resolve(event, context)


def build_resolver(*routers: Router) -> APIGatewayHttpResolver:
    app = EngramResolver(enable_validation=True, serializer=_serialize, json_body_deserializer=parse_json_body)
    install_error_handlers(app)
    for router in routers:
        app.include_router(router)
    return app


def json_response(body: BaseModel | dict[str, Any], status: int = 200) -> Response[Any]:
    payload = body.model_dump(mode="json") if isinstance(body, BaseModel) else body
    return Response(status_code=status, content_type="application/json", body=payload)


def lambda_handler(*routers: Router) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point for a route function: structured logs with the request context.

    No X-Ray SDK here: the functions run with active tracing, and the SDK's import would add
    ~200 ms to every cold start.
    """
    from aws_lambda_powertools import Logger
    from aws_lambda_powertools.logging import correlation_paths

    logger = Logger()
    app = build_resolver(*routers)

    # correlation_id: the API Gateway request id, the one a 500 answer hands the client
    @logger.inject_lambda_context(clear_state=True, correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            return app.resolve(event, context)
        finally:
            confine_to_namespaces(None)  # what runs next in this thread is not this caller's

    return handler

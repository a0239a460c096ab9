"""GET /v1/health (the database answers) and /v1/health/live (the function answers): no auth."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram.core.db import check_database
from engram.core.errors import DependencyDown
from engram_http.errors import error_response
from engram_http.resolver import json_response

router = Router()


@router.get("/v1/health", tags=["admin"], summary="Liveness and database reachability (no auth)")
def health() -> Response[dict[str, Any]]:
    try:
        check_database()
    except DependencyDown as exc:
        return error_response(
            503, exc.code, "database unreachable; nothing works without it", exc.details, exc.retry_after_s
        )
    return json_response({"status": "ok", "database": "ok"})


@router.get(
    "/v1/health/live",
    tags=["admin"],
    summary="Liveness only: the function answers, the database is not touched (no auth)",
)
def liveness() -> Response[dict[str, Any]]:
    # No connection, no secret read: an uptime probe polling this keeps no paused database awake and
    # costs no connection; /v1/health is the check that the database answers.
    return json_response({"status": "ok"})

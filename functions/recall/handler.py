"""Route Lambda for the recall routes: the router in engram_http.routes.recall does the work."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger, Tracer

from engram_http.resolver import build_resolver
from engram_http.routes.recall import router

logger = Logger(service="engram")
tracer = Tracer(service="engram")
app = build_resolver(router)


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)

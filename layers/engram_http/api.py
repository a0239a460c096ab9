"""The API as a whole: every router, the OpenAPI document built from them, and the route that serves it.

The document's route is here, not in a capability's router, because it reads every router: a route
module that did would import the list that imports it. functions/admin/handler.py serves it.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram_http.resolver import json_response

document_router = Router()


def all_routers() -> list[Router]:
    """Every router, in the document's order: for the OpenAPI document and the route-table check."""
    from engram_http.routes import (
        admin,
        consolidation,
        conversations,
        documents,
        erasure,
        extraction,
        graph,
        health,
        memories,
        oauth,
        portability,
        priming,
        recall,
        tasks,
        topics,
    )

    return [
        health.router,
        document_router,
        admin.router,
        memories.router,
        recall.router,
        conversations.router,
        extraction.router,
        documents.router,
        graph.router,
        consolidation.router,
        topics.router,
        priming.router,
        tasks.router,
        portability.router,
        erasure.router,
        oauth.router,
    ]


@cache
def openapi_document() -> dict[str, Any]:
    """Built from the same routers and pydantic models that serve the requests."""
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer

    from engram_http.openapi import SECURITY_SCHEME, document_errors
    from engram_http.resolver import build_resolver

    app = build_resolver(*all_routers())
    raw = app.get_openapi_json_schema(
        title="Engram Serverless",
        version="1.0.0",
        openapi_version="3.1.0",
        description="Long-term memory for AI agents: store, recall, documents, conversations.",
        security_schemes={SECURITY_SCHEME: HTTPBearer(bearerFormat="egk_...")},
        security=[{SECURITY_SCHEME: []}],
    )
    return document_errors(json.loads(raw))


@document_router.get("/v1/openapi.json", tags=["admin"], summary="This API's OpenAPI 3.1 document (no auth)")
def openapi() -> Response[dict[str, Any]]:
    return json_response(openapi_document())

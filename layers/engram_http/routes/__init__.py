"""Routers, one per capability; functions/<name>/handler.py includes the ones it serves."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler.api_gateway import Router


def all_routers() -> list[Router]:
    """Every router, for the OpenAPI document and the route-table check."""
    from engram_http.routes import (
        admin,
        consolidation,
        conversations,
        documents,
        erasure,
        extraction,
        graph,
        memories,
        oauth,
        portability,
        priming,
        recall,
        tasks,
        topics,
    )

    return [
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

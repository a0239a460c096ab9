"""Topics: the topic tree of a namespace, a topic, lookups of topics' members."""

from __future__ import annotations

import re
from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.core.errors import NotFound
from engram.core.models import NAMESPACE_PATTERN
from engram.topics import service as topics
from engram.topics.models import TOPIC_ID_PATTERN, TopicDetail, TopicLookupRequest, TopicLookupResponse, TopicTree
from engram_http.auth import principal

router = Router()


@router.get("/v1/topics", tags=["topics"], summary="The topic tree of a namespace (rebuilt by consolidation)")
def list_topics(
    namespace: Annotated[str, Query(pattern=NAMESPACE_PATTERN)] = "default",
    depth: Annotated[int | None, Query(ge=0, le=16, description="Deepest level shown (0: top-level only)")] = None,
) -> TopicTree:
    who = principal(router, "read")
    return topics.list_topics(who.tenant_id, namespace, depth)


@router.post("/v1/topics/lookup", tags=["topics"], summary="Topics' names and member memories, a page each")
def lookup_topics(body: TopicLookupRequest) -> TopicLookupResponse:
    who = principal(router, "read")
    return topics.lookup(who.tenant_id, body)


@router.get(
    "/v1/topics/<topic_id>",
    tags=["topics"],
    summary="A topic: its path, children and first members",
    responses={200: {"description": "The topic"}, 404: {"description": "No such topic, or not yours"}},
)
def get_topic(topic_id: str) -> TopicDetail:
    who = principal(router, "read")
    if not re.fullmatch(TOPIC_ID_PATTERN, topic_id):
        raise NotFound(f"topic {topic_id[:40]!r} not found: topic ids look like t12")
    return topics.get_topic(who.tenant_id, topic_id)

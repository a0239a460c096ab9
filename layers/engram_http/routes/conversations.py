"""Conversations: create, list, get, delete; append and read verbatim messages."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.conversations import service as conversations
from engram.conversations.models import (
    AppendResult,
    Conversation,
    ConversationCreate,
    ConversationPage,
    DeletedConversation,
    MessagePage,
    MessagesAppend,
)
from engram.core.idempotency import request_key
from engram.core.models import PG_INTEGER_MAX
from engram_http.auth import principal
from engram_http.params import (
    IDEMPOTENCY_KEY_REUSED,
    AgentIdQuery,
    CursorQuery,
    IdempotencyKeyHeader,
    NamespaceQuery,
    PageLimitQuery,
    TagsQuery,
)
from engram_http.resolver import json_response

router = Router()


@router.post(
    "/v1/conversations",
    tags=["conversations"],
    summary="Start a conversation",
    responses={201: {"description": "Created"}, 409: {"description": IDEMPOTENCY_KEY_REUSED}},
)
def create_conversation(
    body: ConversationCreate, idempotency_key: IdempotencyKeyHeader = None
) -> Response[Conversation]:
    who = principal(router, "write")
    key = request_key(idempotency_key, "POST /v1/conversations", body)
    return json_response(conversations.create_conversation(who.tenant_id, body, key), 201)


@router.get("/v1/conversations", tags=["conversations"], summary="List conversations, newest first")
def list_conversations(
    namespace: NamespaceQuery = None,
    tag: TagsQuery = None,
    agent_id: AgentIdQuery = None,
    cursor: CursorQuery = None,
    limit: PageLimitQuery = 50,
) -> ConversationPage:
    who = principal(router, "read")
    return conversations.list_conversations(
        who.tenant_id, namespace=namespace, tags=tag, agent_id=agent_id, cursor=cursor, limit=limit
    )


@router.get("/v1/conversations/<conversation_id>", tags=["conversations"], summary="Get one conversation")
def get_conversation(conversation_id: UUID) -> Conversation:
    who = principal(router, "read")
    return conversations.get_conversation(who.tenant_id, conversation_id)


@router.delete(
    "/v1/conversations/<conversation_id>",
    tags=["conversations"],
    summary="Delete a conversation, its messages and chunks (hard delete)",
)
def delete_conversation(conversation_id: UUID) -> DeletedConversation:
    who = principal(router, "write")
    return conversations.delete_conversation(who.tenant_id, conversation_id)


@router.post(
    "/v1/conversations/<conversation_id>/messages",
    tags=["conversations"],
    summary="Append up to 200 messages atomically, numbered in order",
    responses={
        201: {"description": "Appended"},
        200: {"description": "Retry of an idempotency key: the first answer, nothing written"},
        409: {"description": "The idempotency key was used for a different set of messages"},
    },
)
def append_messages(
    conversation_id: UUID, body: MessagesAppend, idempotency_key: IdempotencyKeyHeader = None
) -> Response[AppendResult]:
    who = principal(router, "write")
    result = conversations.append_messages(who.tenant_id, conversation_id, body, idempotency_key)
    return json_response(result, 200 if result.replayed else 201)


@router.get(
    "/v1/conversations/<conversation_id>/messages",
    tags=["conversations"],
    summary="Messages in sequence order, from_seq..to_seq inclusive",
)
def list_messages(
    conversation_id: UUID,
    from_seq: Annotated[int | None, Query(ge=1, le=PG_INTEGER_MAX)] = None,
    to_seq: Annotated[int | None, Query(ge=1, le=PG_INTEGER_MAX, description="Not below from_seq")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> MessagePage:
    who = principal(router, "read")
    return conversations.list_messages(who.tenant_id, conversation_id, from_seq=from_seq, to_seq=to_seq, limit=limit)

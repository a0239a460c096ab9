"""Verbatim conversations: create, list, get, delete; append messages; read messages by sequence.

Messages are stored exactly as sent and ordered by a per-conversation sequence number. An append
locks the conversation row, takes `next_seq`, writes all its messages or none, and extends the
chunk windows (engram.conversations.windows) without rebuilding the conversation. Window chunks go
to the embedding queue after commit, like memory chunks.
"""

from __future__ import annotations

import hashlib
import json
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import DictRow

from engram.adapters.queue import enqueue_embedding
from engram.conversations.models import (
    AppendResult,
    Conversation,
    ConversationCreate,
    ConversationPage,
    DeletedConversation,
    Message,
    MessageCreate,
    MessagePage,
    MessagesAppend,
)
from engram.conversations.store import (
    CONVERSATION_COLUMNS,
    MESSAGE_COLUMNS,
    extend_windows,
    fetch_conversation,
    messages_between,
    messages_for_windows,
)
from engram.conversations.windows import one_turn_speaker
from engram.core.activity import record_activity
from engram.core.config import settings
from engram.core.db import tenant_transaction
from engram.core.errors import Conflict, InvalidField, TooLarge
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.core.models import PG_INTEGER_MAX
from engram.core.pagination import newest_first

# messages_for_windows is part of this service: recall attaches the original turns inside its own transaction.
# window_conversation too: an import writes conversations and messages, then builds their windows.
# one_turn_speaker too: recall raises the turns of a speaker its query names.
__all__ = [
    "ConversationCreate",
    "MessageCreate",
    "append_messages",
    "create_conversation",
    "delete_conversation",
    "get_conversation",
    "list_conversations",
    "list_messages",
    "messages_for_windows",
    "one_turn_speaker",
    "window_conversation",
]


# ------------------------------------------------------------------------------------ conversations


def create_conversation(
    tenant_id: UUID, req: ConversationCreate, idempotency: IdempotencyKey | None = None
) -> Conversation:
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, Conversation)) is not None:
            return first
        row = conn.execute(
            sql.SQL(
                "INSERT INTO conversations (tenant_id, namespace, title, agent_id, tags, metadata)"
                " VALUES (%s, %s, %s, %s, %s, %s) RETURNING {}"
            ).format(CONVERSATION_COLUMNS),
            (tenant_id, req.namespace, req.title, req.agent_id, req.tags, json.dumps(req.metadata)),
        ).fetchone()
        created = Conversation.model_validate(row)
        remember(conn, idempotency, created)
    return created


def get_conversation(tenant_id: UUID, conversation_id: UUID) -> Conversation:
    with tenant_transaction(tenant_id) as conn:
        return Conversation.model_validate(fetch_conversation(conn, conversation_id))


def list_conversations(
    tenant_id: UUID,
    *,
    namespace: str | None = None,
    tags: list[str] | None = None,
    agent_id: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> ConversationPage:
    with tenant_transaction(tenant_id) as conn:
        rows, next_cursor = newest_first(
            conn,
            select=sql.SQL("SELECT {} FROM conversations").format(CONVERSATION_COLUMNS),
            cursor=cursor,
            limit=limit,
            filters=[("namespace = %s", namespace), ("tags @> %s", tags), ("agent_id = %s", agent_id)],
        )
    items = [Conversation.model_validate(r) for r in rows]
    return ConversationPage(items=items, next_cursor=next_cursor)


def delete_conversation(tenant_id: UUID, conversation_id: UUID) -> DeletedConversation:
    """Hard delete: the conversation, its messages, its chunks (and their vectors) are gone."""
    with tenant_transaction(tenant_id) as conn:
        fetch_conversation(conn, conversation_id, lock=True)
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM messages WHERE conversation_id = %(id)s) AS messages,"
            " (SELECT count(*) FROM chunks WHERE conversation_id = %(id)s) AS chunks",
            {"id": conversation_id},
        ).fetchone()
        conn.execute("DELETE FROM conversations WHERE id = %s", (conversation_id,))
    assert counts is not None
    return DeletedConversation(id=conversation_id, messages=counts["messages"], chunks=counts["chunks"])


def window_conversation(conn: psycopg.Connection[DictRow], tenant_id: UUID, conversation_id: UUID) -> list[UUID]:
    """Windows over every message of a conversation written in the caller's transaction (an import);
    returns the new chunk ids, to enqueue after commit."""
    conv = fetch_conversation(conn, conversation_id, lock=True)
    return extend_windows(conn, tenant_id, conv, conv["next_seq"] - 1)


# ----------------------------------------------------------------------------------------- messages


def _validate_messages(messages: list[MessageCreate]) -> None:
    s = settings()
    if len(messages) > s.max_append_messages:
        raise InvalidField(
            "messages",
            f"at most {s.max_append_messages} messages per append, got {len(messages)}",
            limit=s.max_append_messages,
        )
    for i, m in enumerate(messages):
        size = len(m.content.encode("utf-8"))  # NUL and lone surrogates are refused by the model
        if size > s.max_message_bytes:
            raise TooLarge(
                f"messages.{i}.content",
                size,
                s.max_message_bytes,
                "Split the message, or store long text with POST /v1/documents.",
            )


def _request_hash(messages: list[MessageCreate]) -> bytes:
    canonical = json.dumps([m.model_dump(mode="json") for m in messages], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).digest()


def append_messages(
    tenant_id: UUID, conversation_id: UUID, req: MessagesAppend, idempotency_key: str | None = None
) -> AppendResult:
    """All messages or none, numbered in order after the last one; a keyed retry writes nothing."""
    _validate_messages(req.messages)
    if idempotency_key is not None and req.idempotency_key is not None and idempotency_key != req.idempotency_key:
        raise InvalidField("idempotency_key", "differs from the Idempotency-Key header")
    key = idempotency_key if idempotency_key is not None else req.idempotency_key
    if key is not None and not 1 <= len(key) <= 200:
        raise InvalidField("idempotency_key", "must be 1 to 200 characters", limit=200)
    digest = _request_hash(req.messages)
    chunk_ids: list[UUID] = []
    with tenant_transaction(tenant_id) as conn:
        conv = fetch_conversation(conn, conversation_id, lock=True)  # serialises appends
        if key is not None:
            seen = conn.execute(
                "SELECT request_hash, seq_from, seq_to FROM conversation_appends"
                " WHERE conversation_id = %s AND idempotency_key = %s",
                (conversation_id, key),
            ).fetchone()
            if seen is not None:
                if bytes(seen["request_hash"]) != digest:
                    raise Conflict(
                        "this idempotency key was used for a different set of messages", {"idempotency_key": key}
                    )
                rows = messages_between(conn, conversation_id, seen["seq_from"], seen["seq_to"])
                return AppendResult(
                    conversation_id=conversation_id,
                    seq_from=seen["seq_from"],
                    seq_to=seen["seq_to"],
                    count=len(rows),
                    replayed=True,
                    messages=[Message.model_validate(r) for r in rows],
                )
        first = conv["next_seq"]
        n = len(req.messages)
        rows = conn.execute(
            sql.SQL(
                "INSERT INTO messages (tenant_id, conversation_id, seq, role, content, tool_call_id, tool_name,"
                " metadata, created_at)"
                " SELECT %s, %s, u.seq, u.role, u.content, u.tool_call_id, u.tool_name, u.metadata::json,"
                " COALESCE(u.created_at, now())"
                " FROM unnest(%s::int[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],"
                " %s::timestamptz[]) AS u(seq, role, content, tool_call_id, tool_name, metadata, created_at)"
                " RETURNING {}"
            ).format(MESSAGE_COLUMNS),
            (
                tenant_id,
                conversation_id,
                list(range(first, first + n)),
                [m.role for m in req.messages],
                [m.content for m in req.messages],
                [m.tool_call_id for m in req.messages],
                [m.tool_name for m in req.messages],
                [json.dumps(m.metadata, ensure_ascii=False) for m in req.messages],
                [m.created_at for m in req.messages],
            ),
        ).fetchall()
        rows.sort(key=lambda r: r["seq"])
        conn.execute(
            "UPDATE conversations SET next_seq = %s, message_count = message_count + %s, updated_at = now(),"
            " last_message_at = GREATEST(last_message_at, %s) WHERE id = %s",
            (first + n, n, max(r["created_at"] for r in rows), conversation_id),
        )
        if key is not None:
            conn.execute(
                "INSERT INTO conversation_appends (tenant_id, conversation_id, idempotency_key, request_hash,"
                " seq_from, seq_to) VALUES (%s, %s, %s, %s, %s, %s)",
                (tenant_id, conversation_id, key, digest, first, first + n - 1),
            )
        chunk_ids = extend_windows(conn, tenant_id, conv, first + n - 1)
        record_activity(conn, [conv["namespace"]])  # the next scheduled consolidation covers it
    enqueue_embedding(tenant_id, chunk_ids)
    return AppendResult(
        conversation_id=conversation_id,
        seq_from=first,
        seq_to=first + n - 1,
        count=n,
        replayed=False,
        messages=[Message.model_validate(r) for r in rows],
    )


def list_messages(
    tenant_id: UUID, conversation_id: UUID, *, from_seq: int | None = None, to_seq: int | None = None, limit: int = 100
) -> MessagePage:
    """Messages in sequence order, `from_seq`..`to_seq` inclusive: a recall hit's neighbours."""
    if not 1 <= limit <= 500:
        raise InvalidField("limit", "must be between 1 and 500", limit=500)
    lo, hi = from_seq or 1, to_seq if to_seq is not None else PG_INTEGER_MAX
    if hi < lo:
        raise InvalidField("to_seq", "must not be below from_seq")
    with tenant_transaction(tenant_id) as conn:
        fetch_conversation(conn, conversation_id)
        rows = messages_between(conn, conversation_id, lo, hi, limit + 1)
    items = [Message.model_validate(r) for r in rows[:limit]]
    return MessagePage(items=items, next_from_seq=items[-1].seq + 1 if len(rows) > limit else None)

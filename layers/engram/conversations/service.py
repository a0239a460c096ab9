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

from engram.adapters.llm import llm_unavailable
from engram.adapters.queue import enqueue_embedding, enqueue_extractions
from engram.conversations import store
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
    WindowMessage,
)
from engram.conversations.settings import conversation_settings
from engram.conversations.store import (
    AskedWindowMessages,
    ConversationRow,
    KeyedAppend,
    conversation_page,
    delete_conversation_row,
    extend_windows,
    fetch_conversation,
    insert_conversation,
    insert_messages,
    keyed_append,
    messages_between,
    redact_message,
    remember_append,
    rewindow,
)
from engram.conversations.windows import one_turn_speaker
from engram.core.activity import record_activity
from engram.core.config import settings
from engram.core.db import Conn, tenant_transaction
from engram.core.errors import Conflict, InvalidField, NotFound, TooLarge
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.core.models import PG_INTEGER_MAX

# messages_for_windows and ask_window_messages are part of this service: recall attaches the original turns
# inside its own transaction.
# window_conversation too: an import writes conversations and messages, then builds their windows.
# one_turn_speaker too: recall raises the turns of a speaker its query names.
# save_extraction, restore_summary and extraction_off too: extraction reads the turns, keeps the summary
# and the watermark in the conversation's row, inside its own transaction.
__all__ = [
    "AskedWindowMessages",
    "append_messages",
    "ask_window_messages",
    "conversation_in",
    "create_conversation",
    "create_ledger",
    "delete_conversation",
    "extraction_off",
    "get_conversation",
    "list_conversations",
    "list_messages",
    "mark_extraction_queued",
    "messages_for_windows",
    "one_turn_speaker",
    "redact",
    "restore_summary",
    "save_extraction",
    "turns_between",
    "window_conversation",
]

# What a redacted message's content becomes: its place in the ledger stays, what it said is gone.
REDACTED = "[redacted]"


# ------------------------------------------------------------------------------------ conversations


def create_conversation(
    tenant_id: UUID, req: ConversationCreate, idempotency: IdempotencyKey | None = None
) -> Conversation:
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, Conversation)) is not None:
            return first
        created = insert_conversation(conn, tenant_id, req)
        remember(conn, idempotency, created)
    return created


def create_ledger(conn: Conn, tenant_id: UUID, req: ConversationCreate) -> UUID:
    """A conversation written in the caller's transaction (a task run's event ledger); its id."""
    return insert_conversation(conn, tenant_id, req).id


def get_conversation(tenant_id: UUID, conversation_id: UUID) -> Conversation:
    with tenant_transaction(tenant_id) as conn:
        found = Conversation.model_validate(fetch_conversation(conn, conversation_id), from_attributes=True)
    off = extraction_off()
    return found.model_copy(update={"extraction": f"off: {off}" if off else "on"})


def conversation_in(conn: Conn, conversation_id: UUID, *, lock: bool = False) -> ConversationRow:
    """The conversation inside the caller's transaction (locked: appends and extraction take turns)."""
    return fetch_conversation(conn, conversation_id, lock=lock)


def turns_between(conn: Conn, conversation_id: UUID, seq_from: int, seq_to: int) -> list[Message]:
    return messages_between(conn, conversation_id, seq_from, seq_to)


def extraction_off() -> str | None:
    """Why nothing is derived from conversations in this deployment (None: extraction is on). A
    namespace may still turn it off (PUT /v1/extraction/settings)."""
    if not conversation_settings().extraction_enabled:
        return "ENGRAM_EXTRACTION_ENABLED=false"
    if not settings().extract_queue_url:
        return "no extract-jobs queue configured (ENGRAM_EXTRACT_QUEUE_URL)"
    return llm_unavailable()


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
        items, next_cursor = conversation_page(
            conn, namespace=namespace, tags=tags, agent_id=agent_id, cursor=cursor, limit=limit
        )
    return ConversationPage(items=items, next_cursor=next_cursor)


def delete_conversation(tenant_id: UUID, conversation_id: UUID) -> DeletedConversation:
    """Hard delete: the conversation, its messages, its chunks (and their vectors) are gone."""
    with tenant_transaction(tenant_id) as conn:
        fetch_conversation(conn, conversation_id, lock=True)
        return delete_conversation_row(conn, conversation_id)


def window_conversation(conn: Conn, tenant_id: UUID, conversation_id: UUID) -> list[UUID]:
    """Windows over every message of a conversation written in the caller's transaction (an import);
    returns the new chunk ids, to enqueue after commit."""
    conv = fetch_conversation(conn, conversation_id, lock=True)
    return extend_windows(conn, tenant_id, conv, conv.next_seq - 1)


# ----------------------------------------------------------------------------------------- messages


def _validate_messages(messages: list[MessageCreate]) -> None:
    s = conversation_settings()
    if len(messages) > s.max_append_messages:
        raise InvalidField(
            "messages",
            f"at most {s.max_append_messages} messages per append, got {len(messages)}",
            limit=s.max_append_messages,
        )
    max_bytes = settings().max_message_bytes
    for i, m in enumerate(messages):
        size = len(m.content.encode("utf-8"))  # NUL and lone surrogates are refused by the model
        if size > max_bytes:
            raise TooLarge(
                f"messages.{i}.content",
                size,
                max_bytes,
                "Split the message, or store long text with POST /v1/documents.",
            )


def _request_hash(messages: list[MessageCreate]) -> bytes:
    canonical = json.dumps([m.model_dump(mode="json") for m in messages], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).digest()


def append_messages(
    tenant_id: UUID, conversation_id: UUID, req: MessagesAppend, idempotency_key: str | None = None
) -> AppendResult:
    """All messages or none, numbered in order after the last one; a keyed retry writes nothing.

    Its key is not engram.core.idempotency's, on purpose: it belongs to the conversation and lives
    as long as it (a client that resends a day's turns a week later must not write them twice, and
    one key may name an append in each of two conversations); a retry answers 200 with
    `replayed: true` rather than the first answer as it was; and the answer is read back from the
    messages, not stored a second time (an append holds up to 200 messages)."""
    _validate_messages(req.messages)
    if idempotency_key is not None and req.idempotency_key is not None and idempotency_key != req.idempotency_key:
        raise InvalidField("idempotency_key", "differs from the Idempotency-Key header")
    key = idempotency_key if idempotency_key is not None else req.idempotency_key
    if key is not None and not 1 <= len(key) <= 200:
        raise InvalidField("idempotency_key", "must be 1 to 200 characters", limit=200)
    digest = _request_hash(req.messages)
    with tenant_transaction(tenant_id) as conn:
        conv = fetch_conversation(conn, conversation_id, lock=True)  # serialises appends
        if key is not None and (seen := keyed_append(conn, conversation_id, key)) is not None:
            if seen.request_hash != digest:
                raise Conflict(
                    "this idempotency key was used for a different set of messages", {"idempotency_key": key}
                )
            earlier = messages_between(conn, conversation_id, seen.seq_from, seen.seq_to)
            return AppendResult(
                conversation_id=conversation_id,
                seq_from=seen.seq_from,
                seq_to=seen.seq_to,
                count=len(earlier),
                replayed=True,
                messages=earlier,
            )
        first = conv.next_seq
        n = len(req.messages)
        messages = insert_messages(conn, tenant_id, conversation_id, first, req.messages)
        if key is not None:
            remember_append(conn, tenant_id, conversation_id, key, KeyedAppend(digest, first, first + n - 1))
        chunk_ids = extend_windows(conn, tenant_id, conv, first + n - 1)
        record_activity(conn, [conv.namespace])  # the next scheduled consolidation covers it
        extract = _extraction_due(conv.extracted_seq, conv.extraction_queued_seq, first + n - 1)
        if extract:
            store.mark_extraction_queued(conn, conversation_id, first + n - 1)
    enqueue_embedding(tenant_id, chunk_ids)
    if extract:  # a lost message leaves the turns unread: the sweep sends them again
        enqueue_extractions([(tenant_id, conversation_id, first + n - 1)])
    return AppendResult(
        conversation_id=conversation_id,
        seq_from=first,
        seq_to=first + n - 1,
        count=n,
        replayed=False,
        messages=messages,
    )


def _extraction_due(extracted_seq: int, queued_seq: int, last_seq: int) -> bool:
    """Enough new turns since the last job to queue the next one now (no model call here: the job
    runs in the background; quiet conversations are queued by the sweep)."""
    return (
        last_seq - max(extracted_seq, queued_seq) >= conversation_settings().extraction_min_turns
        and extraction_off() is None
    )


def redact(conn: Conn, tenant_id: UUID, conversation_id: UUID, seq: int) -> tuple[Message, list[UUID]]:
    """In the caller's transaction (a task's ledger): the message's content, tool fields and metadata are
    gone from the message and from every window that shows it or holds it as keyword context (rebuilt,
    vectors pending); its seq, role and time stay. The message, and the new chunks to enqueue after commit.
    An append's replay reads the messages back, so it shows the redaction too."""
    if not 1 <= seq <= PG_INTEGER_MAX:
        raise InvalidField("seq", f"must be between 1 and {PG_INTEGER_MAX}")
    conv = fetch_conversation(conn, conversation_id, lock=True)
    message = redact_message(conn, conversation_id, seq, REDACTED)
    if message is None:
        raise NotFound(f"no event {seq} in this ledger", {"field": "seq"})
    return message, rewindow(conn, tenant_id, conv, seq, seq)


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
        found = messages_between(conn, conversation_id, lo, hi, limit + 1)
    items = found[:limit]
    return MessagePage(items=items, next_from_seq=items[-1].seq + 1 if len(found) > limit else None)


# --- in the caller's transaction, for other capabilities ------------------------------------------


def ask_window_messages(conn: Conn, spans: list[tuple[UUID, int, int]]) -> AskedWindowMessages:
    """messages_for_windows, sent now and read later (`.read()`): in a pipeline, with other statements."""
    return store.ask_window_messages(conn, spans)


def messages_for_windows(conn: Conn, spans: list[tuple[UUID, int, int]]) -> dict[tuple[UUID, int], WindowMessage]:
    """The original messages of several windows (conversation, first seq, last seq) at once, keyed by
    (conversation_id, seq): recall attaches them to its conversation results."""
    return store.messages_for_windows(conn, spans)


def mark_extraction_queued(conn: Conn, conversation_id: UUID, through_seq: int) -> None:
    """Extraction was queued for the turns up to `through_seq`."""
    store.mark_extraction_queued(conn, conversation_id, through_seq)


def save_extraction(conn: Conn, conversation_id: UUID, through_seq: int, summary: str | None) -> None:
    """An extraction job read the turns up to `through_seq` (never moves back) and left this summary."""
    store.save_extraction(conn, conversation_id, through_seq, summary)


def restore_summary(conn: Conn, conversation_id: UUID, summary: str | None) -> None:
    """The summary as it was before an extraction run (undoing the run)."""
    store.restore_summary(conn, conversation_id, summary)

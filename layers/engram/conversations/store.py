"""The SQL of conversations: functions that take the caller's connection (a tenant transaction)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from psycopg import Cursor, sql
from psycopg.rows import class_row, scalar_row, tuple_row

from engram.conversations.models import (
    Conversation,
    ConversationCreate,
    DeletedConversation,
    Message,
    MessageCreate,
    WindowMessage,
)
from engram.conversations.settings import conversation_settings
from engram.conversations.windows import Window, format_window, neighbour_context, windows_to_rebuild
from engram.core.db import Conn
from engram.core.errors import NotFound
from engram.core.pagination import newest_first
from engram.core.select_lists import select_list
from engram.indexing.chunks import ChunkOwner, NewChunk, insert_chunks

CONVERSATION_KIND = "conversation"  # chunks.kind of conversation windows (memory kinds never use it)

# A conversation's `extraction` is where its extraction stands, which the service works out.
CONVERSATION_COLUMNS = select_list(Conversation, leave_out=("extraction",))
MESSAGE_COLUMNS = select_list(Message)
_WINDOW = select_list(Window)


class ConversationRow(Conversation):
    """A conversations row as an append reads it: what callers see, and the next sequence number."""

    next_seq: int
    extraction_queued_seq: int


def insert_conversation(conn: Conn, tenant_id: UUID, req: ConversationCreate) -> Conversation:
    query = sql.SQL(
        "INSERT INTO conversations (tenant_id, namespace, title, agent_id, tags, metadata)"
        " VALUES (%s, %s, %s, %s, %s, %s) RETURNING {}"
    ).format(CONVERSATION_COLUMNS)
    cur = conn.cursor(row_factory=class_row(Conversation))
    created = cur.execute(
        query, (tenant_id, req.namespace, req.title, req.agent_id, req.tags, json.dumps(req.metadata))
    ).fetchone()
    assert created is not None
    return created


def conversation_page(
    conn: Conn,
    *,
    namespace: str | None,
    tags: list[str] | None,
    agent_id: str | None,
    cursor: str | None,
    limit: int,
) -> tuple[list[Conversation], str | None]:
    return newest_first(
        conn,
        Conversation,
        select=sql.SQL("SELECT {} FROM conversations").format(CONVERSATION_COLUMNS),
        cursor=cursor,
        limit=limit,
        filters=[("namespace = %s", namespace), ("tags @> %s", tags), ("agent_id = %s", agent_id)],
    )


def mark_extraction_queued(conn: Conn, conversation_id: UUID, through_seq: int) -> None:
    conn.execute(
        "UPDATE conversations SET extraction_queued_seq = %s, extraction_queued_at = now() WHERE id = %s",
        (through_seq, conversation_id),
    )


def save_extraction(conn: Conn, conversation_id: UUID, through_seq: int, summary: str | None) -> None:
    """An extraction job read the turns up to `through_seq` (never moves back) and left this summary."""
    conn.execute(
        "UPDATE conversations SET extracted_seq = GREATEST(extracted_seq, %(seq)s),"
        " extraction_queued_seq = GREATEST(extraction_queued_seq, %(seq)s),"
        " summary = COALESCE(%(summary)s, summary),"
        " summary_updated_at = CASE WHEN %(summary)s::text IS NULL THEN summary_updated_at ELSE now() END"
        " WHERE id = %(id)s",
        {"seq": through_seq, "summary": summary, "id": conversation_id},
    )


def restore_summary(conn: Conn, conversation_id: UUID, summary: str | None) -> None:
    conn.execute(
        "UPDATE conversations SET summary = %s, summary_updated_at = now() WHERE id = %s", (summary, conversation_id)
    )


def delete_derived_memories(conn: Conn, conversation_ids: list[UUID]) -> int:
    """Memories derived from these conversations' turns (their evidence): gone with them, chunks and
    links by cascade. A memory that also cites another conversation stays (with the rest of its evidence)."""
    cur = conn.cursor(row_factory=scalar_row)
    rows = cur.execute(
        "DELETE FROM memories m WHERE m.id IN (SELECT e.memory_id FROM memory_evidence e"
        " WHERE e.conversation_id = ANY(%(ids)s)) AND NOT EXISTS (SELECT 1 FROM memory_evidence o"
        " WHERE o.memory_id = m.id AND o.conversation_id <> ALL(%(ids)s)) RETURNING m.id",
        {"ids": conversation_ids},
    ).fetchall()
    return len(rows)


def delete_conversation_row(conn: Conn, conversation_id: UUID) -> DeletedConversation:
    """The conversation and, by cascade, its messages and chunks; with how many of each went. What was
    derived from its turns goes too."""
    delete_derived_memories(conn, [conversation_id])
    counts = {
        "id": sql.SQL("%(id)s::uuid"),
        "messages": sql.SQL("(SELECT count(*) FROM messages WHERE conversation_id = %(id)s)"),
        "chunks": sql.SQL("(SELECT count(*) FROM chunks WHERE conversation_id = %(id)s)"),
    }
    query = sql.SQL("SELECT {}").format(select_list(DeletedConversation, expressions=counts, leave_out=("deleted",)))
    deleted = conn.cursor(row_factory=class_row(DeletedConversation)).execute(query, {"id": conversation_id}).fetchone()
    conn.execute("DELETE FROM conversations WHERE id = %s", (conversation_id,))
    assert deleted is not None
    return deleted


@dataclass(frozen=True)
class KeyedAppend:
    """An earlier append under an idempotency key: its request's hash and the messages it wrote."""

    request_hash: bytes
    seq_from: int
    seq_to: int


def keyed_append(conn: Conn, conversation_id: UUID, key: str) -> KeyedAppend | None:
    query = sql.SQL("SELECT {} FROM conversation_appends WHERE conversation_id = %s AND idempotency_key = %s").format(
        select_list(KeyedAppend)
    )
    with conn.cursor(row_factory=class_row(KeyedAppend)) as cur:
        return cur.execute(query, (conversation_id, key)).fetchone()


def remember_append(conn: Conn, tenant_id: UUID, conversation_id: UUID, key: str, seen: KeyedAppend) -> None:
    conn.execute(
        "INSERT INTO conversation_appends (tenant_id, conversation_id, idempotency_key, request_hash,"
        " seq_from, seq_to) VALUES (%s, %s, %s, %s, %s, %s)",
        (tenant_id, conversation_id, key, seen.request_hash, seen.seq_from, seen.seq_to),
    )


def insert_messages(
    conn: Conn, tenant_id: UUID, conversation_id: UUID, first_seq: int, messages: list[MessageCreate]
) -> list[Message]:
    """The messages numbered from `first_seq`, in one statement; the conversation's counters move on.
    Returns them in sequence order."""
    n = len(messages)
    rows = (
        conn.cursor(row_factory=class_row(Message))
        .execute(
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
                list(range(first_seq, first_seq + n)),
                [m.role for m in messages],
                [m.content for m in messages],
                [m.tool_call_id for m in messages],
                [m.tool_name for m in messages],
                [json.dumps(m.metadata, ensure_ascii=False) for m in messages],
                [m.created_at for m in messages],
            ),
        )
        .fetchall()
    )
    written = sorted(rows, key=lambda m: m.seq)
    conn.execute(
        "UPDATE conversations SET next_seq = %s, message_count = message_count + %s, updated_at = now(),"
        " last_message_at = GREATEST(last_message_at, %s) WHERE id = %s",
        (first_seq + n, n, max(m.created_at for m in written), conversation_id),
    )
    return written


def fetch_conversation(conn: Conn, conversation_id: UUID, *, lock: bool = False) -> ConversationRow:
    query = sql.SQL("SELECT {} FROM conversations WHERE id = %s {}").format(
        select_list(ConversationRow, leave_out=("extraction",)), sql.SQL("FOR UPDATE" if lock else "")
    )
    with conn.cursor(row_factory=class_row(ConversationRow)) as cur:
        row = cur.execute(query, (conversation_id,)).fetchone()
    if row is None:  # another tenant's conversation is invisible (RLS): the same 404
        raise NotFound(f"conversation {conversation_id} not found")
    return row


def messages_between(
    conn: Conn, conversation_id: UUID, seq_from: int, seq_to: int, limit: int | None = None
) -> list[Message]:
    query = sql.SQL(
        "SELECT {} FROM messages WHERE conversation_id = %s AND seq BETWEEN %s AND %s ORDER BY seq LIMIT %s"
    ).format(MESSAGE_COLUMNS)
    cur = conn.cursor(row_factory=class_row(Message))
    return cur.execute(query, (conversation_id, seq_from, seq_to, limit)).fetchall()


def extend_windows(conn: Conn, tenant_id: UUID, conv: ConversationRow, count: int) -> list[UUID]:
    """Bring the conversation's windows up to `count` messages: replace the partial tail, add new ones."""
    s = conversation_settings()
    size, stride = s.conversation_window_size, s.conversation_window_stride
    with conn.cursor(row_factory=class_row(Window)) as cur:
        query = sql.SQL("SELECT {} FROM chunks WHERE conversation_id = %s").format(_WINDOW)
        existing = cur.execute(query, (conv.id,)).fetchall()
    delete, insert = windows_to_rebuild(existing, count, size, stride)
    if delete:
        conn.execute(
            "DELETE FROM chunks WHERE conversation_id = %s AND seq_from = ANY(%s)",
            (conv.id, [w.seq_from for w in delete]),
        )
    if not insert:
        return []
    kept = [w for w in existing if w not in delete]
    if kept:
        _add_next_turn_to_context(conn, conv.id, max(w.seq_to for w in kept) + 1)
    return insert_chunks(conn, tenant_id, _owner(conv), _window_chunks(conn, conv.id, insert, stride))


def _owner(conv: ConversationRow) -> ChunkOwner:
    return ChunkOwner(namespace=conv.namespace, kind=CONVERSATION_KIND, tags=conv.tags, conversation_id=conv.id)


def _window_chunks(conn: Conn, conversation_id: UUID, windows: Sequence[Window], stride: int) -> list[NewChunk]:
    """The chunks of these windows, as the messages stand now, with their neighbours as keyword context."""
    lo, hi = min(w.seq_from for w in windows), max(w.seq_to for w in windows)
    # One more message each side: the neighbours of the windows' keyword context.
    by_seq = {m.seq: m for m in messages_between(conn, conversation_id, max(lo - 1, 1), hi + 1)}
    chunks = []
    for w in windows:
        msgs = [by_seq[q] for q in range(w.seq_from, w.seq_to + 1)]
        chunks.append(
            NewChunk(
                position=(w.seq_from - 1) // max(stride, 1),
                char_start=0,
                text=format_window(msgs),
                occurred_at=msgs[-1].created_at,
                seq_from=w.seq_from,
                seq_to=w.seq_to,
                context=neighbour_context(
                    by_seq.get(w.seq_from - 1), by_seq.get(w.seq_to + 1), msgs[0].created_at, msgs[-1].created_at
                ),
            )
        )
    return chunks


def redact_message(conn: Conn, conversation_id: UUID, seq: int, text: str) -> Message | None:
    """The message's content becomes `text`, its tool fields and metadata are cleared; its seq, role and
    time stay. None when there is no such message."""
    return (
        conn.cursor(row_factory=class_row(Message))
        .execute(
            sql.SQL(
                "UPDATE messages SET content = %s, tool_call_id = NULL, tool_name = NULL, metadata = '{{}}',"
                " redacted_at = COALESCE(redacted_at, now()) WHERE conversation_id = %s AND seq = %s RETURNING {}"
            ).format(MESSAGE_COLUMNS),
            (text, conversation_id, seq),
        )
        .fetchone()
    )


def rewindow(conn: Conn, tenant_id: UUID, conv: ConversationRow, seq_from: int, seq_to: int) -> list[UUID]:
    """The windows holding any of seq_from..seq_to in their text or their keyword context (the turn each
    side) are built again from the messages as they stand: new chunks, vectors pending. Their ids."""
    with conn.cursor(row_factory=class_row(Window)) as cur:
        query = sql.SQL(
            "DELETE FROM chunks WHERE conversation_id = %s AND seq_from <= %s AND seq_to >= %s RETURNING {}"
        ).format(_WINDOW)
        touched = cur.execute(query, (conv.id, seq_to + 1, seq_from - 1)).fetchall()
    if not touched:
        return []
    stride = conversation_settings().conversation_window_stride
    return insert_chunks(
        conn, tenant_id, _owner(conv), _window_chunks(conn, conv.id, sorted(touched, key=lambda w: w.seq_from), stride)
    )


def _add_next_turn_to_context(conn: Conn, conversation_id: UUID, first_new: int) -> None:
    """The windows that end just before `first_new`, the first message appended now, had no next turn
    when they were written: their keyword context gets it (their text and vector stay as they are)."""
    cur = conn.cursor(row_factory=tuple_row)
    ending: list[tuple[UUID, int]] = cur.execute(
        "SELECT id, seq_from FROM chunks WHERE conversation_id = %s AND seq_to = %s", (conversation_id, first_new - 1)
    ).fetchall()
    for chunk_id, seq_from in ending:
        by_seq = {m.seq: m for m in messages_between(conn, conversation_id, seq_from - 1, first_new)}
        context = neighbour_context(
            by_seq.get(seq_from - 1),
            by_seq.get(first_new),
            by_seq[seq_from].created_at,
            by_seq[first_new - 1].created_at,
        )
        conn.execute("UPDATE chunks SET context = %s WHERE id = %s", (context, chunk_id))


# Driven from the windows, one probe of (conversation_id, seq) each. Joined plainly, the planner could
# not tell a window's few seqs from the range's default share of a conversation and hashed the tenant's
# every message: 40 windows of a 200k-message conversation took 118 ms with the statistics behind a bulk
# import and 497 ms analysed, against 1.2-1.4 ms (bench/perf/window_messages.py). OFFSET 0 keeps the
# subquery from being folded back into that join. Never prepared: a generic plan is kept for the
# connection's life (until an ANALYZE), and one made while messages held a page scanned the whole table
# for each window once it had grown: 557 ms for 40 windows at 200k (the same bench). Planned for its
# values, it sees the table's size now, for 0.2 ms of planning a recall.
WINDOW_MESSAGES = sql.SQL(
    "SELECT {} FROM unnest(%s::uuid[], %s::int[], %s::int[]) AS w(cid, lo, hi)"
    " CROSS JOIN LATERAL (SELECT * FROM messages m WHERE m.conversation_id = w.cid AND m.seq BETWEEN w.lo AND w.hi"
    " OFFSET 0) m"
).format(select_list(WindowMessage, "m"))


@dataclass(frozen=True)
class AskedWindowMessages:
    """The original rows of several windows, asked for and read later: in a pipeline the rows arrive
    with its sync (recall sends the query with its recall event and commit, one round trip)."""

    cursor: Cursor[WindowMessage] | None

    def read(self) -> dict[tuple[UUID, int], WindowMessage]:
        """The rows keyed by (conversation_id, seq)."""
        if self.cursor is None:
            return {}
        with self.cursor as cur:
            return {(m.conversation_id, m.seq): m for m in cur.fetchall()}


def ask_window_messages(conn: Conn, spans: list[tuple[UUID, int, int]]) -> AskedWindowMessages:
    """Send the query for the original rows of several windows (conversation, first seq, last seq)."""
    if not spans:
        return AskedWindowMessages(None)
    cur = conn.cursor(row_factory=class_row(WindowMessage))
    cur.execute(WINDOW_MESSAGES, ([s[0] for s in spans], [s[1] for s in spans], [s[2] for s in spans]), prepare=False)
    return AskedWindowMessages(cur)


def messages_for_windows(conn: Conn, spans: list[tuple[UUID, int, int]]) -> dict[tuple[UUID, int], WindowMessage]:
    """The original rows of several windows at once, keyed by (conversation_id, seq)."""
    return ask_window_messages(conn, spans).read()

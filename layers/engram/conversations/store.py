"""The SQL of conversations: functions that take the caller's connection (a tenant transaction)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import DictRow

from engram.conversations.windows import Window, format_window, neighbour_context, windows_to_rebuild
from engram.core.config import settings
from engram.core.errors import NotFound
from engram.indexing.chunks import ChunkOwner, NewChunk, insert_chunks

CONVERSATION_KIND = "conversation"  # chunks.kind of conversation windows (memory kinds never use it)

CONVERSATION_COLUMNS = sql.SQL(", ").join(
    map(
        sql.Identifier,
        (
            "id",
            "namespace",
            "title",
            "agent_id",
            "tags",
            "metadata",
            "message_count",
            "last_message_at",
            "created_at",
            "updated_at",
        ),
    )
)
_MESSAGE_COLUMN_NAMES = (
    "id",
    "conversation_id",
    "seq",
    "role",
    "content",
    "tool_call_id",
    "tool_name",
    "metadata",
    "created_at",
)
MESSAGE_COLUMNS = sql.SQL(", ").join(map(sql.Identifier, _MESSAGE_COLUMN_NAMES))


def fetch_conversation(
    conn: psycopg.Connection[DictRow], conversation_id: UUID, *, lock: bool = False
) -> dict[str, Any]:
    query = sql.SQL("SELECT {}, next_seq FROM conversations WHERE id = %s {}").format(
        CONVERSATION_COLUMNS, sql.SQL("FOR UPDATE" if lock else "")
    )
    row = conn.execute(query, (conversation_id,)).fetchone()
    if row is None:  # another tenant's conversation is invisible (RLS): the same 404
        raise NotFound(f"conversation {conversation_id} not found")
    return row


def messages_between(
    conn: psycopg.Connection[DictRow], conversation_id: UUID, seq_from: int, seq_to: int, limit: int | None = None
) -> list[dict[str, Any]]:
    query = sql.SQL(
        "SELECT {} FROM messages WHERE conversation_id = %s AND seq BETWEEN %s AND %s ORDER BY seq LIMIT %s"
    ).format(MESSAGE_COLUMNS)
    return conn.execute(query, (conversation_id, seq_from, seq_to, limit)).fetchall()


def extend_windows(conn: psycopg.Connection[DictRow], tenant_id: UUID, conv: dict[str, Any], count: int) -> list[UUID]:
    """Bring the conversation's windows up to `count` messages: replace the partial tail, add new ones."""
    s = settings()
    size, stride = s.conversation_window_size, s.conversation_window_stride
    existing = [
        Window(r["seq_from"], r["seq_to"])
        for r in conn.execute(
            "SELECT seq_from, seq_to FROM chunks WHERE conversation_id = %s", (conv["id"],)
        ).fetchall()
    ]
    delete, insert = windows_to_rebuild(existing, count, size, stride)
    if delete:
        conn.execute(
            "DELETE FROM chunks WHERE conversation_id = %s AND seq_from = ANY(%s)",
            (conv["id"], [w.seq_from for w in delete]),
        )
    if not insert:
        return []
    kept = [w for w in existing if w not in delete]
    if kept:
        _add_next_turn_to_context(conn, conv["id"], max(w.seq_to for w in kept) + 1)
    lo, hi = min(w.seq_from for w in insert), max(w.seq_to for w in insert)
    # One more message each side: the neighbours of the new windows' keyword context.
    by_seq = {r["seq"]: r for r in messages_between(conn, conv["id"], max(lo - 1, 1), hi + 1)}
    owner = ChunkOwner(
        namespace=conv["namespace"], kind=CONVERSATION_KIND, tags=conv["tags"], conversation_id=conv["id"]
    )
    chunks = []
    for w in insert:
        msgs = [by_seq[q] for q in range(w.seq_from, w.seq_to + 1)]
        chunks.append(
            NewChunk(
                position=(w.seq_from - 1) // max(stride, 1),
                char_start=0,
                text=format_window(msgs),
                occurred_at=msgs[-1]["created_at"],
                seq_from=w.seq_from,
                seq_to=w.seq_to,
                context=neighbour_context(
                    by_seq.get(w.seq_from - 1), by_seq.get(w.seq_to + 1), msgs[0]["created_at"], msgs[-1]["created_at"]
                ),
            )
        )
    return insert_chunks(conn, tenant_id, owner, chunks)


def _add_next_turn_to_context(conn: psycopg.Connection[DictRow], conversation_id: UUID, first_new: int) -> None:
    """The windows that end just before `first_new`, the first message appended now, had no next turn
    when they were written: their keyword context gets it (their text and vector stay as they are)."""
    for chunk in conn.execute(
        "SELECT id, seq_from FROM chunks WHERE conversation_id = %s AND seq_to = %s", (conversation_id, first_new - 1)
    ).fetchall():
        by_seq = {r["seq"]: r for r in messages_between(conn, conversation_id, chunk["seq_from"] - 1, first_new)}
        context = neighbour_context(
            by_seq.get(chunk["seq_from"] - 1),
            by_seq.get(first_new),
            by_seq[chunk["seq_from"]]["created_at"],
            by_seq[first_new - 1]["created_at"],
        )
        conn.execute("UPDATE chunks SET context = %s WHERE id = %s", (context, chunk["id"]))


def messages_for_windows(
    conn: psycopg.Connection[DictRow], spans: list[tuple[UUID, int, int]]
) -> dict[tuple[UUID, int], dict[str, Any]]:
    """The original rows of several windows at once, keyed by (conversation_id, seq)."""
    if not spans:
        return {}
    query = sql.SQL(
        "SELECT {} FROM unnest(%s::uuid[], %s::int[], %s::int[]) AS w(cid, lo, hi)"
        " JOIN messages m ON m.conversation_id = w.cid AND m.seq BETWEEN w.lo AND w.hi"
    ).format(sql.SQL(", ").join(sql.Identifier("m", c) for c in _MESSAGE_COLUMN_NAMES))
    rows = conn.execute(query, ([s[0] for s in spans], [s[1] for s in spans], [s[2] for s in spans])).fetchall()
    return {(r["conversation_id"], r["seq"]): r for r in rows}

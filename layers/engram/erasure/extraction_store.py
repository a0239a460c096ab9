"""The SQL erasure runs on what extraction derived: the memories learned from a conversation's turns,
and what extraction runs kept of an erased memory's words. Functions take the caller's connection."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from psycopg.rows import scalar_row

from engram.core.db import Conn


def derived_from_conversations(conn: Conn, conversation_ids: Sequence[UUID]) -> list[UUID]:
    """Memories extraction derived from these conversations' turns (their evidence cites them): a
    conversation's erasure reaches what was learned from it, whatever else the memory cites."""
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute(
        "SELECT DISTINCT e.memory_id FROM memory_evidence e JOIN memories m ON m.id = e.memory_id"
        " WHERE e.conversation_id = ANY(%s) ORDER BY 1",
        (list(conversation_ids),),
    ).fetchall()


def derived_from_messages(conn: Conn, message_ids: Sequence[UUID]) -> list[UUID]:
    """Memories extraction derived from these turns (their evidence cites one), locked: a redacted turn's."""
    cur = conn.cursor(row_factory=scalar_row)
    return cur.execute(
        "SELECT id FROM memories WHERE id IN (SELECT memory_id FROM memory_evidence WHERE message_id = ANY(%s))"
        " ORDER BY id FOR UPDATE",
        (list(message_ids),),
    ).fetchall()


def scrub_extraction(conn: Conn, memory_ids: Sequence[UUID]) -> int:
    """What extraction runs kept of these memories' words: the actions that wrote or named them go, a
    run whose summary memory is among them forgets both summaries, and a run over a pushed text that
    led to one forgets the text. Returns how many actions and runs lost something."""
    ids = list(memory_ids)
    conn.execute(  # a conversation's summary is the same words as its summary memory
        "UPDATE conversations SET summary = NULL, summary_updated_at = now() WHERE id IN"
        " (SELECT (metadata->>'conversation_id')::uuid FROM memories"
        " WHERE id = ANY(%(m)s) AND source = 'conversation_summary')",
        {"m": ids},
    )
    cur = conn.cursor(row_factory=scalar_row)
    action_runs: list[UUID] = cur.execute(
        "DELETE FROM extraction_actions WHERE memory_id = ANY(%(m)s) OR target_id = ANY(%(m)s) RETURNING run_id",
        {"m": ids},
    ).fetchall()
    runs = cur.execute(
        "UPDATE extraction_runs SET summary_before = NULL, summary_after = NULL"
        " WHERE summary_memory_id = ANY(%(m)s) OR previous_summary_memory_id = ANY(%(m)s) RETURNING id",
        {"m": ids},
    ).fetchall()
    texts = cur.execute(
        "UPDATE extraction_runs SET input_text = '' WHERE input_text IS NOT NULL AND input_text <> ''"
        " AND id = ANY(%(r)s) RETURNING id",
        {"r": action_runs},
    ).fetchall()
    return len(action_runs) + len(runs) + len(texts)

"""The SQL of extraction: runs, their actions, per-namespace settings and the sweep. Functions take
the caller's connection and open no transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, scalar_row, tuple_row

from engram.core.db import Conn
from engram.core.errors import NotFound
from engram.core.pagination import newest_first
from engram.core.select_lists import select_list
from engram.extraction.models import KINDS, ExtractionRun, ExtractionSettingsUpdate, NamespaceExtraction

# A run's counts are its actions', added by the caller (action_counts).
RUN_COLUMNS = select_list(ExtractionRun, leave_out=("counts",))


class RunRow(ExtractionRun):
    """A run as the worker reads it: what callers see, and what it needs to do and undo the work."""

    input_text: str | None
    summary_before: str | None
    lease_until: datetime | None
    summary_memory_id: UUID | None
    previous_summary_memory_id: UUID | None


_ROW_COLUMNS = select_list(RunRow, leave_out=("counts",))


@dataclass(frozen=True)
class NewAction:
    seq: int
    action: str
    kind: str
    content: str
    event_date: date | None
    memory_id: UUID | None
    target_id: UUID | None
    link_id: UUID | None
    target_valid_to: datetime | None
    evidence_seqs: list[int]


@dataclass(frozen=True)
class ActionRow(NewAction):
    """An action as a run's page reads it back: what was written."""


@dataclass(frozen=True)
class ActionCount:
    run_id: UUID
    action: str
    n: int


# ------------------------------------------------------------------------------------------- settings


_SETTINGS_COLUMNS = select_list(NamespaceExtraction)


def namespace_settings(conn: Conn, namespace: str) -> NamespaceExtraction:
    query = sql.SQL("SELECT {} FROM extraction_settings WHERE namespace = %s").format(_SETTINGS_COLUMNS)
    found = conn.cursor(row_factory=class_row(NamespaceExtraction)).execute(query, (namespace,)).fetchone()
    if found is None:
        return NamespaceExtraction(
            namespace=namespace, enabled=True, kinds=list(KINDS), instructions=None, updated_at=None
        )
    return found


def put_namespace_settings(conn: Conn, tenant_id: UUID, req: ExtractionSettingsUpdate) -> NamespaceExtraction:
    query = sql.SQL(
        "INSERT INTO extraction_settings (tenant_id, namespace, enabled, kinds, instructions)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (tenant_id, namespace) DO UPDATE SET enabled = excluded.enabled,"
        " kinds = excluded.kinds, instructions = excluded.instructions, updated_at = now() RETURNING {}"
    ).format(_SETTINGS_COLUMNS)
    cur = conn.cursor(row_factory=class_row(NamespaceExtraction))
    saved = cur.execute(
        query, (tenant_id, req.namespace, req.enabled, list(dict.fromkeys(req.kinds)), req.instructions)
    ).fetchone()
    assert saved is not None
    return saved


# ----------------------------------------------------------------------------------------------- runs


def window_run(
    conn: Conn, tenant_id: UUID, namespace: str, conversation_id: UUID, seq_from: int, seq_to: int, trigger: str
) -> RunRow:
    """The run of this window of turns, created on its first delivery, locked (a second delivery waits
    here, then finds the first one's outcome)."""
    conn.execute(
        "INSERT INTO extraction_runs (tenant_id, namespace, conversation_id, seq_from, seq_to, trigger)"
        " VALUES (%s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (conversation_id, seq_from, seq_to) WHERE conversation_id IS NOT NULL AND NOT dry_run"
        " DO NOTHING",
        (tenant_id, namespace, conversation_id, seq_from, seq_to, trigger),
    )
    query = sql.SQL(
        "SELECT {} FROM extraction_runs WHERE conversation_id = %s AND seq_from = %s AND seq_to = %s"
        " AND NOT dry_run FOR UPDATE"
    ).format(_ROW_COLUMNS)
    with conn.cursor(row_factory=class_row(RunRow)) as cur:
        found = cur.execute(query, (conversation_id, seq_from, seq_to)).fetchone()
    assert found is not None
    return found


def insert_api_run(
    conn: Conn,
    tenant_id: UUID,
    namespace: str,
    *,
    conversation_id: UUID | None,
    seq_from: int | None,
    seq_to: int | None,
    input_text: str | None,
    dry_run: bool,
) -> RunRow:
    query = sql.SQL(
        "INSERT INTO extraction_runs (tenant_id, namespace, conversation_id, seq_from, seq_to, input_text, trigger,"
        " dry_run, status, started_at) VALUES (%s, %s, %s, %s, %s, %s, 'api', %s, 'running', now()) RETURNING {}"
    ).format(_ROW_COLUMNS)
    with conn.cursor(row_factory=class_row(RunRow)) as cur:
        row = cur.execute(
            query, (tenant_id, namespace, conversation_id, seq_from, seq_to, input_text, dry_run)
        ).fetchone()
    assert row is not None
    return row


def lock_run(conn: Conn, run_id: UUID) -> RunRow:
    return read_run(conn, run_id, lock=True)


def read_run(conn: Conn, run_id: UUID, *, lock: bool = False) -> RunRow:
    query = sql.SQL("SELECT {} FROM extraction_runs WHERE id = %s {}").format(
        _ROW_COLUMNS, sql.SQL("FOR UPDATE" if lock else "")
    )
    with conn.cursor(row_factory=class_row(RunRow)) as cur:
        row = cur.execute(query, (run_id,)).fetchone()
    if row is None:
        raise NotFound(f"extraction run {run_id} not found")
    return row


def start_run(conn: Conn, run_id: UUID, lease_s: int) -> None:
    conn.execute(
        "UPDATE extraction_runs SET status = 'running', attempts = attempts + 1, reason = NULL,"
        " started_at = COALESCE(started_at, now()), lease_until = now() + make_interval(secs => %s) WHERE id = %s",
        (lease_s, run_id),
    )


def set_status(conn: Conn, run_id: UUID, status: str, reason: str | None) -> None:
    """Where a run stands (waiting, failed, queued again); a settled run gets its finish time."""
    conn.execute(
        "UPDATE extraction_runs SET status = %s, reason = %s, lease_until = NULL,"
        " finished_at = CASE WHEN %s IN ('done', 'failed') THEN now() ELSE finished_at END WHERE id = %s",
        (status, reason and reason[:500], status, run_id),
    )


def count_llm_call(conn: Conn, run_id: UUID, input_tokens: int, output_tokens: int) -> None:
    conn.execute(
        "UPDATE extraction_runs SET llm_calls = llm_calls + 1, llm_input_tokens = llm_input_tokens + %s,"
        " llm_output_tokens = llm_output_tokens + %s WHERE id = %s",
        (input_tokens, output_tokens, run_id),
    )


def finish_run(
    conn: Conn, run_id: UUID, summary: tuple[str | None, str | None], summary_memory: tuple[UUID | None, UUID | None]
) -> None:
    """Done: with the summary (before, after) and its memory (the new one, the one it replaced)."""
    conn.execute(
        "UPDATE extraction_runs SET status = 'done', reason = NULL, lease_until = NULL, finished_at = now(),"
        " summary_before = %s, summary_after = %s, summary_memory_id = %s, previous_summary_memory_id = %s"
        " WHERE id = %s",
        (*summary, *summary_memory, run_id),
    )


def summary_memory(conn: Conn, conversation_id: UUID) -> UUID | None:
    """The active memory holding this conversation's summary (what recall finds of it)."""
    cur = conn.cursor(row_factory=scalar_row)
    found: UUID | None = cur.execute(
        "SELECT id FROM memories WHERE source = 'conversation_summary' AND status = 'active'"
        " AND metadata->>'conversation_id' = %s ORDER BY created_at DESC LIMIT 1",
        (str(conversation_id),),
    ).fetchone()
    return found


def mark_undone(conn: Conn, run_id: UUID) -> None:
    conn.execute("UPDATE extraction_runs SET status = 'undone', undone_at = now() WHERE id = %s", (run_id,))


def insert_actions(conn: Conn, tenant_id: UUID, run_id: UUID, actions: Sequence[NewAction]) -> None:
    if not actions:
        return
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO extraction_actions (run_id, seq, tenant_id, action, kind, content, event_date, memory_id,"
            " target_id, link_id, target_valid_to, evidence_seqs)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [
                (
                    run_id,
                    a.seq,
                    tenant_id,
                    a.action,
                    a.kind,
                    a.content,
                    a.event_date,
                    a.memory_id,
                    a.target_id,
                    a.link_id,
                    a.target_valid_to,
                    a.evidence_seqs,
                )
                for a in actions
            ],
        )


def run_actions(conn: Conn, run_id: UUID) -> list[ActionRow]:
    query = sql.SQL("SELECT {} FROM extraction_actions WHERE run_id = %s ORDER BY seq").format(select_list(ActionRow))
    with conn.cursor(row_factory=class_row(ActionRow)) as cur:
        return cur.execute(query, (run_id,)).fetchall()


def action_counts(conn: Conn, run_ids: Sequence[UUID]) -> dict[UUID, dict[str, int]]:
    counts: dict[UUID, dict[str, int]] = {}
    query = sql.SQL("SELECT {} FROM extraction_actions WHERE run_id = ANY(%s) GROUP BY 1, 2").format(
        select_list(ActionCount, expressions={"n": sql.SQL("count(*)")})
    )
    for c in conn.cursor(row_factory=class_row(ActionCount)).execute(query, (list(run_ids),)):
        counts.setdefault(c.run_id, {})[c.action] = c.n
    return counts


def run_page(
    conn: Conn, *, namespace: str | None, conversation_id: UUID | None, cursor: str | None, limit: int
) -> tuple[list[ExtractionRun], str | None]:
    """A page of runs, their counts empty (action_counts)."""
    return newest_first(
        conn,
        ExtractionRun,
        select=sql.SQL("SELECT {} FROM extraction_runs").format(RUN_COLUMNS),
        filters=[("namespace = %s", namespace), ("conversation_id = %s", conversation_id)],
        cursor=cursor,
        limit=limit,
    )


def message_ids(conn: Conn, conversation_id: UUID, seqs: Sequence[int]) -> dict[int, UUID]:
    with conn.cursor(row_factory=tuple_row) as cur:
        found: list[tuple[int, UUID]] = cur.execute(
            "SELECT seq, id FROM messages WHERE conversation_id = %s AND seq = ANY(%s)", (conversation_id, list(seqs))
        ).fetchall()
    return dict(found)


# ---------------------------------------------------------------------------------------------- sweep


def conversations_to_extract(conn: Conn, quiet_s: int, requeue_s: int, limit: int) -> list[tuple[UUID, UUID, int]]:
    """(tenant, conversation, last turn) of every tenant's quiet conversations with unread turns (an
    anonymous transaction: the SECURITY DEFINER function returns only these triples)."""
    with conn.cursor(row_factory=tuple_row) as cur:
        return cur.execute(
            "SELECT tenant_id, conversation_id, through_seq FROM engram_conversations_to_extract("
            " make_interval(secs => %s), make_interval(secs => %s), %s)",
            (quiet_s, requeue_s, limit),
        ).fetchall()


@dataclass(frozen=True)
class SessionSummary:
    conversation_id: UUID
    title: str | None
    summary: str
    summary_updated_at: datetime
    last_message_id: UUID


def session_summaries(conn: Conn, namespace: str, limit: int) -> list[SessionSummary]:
    """The namespace's latest conversation summaries, newest first, each with its last turn's id."""
    fields = select_list(
        SessionSummary, "c", expressions={"conversation_id": sql.SQL("c.id"), "last_message_id": sql.SQL("m.id")}
    )
    query = sql.SQL(
        "SELECT {} FROM conversations c JOIN messages m ON m.conversation_id = c.id AND m.seq = c.next_seq - 1"
        " WHERE c.namespace = %s AND c.summary IS NOT NULL ORDER BY c.summary_updated_at DESC LIMIT %s"
    ).format(fields)
    with conn.cursor(row_factory=class_row(SessionSummary)) as cur:
        return cur.execute(query, (namespace, limit)).fetchall()


@dataclass(frozen=True)
class ProjectStatus:
    id: UUID
    updated_at: datetime


def project_status(conn: Conn, namespace: str) -> ProjectStatus | None:
    query = sql.SQL(
        "SELECT {} FROM memories WHERE namespace = %s AND tags @> '{{project-status}}'"
        " AND status = 'active' ORDER BY updated_at DESC LIMIT 1"
    ).format(select_list(ProjectStatus))
    with conn.cursor(row_factory=class_row(ProjectStatus)) as cur:
        return cur.execute(query, (namespace,)).fetchone()

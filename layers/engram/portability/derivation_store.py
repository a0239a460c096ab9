"""The SQL of what extraction derived, as exports read it and imports write it: per-namespace
extraction settings, extraction runs with their actions, and derived memories' evidence (the memory
export itself carries the evidence: portability.store). In the caller's transaction."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from psycopg import sql
from psycopg.rows import tuple_row

from engram.core.db import Conn
from engram.core.select_lists import select_list
from engram.portability.records import ExtractionActionRecord, ExtractionRunRecord, ExtractionSettingsRecord
from engram.portability.rows import ExtractionRunExportRow, ExtractionSettingsExportRow
from engram.portability.store import stream_rows

_SETTINGS = sql.SQL(
    "SELECT {} FROM extraction_settings WHERE %(ns)s::text IS NULL OR namespace = %(ns)s ORDER BY namespace"
).format(select_list(ExtractionSettingsExportRow))
# A run's actions whose memories still exist: one erased (or purged) since is not written again.
_RUN_ACTIONS = sql.SQL(
    "(SELECT COALESCE(json_agg(json_build_object('seq', a.seq, 'action', a.action, 'kind', a.kind,"
    " 'content', a.content, 'event_date', a.event_date, 'memory_id', a.memory_id, 'target_id', a.target_id,"
    " 'link_id', a.link_id, 'target_valid_to', a.target_valid_to, 'evidence_seqs', a.evidence_seqs)"
    " ORDER BY a.seq), '[]') FROM extraction_actions a WHERE a.run_id = r.id"
    " AND (a.memory_id IS NULL OR EXISTS (SELECT 1 FROM memories x WHERE x.id = a.memory_id))"
    " AND (a.target_id IS NULL OR EXISTS (SELECT 1 FROM memories x WHERE x.id = a.target_id)))"
)
_RUNS = sql.SQL(
    "SELECT {} FROM extraction_runs r WHERE %(ns)s::text IS NULL OR r.namespace = %(ns)s ORDER BY r.created_at, r.id"
).format(
    select_list(
        ExtractionRunExportRow,
        "r",
        expressions={"id_proof": sql.SQL("engram_id_proof(r.id)"), "actions": _RUN_ACTIONS},
    )
)


def stream_extraction_settings(conn: Conn, namespace: str | None) -> Iterator[ExtractionSettingsExportRow]:
    return stream_rows(conn, "extraction_settings", _SETTINGS, namespace, ExtractionSettingsExportRow)


def stream_extraction_runs(conn: Conn, namespace: str | None) -> Iterator[ExtractionRunExportRow]:
    """Runs with their actions, oldest first (over a namespace: its runs)."""
    return stream_rows(conn, "extraction_run", _RUNS, namespace, ExtractionRunExportRow)


def insert_settings(conn: Conn, tenant_id: UUID, rows: Sequence[tuple[str, ExtractionSettingsRecord]]) -> int:
    """(namespace, record): a namespace that has settings keeps them. Returns how many were written."""
    if not rows:
        return 0
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO extraction_settings (tenant_id, namespace, enabled, kinds, instructions, updated_at)"
            " SELECT %s, u.ns, u.enabled, string_to_array(u.kinds, ','), u.instructions, COALESCE(u.at, now())"
            " FROM unnest(%s::text[], %s::boolean[], %s::text[], %s::text[], %s::timestamptz[])"
            " AS u(ns, enabled, kinds, instructions, at) ON CONFLICT (tenant_id, namespace) DO NOTHING",
            (
                tenant_id,
                [ns for ns, _ in rows],
                [r.enabled for _, r in rows],
                [",".join(dict.fromkeys(r.kinds)) for _, r in rows],
                [r.instructions for _, r in rows],
                [r.updated_at for _, r in rows],
            ),
        )
        return cur.rowcount


def existing_runs(conn: Conn, keys: Sequence[tuple[UUID, str, datetime, str]]) -> dict[UUID, UUID]:
    """Runs of the tenant that are these records already: the same id, or the same namespace, creation
    time and trigger. Returns the record's id -> the existing run's id."""
    if not keys:
        return {}
    pairs: list[tuple[UUID, UUID]] = (
        conn.cursor(row_factory=tuple_row)
        .execute(
            "SELECT DISTINCT ON (k.id) k.id, r.id FROM unnest(%s::uuid[], %s::text[], %s::timestamptz[],"
            " %s::text[]) AS k(id, ns, created_at, trigger) JOIN extraction_runs r ON r.id = k.id"
            "  OR (r.namespace = k.ns AND r.created_at = k.created_at AND r.trigger = k.trigger)"
            " ORDER BY k.id, r.id <> k.id",
            tuple([k[i] for k in keys] for i in range(4)),
        )
        .fetchall()
    )
    return dict(pairs)


@dataclass(frozen=True)
class RunRow:
    """A run as an import writes it: the record, under the ids it maps to in the importing tenant."""

    id: UUID
    namespace: str
    conversation_id: UUID | None
    summary_memory_id: UUID | None
    previous_summary_memory_id: UUID | None
    record: ExtractionRunRecord


def insert_run(conn: Conn, tenant_id: UUID, run: RunRow) -> bool:
    """False when the conversation already has a run over that window (a run of its own)."""
    r = run.record
    row = conn.execute(
        "INSERT INTO extraction_runs (id, tenant_id, namespace, conversation_id, seq_from, seq_to, input_text,"
        " trigger, dry_run, status, reason, attempts, llm_calls, llm_input_tokens, llm_output_tokens,"
        " summary_before, summary_after, summary_memory_id, previous_summary_memory_id, created_at, started_at,"
        " finished_at, undone_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
        " %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING id",
        (
            run.id,
            tenant_id,
            run.namespace,
            run.conversation_id,
            r.seq_from,
            r.seq_to,
            r.input_text,
            r.trigger,
            r.dry_run,
            r.status,
            r.reason,
            r.attempts,
            r.llm_calls,
            r.llm_input_tokens,
            r.llm_output_tokens,
            r.summary_before,
            r.summary_after,
            run.summary_memory_id,
            run.previous_summary_memory_id,
            r.created_at,
            r.started_at,
            r.finished_at,
            r.undone_at,
        ),
    ).fetchone()
    return row is not None


@dataclass(frozen=True)
class ActionRow:
    run_id: UUID
    memory_id: UUID | None
    target_id: UUID | None
    link_id: UUID | None
    record: ExtractionActionRecord


def insert_actions(conn: Conn, tenant_id: UUID, actions: Sequence[ActionRow]) -> None:
    if not actions:
        return
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO extraction_actions (run_id, seq, tenant_id, action, kind, content, event_date, memory_id,"
            " target_id, link_id, target_valid_to, evidence_seqs)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            [
                (
                    a.run_id,
                    a.record.seq,
                    tenant_id,
                    a.record.action,
                    a.record.kind,
                    a.record.content,
                    a.record.event_date,
                    a.memory_id,
                    a.target_id,
                    a.link_id,
                    a.record.target_valid_to,
                    a.record.evidence_seqs,
                )
                for a in actions
            ],
        )


def insert_evidence(conn: Conn, tenant_id: UUID, rows: Sequence[tuple[UUID, UUID, int, UUID | None]]) -> int:
    """(memory, conversation, turn number, run): each turn found by its number in the conversation as
    imported. Returns how many were written (one already there is not)."""
    if not rows:
        return 0
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO memory_evidence (tenant_id, memory_id, conversation_id, message_id, run_id)"
            " SELECT %s, u.memory_id, u.conversation_id, m.id, u.run_id"
            " FROM unnest(%s::uuid[], %s::uuid[], %s::int[], %s::uuid[]) AS u(memory_id, conversation_id, seq, run_id)"
            " JOIN messages m ON m.conversation_id = u.conversation_id AND m.seq = u.seq ON CONFLICT DO NOTHING",
            (tenant_id, *([r[i] for r in rows] for i in range(4))),
        )
        return cur.rowcount

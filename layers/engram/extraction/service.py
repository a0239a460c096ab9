"""Memory that learns: facts, preferences, decisions and dated events derived from conversations.

- The append path never waits for a model: past `extraction_min_turns` new turns it queues one
  extract-jobs message (conversations.service); the sweep (`sweep`, on the dispatcher's schedule)
  queues quiet conversations with unread turns, and sends again what was lost.
- `run_job` (extract-jobs -> extraction_worker): one window of unread turns, one model call (the
  turns, the conversation's summary and the namespace's nearest memories in; a tool call in the
  strict schema of `prompt.tool` out), then one transaction that applies the checked decisions
  (add / update / invalidate / restate), records each with its evidence turns, moves the summary and
  the watermark, and settles the run. A second delivery finds the run done; a worker killed before
  that transaction left nothing, and the next delivery (after the lease) does it all again.
- `extract` (POST /v1/extract): the same path, synchronous, for any text or a range of turns; a dry
  run answers the decisions and writes nothing but its run.
- `undo_run`: every action of a run reversed, in reverse order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID

from aws_lambda_powertools import Logger

from engram.adapters import llm
from engram.adapters.embeddings.base import Embedder
from engram.adapters.queue import enqueue_embedding, enqueue_extractions
from engram.conversations import service as conversations
from engram.core.config import settings
from engram.core.db import Conn, anonymous_transaction, tenant_transaction
from engram.core.errors import DependencyDown, InvalidField, LlmUnavailable
from engram.core.models import NewMemory
from engram.extraction import store
from engram.extraction.models import (
    ExtractionRunDetail,
    ExtractionSettingsUpdate,
    ExtractRequest,
    NamespaceExtraction,
)
from engram.extraction.prompt import SYSTEM, AnswerRejected, Checked, Stored, Turn, check, prompt, tool
from engram.extraction.runs import get_run, list_runs, undo_run
from engram.extraction.sessions import distill_sessions
from engram.extraction.settings import extraction_settings
from engram.graph import service as graph
from engram.graph.models import LinkCreate
from engram.memories import service as memories
from engram.recall import service as recall
from engram.recall.models import RecallRequest

__all__ = [
    "extract",
    "get_run",
    "list_runs",
    "namespace_settings",
    "put_namespace_settings",
    "run_job",
    "sweep",
    "undo_run",
]

logger = Logger()

PURPOSE = "extraction"
MAX_API_TURNS = 200  # POST /v1/extract over a conversation: one call reads at most this many turns
SUMMARY_TAG = "session-summary"


class JobBusy(RuntimeError):
    """Another worker holds this window's lease: the message comes back later."""


class JobRetry(RuntimeError):
    """The model failed this time (late, overloaded, malformed): the message comes back later."""


# ------------------------------------------------------------------------------------------ settings


def namespace_settings(tenant_id: UUID, namespace: str) -> NamespaceExtraction:
    with tenant_transaction(tenant_id) as conn:
        return store.namespace_settings(conn, namespace)


def put_namespace_settings(tenant_id: UUID, req: ExtractionSettingsUpdate) -> NamespaceExtraction:
    with tenant_transaction(tenant_id) as conn:
        return store.put_namespace_settings(conn, tenant_id, req)


# ----------------------------------------------------------------------------------------- the job


@dataclass
class _Job:
    """What one model call needs, read in the claim's transaction."""

    run: store.RunRow
    namespace: str
    turns: list[Turn]
    summary: str | None
    kinds: list[str]
    instructions: str | None
    conversation_id: UUID | None


def run_job(tenant_id: UUID, conversation_id: UUID, through_seq: int, embedder: Embedder | None) -> str:
    """One extract-jobs message: the next window of unread turns up to `through_seq`. Returns what
    happened (done, nothing, disabled, off, waiting, failed); raises JobBusy / JobRetry to have the
    message delivered again."""
    s = extraction_settings()
    if off := conversations.extraction_off():
        return f"off: {off}"
    with tenant_transaction(tenant_id) as conn:
        conv = conversations.conversation_in(conn, conversation_id, lock=True)
        seq_from = conv.extracted_seq + 1
        seq_to = min(through_seq, seq_from + s.extraction_window_turns - 1)
        if seq_from > seq_to:
            return "nothing"  # read already: a repeated or overtaken message
        config = store.namespace_settings(conn, conv.namespace)
        if not config.enabled:
            conversations.save_extraction(conn, conversation_id, seq_to, None)
            return "disabled"
        run = store.window_run(conn, tenant_id, conv.namespace, conversation_id, seq_from, seq_to, "turns")
        if run.status in ("done", "undone"):
            return "nothing"
        if run.status == "running" and run.lease_until and run.lease_until > datetime.now(UTC):
            raise JobBusy(f"run {run.id} is being worked on until {run.lease_until.isoformat()}")
        if run.attempts >= s.extraction_max_attempts:
            store.set_status(conn, run.id, "failed", run.reason or "out of attempts")
            conversations.save_extraction(conn, conversation_id, seq_to, None)  # the turns stay, verbatim
            return "failed"
        _, tokens = llm.usage_today(conn)
        budget = settings().extraction_daily_tokens
        if tokens >= budget:
            reason = f"daily token budget reached: {tokens} of {budget} (ENGRAM_EXTRACTION_DAILY_TOKENS)"
            store.set_status(conn, run.id, "waiting", reason)
            return "waiting"
        store.start_run(conn, run.id, s.extraction_lease_s)
        turns = [
            Turn(m.seq, m.role, m.content, m.created_at, m.id)
            for m in conversations.turns_between(conn, conversation_id, seq_from, seq_to)
        ]
        job = _Job(run, conv.namespace, turns, conv.summary, list(config.kinds), config.instructions, conversation_id)
    outcome = _call_and_apply(tenant_id, job, embedder, final=run.attempts + 1 >= s.extraction_max_attempts)
    if seq_to < through_seq:  # a long backlog: the rest in the next job
        enqueue_extractions([(tenant_id, conversation_id, through_seq)])
    elif outcome == "done":  # the summary moved: the namespace's project status may be due
        distill_sessions(tenant_id, conv.namespace)
    return outcome


def _call_and_apply(tenant_id: UUID, job: _Job, embedder: Embedder | None, *, final: bool) -> str:
    stored = _nearest(tenant_id, job, embedder)
    try:
        checked = _ask(tenant_id, job, stored)
    except (llm.LlmError, AnswerRejected) as exc:
        with tenant_transaction(tenant_id) as conn:
            store.set_status(conn, job.run.id, "failed" if final else "queued", str(exc))
            if final and job.conversation_id is not None and job.run.seq_to is not None:
                conversations.save_extraction(conn, job.conversation_id, job.run.seq_to, None)
        if final:
            return "failed"
        raise JobRetry(str(exc)) from exc
    chunk_ids: list[UUID] = []
    with tenant_transaction(tenant_id) as conn:
        run = store.lock_run(conn, job.run.id)
        if run.status != "running" or run.attempts != job.run.attempts + 1:
            return "nothing"  # taken over after our lease ran out: the other worker's answer counts
        chunk_ids = _apply(conn, tenant_id, job, checked, stored)
    enqueue_embedding(tenant_id, chunk_ids)
    return "done"


def _ask(tenant_id: UUID, job: _Job, stored: list[Stored]) -> Checked:
    """One model call in the tool's schema, checked against the window. Raises LlmError / AnswerRejected."""
    text = prompt(job.turns, stored, job.summary, job.kinds, job.instructions)
    result = llm.complete(tenant_id, PURPOSE, SYSTEM, text, max_tokens=4096, run_id=job.run.id, tool=tool(job.kinds))
    with tenant_transaction(tenant_id) as conn:
        store.count_llm_call(conn, job.run.id, result.input_tokens, result.output_tokens)
    if result.stop_reason == "refusal":
        raise AnswerRejected("the model refused")
    return check(result.tool_input, [t.seq for t in job.turns], stored, job.kinds)


def _nearest(tenant_id: UUID, job: _Job, embedder: Embedder | None) -> list[Stored]:
    """The namespace's stored memories nearest to the window (what an update or a restatement acts
    on): a recall per group of turns, best first, summaries left out."""
    limit = extraction_settings().extraction_neighbours
    if limit == 0:
        return []
    best: dict[UUID, tuple[float, Stored]] = {}
    for start in range(0, len(job.turns), 15):
        query = "\n".join(t.content for t in job.turns[start : start + 15])[-4000:].strip()
        if not query:
            continue
        req = RecallRequest(
            query=query,
            namespace=job.namespace,
            kinds=["semantic", "episodic", "procedural"],
            limit=limit,
            touch=False,
            diversify=False,
        )
        for hit in recall.recall(tenant_id, req, embedder, read_only=True).results:
            memory_id = getattr(hit, "memory_id", None)
            if memory_id is None or SUMMARY_TAG in getattr(hit, "tags", []) or memory_id in best:
                continue
            best[memory_id] = (hit.score, Stored(memory_id, "", None))
    if not best:
        return []
    chosen = sorted(best, key=lambda i: -best[i][0])[:limit]
    with tenant_transaction(tenant_id) as conn:
        found = [memories.read_memory(conn, i, deleted=None) for i in chosen]
    return [Stored(m.id, m.content, m.valid_from or m.created_at) for m in found if m.status == "active"]


def _apply(conn: Conn, tenant_id: UUID, job: _Job, checked: Checked, stored: list[Stored]) -> list[UUID]:
    """Every checked decision, its evidence, the summary and the watermark, in the caller's
    transaction; the run settles as done (or, dry, only records what it would do). Returns chunk ids
    to embed after commit."""
    run = job.run
    by_seq = {t.seq: t for t in job.turns}
    chunk_ids: list[UUID] = []
    actions: list[store.NewAction] = []
    now = datetime.now(UTC)
    for n, (p, target) in enumerate(checked.proposals, start=1):
        evidence = [m for s in p.evidence if (m := by_seq[s].message_id) is not None]
        memory_id = link_id = target_valid_to = None
        action = p.action
        target_id = target.id if target else None
        if run.dry_run:
            pass
        elif action in ("add", "update"):
            written = memories.write_memory(conn, tenant_id, _derived(job, p.kind, p.content, p.event_date, run.id))
            chunk_ids += written.chunk_ids
            if not written.inserted:  # the same words are stored already: a restatement of that memory
                action, target_id = "restate", written.id
            else:
                memory_id = written.id
                if job.conversation_id is not None and evidence:
                    memories.insert_evidence(conn, tenant_id, written.id, job.conversation_id, evidence, run.id)
                if action == "update" and target is not None:
                    link = graph.write_links(
                        conn,
                        tenant_id,
                        [
                            LinkCreate(
                                from_id=written.id,
                                to_id=target.id,
                                relation="supersedes",
                                metadata={"extraction_run": str(run.id)},
                            )
                        ],
                        created_by="api",
                    )[0]
                    link_id = link.id  # undo removes it, and the supersession with it
        elif action == "invalidate" and target is not None:
            target_valid_to = memories.end_validity(conn, target.id, now)
        elif action == "restate" and target is not None:
            memories.add_repetitions(conn, target.id, 1)
        actions.append(
            store.NewAction(
                n,
                action,
                p.kind,
                p.content,
                p.event_date,
                memory_id,
                target_id,
                link_id,
                target_valid_to,
                sorted(set(p.evidence)),
            )
        )
    store.insert_actions(conn, tenant_id, run.id, actions)
    summary_ids: tuple[UUID | None, UUID | None] = (None, None)
    if not run.dry_run and job.conversation_id is not None and run.seq_to is not None:
        conversations.save_extraction(conn, job.conversation_id, run.seq_to, checked.summary or None)
        if checked.summary:
            summary_ids, more = _summary_memory(
                conn, tenant_id, job, checked.summary, [t.message_id for t in job.turns]
            )
            chunk_ids += more
    store.finish_run(conn, run.id, (job.summary, checked.summary or None), summary_ids)
    return chunk_ids


def _derived(job: _Job, kind: str, content: str, event_date: object, run_id: UUID) -> NewMemory:
    origin = {"run_id": str(run_id), "kind": kind}
    if job.conversation_id is not None:
        origin["conversation_id"] = str(job.conversation_id)
    if event_date is not None:
        origin["event_date"] = str(event_date)
    return NewMemory(
        namespace=job.namespace,
        content=content,
        kind="episodic" if kind == "event" else "semantic",
        tags=["extracted", kind],
        source="extraction",
        metadata={"extraction": origin},
    )


def _summary_memory(
    conn: Conn, tenant_id: UUID, job: _Job, summary: str, evidence: Sequence[UUID | None]
) -> tuple[tuple[UUID | None, UUID | None], list[UUID]]:
    """The summary as a recallable memory: one per conversation, the new one replacing the last (which
    goes to the trash, so undo can bring it back). It cites the window's turns: erasing the
    conversation erases it too."""
    assert job.conversation_id is not None
    previous = store.summary_memory(conn, job.conversation_id)
    if previous is not None:
        memories.trash_in(conn, previous)
    written = memories.write_memory(
        conn,
        tenant_id,
        NewMemory(
            namespace=job.namespace,
            content=summary,
            kind="episodic",
            tags=[SUMMARY_TAG],
            source="conversation_summary",
            metadata={"conversation_id": str(job.conversation_id), "run_id": str(job.run.id)},
        ),
    )
    ids = [i for i in evidence if i is not None]
    if written.inserted and ids:
        memories.insert_evidence(conn, tenant_id, written.id, job.conversation_id, ids, job.run.id)
    return (written.id if written.inserted else None, previous), written.chunk_ids


# ------------------------------------------------------------------------------------------- the API


def extract(tenant_id: UUID, req: ExtractRequest, embedder: Embedder | None) -> ExtractionRunDetail:
    """POST /v1/extract: the decisions for any text or a range of turns, made now (applied, or with
    `dry_run` only answered). One model call; its failure answers 503 and leaves the run failed."""
    if reason := llm.llm_unavailable():
        raise LlmUnavailable(f"extraction needs an LLM: {reason}")
    with tenant_transaction(tenant_id) as conn:
        job = _api_job(conn, tenant_id, req)
    stored = _nearest(tenant_id, job, embedder)
    try:
        checked = _ask(tenant_id, job, stored)
    except (llm.LlmError, AnswerRejected) as exc:
        with tenant_transaction(tenant_id) as conn:
            store.set_status(conn, job.run.id, "failed", str(exc))
        raise DependencyDown(f"extraction failed: {exc}") from exc
    with tenant_transaction(tenant_id) as conn:
        store.lock_run(conn, job.run.id)
        chunk_ids = _apply(conn, tenant_id, job, checked, stored)
    enqueue_embedding(tenant_id, chunk_ids)
    return get_run(tenant_id, job.run.id)


def _api_job(conn: Conn, tenant_id: UUID, req: ExtractRequest) -> _Job:
    if req.text is not None:
        namespace = req.namespace or "default"
        now = datetime.now(UTC)
        parts = [p.strip() for p in re.split(r"\n\s*\n", req.text) if p.strip()][:MAX_API_TURNS] or [req.text]
        turns = [Turn(i, "text", part, now) for i, part in enumerate(parts, start=1)]
        conversation_id, seq_from, seq_to, summary = None, None, None, None
    else:
        assert req.conversation_id is not None
        conv = conversations.conversation_in(conn, req.conversation_id)
        namespace = req.namespace or conv.namespace
        if req.namespace is not None and req.namespace != conv.namespace:
            raise InvalidField("namespace", f"must be the conversation's namespace ({conv.namespace!r}) or left out")
        seq_from = req.seq_from or 1
        seq_to = min(req.seq_to or conv.next_seq - 1, conv.next_seq - 1)
        if seq_to - seq_from + 1 > MAX_API_TURNS:
            raise InvalidField(
                "seq_to", f"at most {MAX_API_TURNS} turns per call, got {seq_to - seq_from + 1}", limit=MAX_API_TURNS
            )
        if seq_to < seq_from:
            raise InvalidField("seq_from", f"the conversation has {conv.next_seq - 1} turns")
        found = conversations.turns_between(conn, req.conversation_id, seq_from, seq_to)
        turns = [Turn(m.seq, m.role, m.content, m.created_at, m.id) for m in found]
        conversation_id, summary = req.conversation_id, conv.summary
    config = store.namespace_settings(conn, namespace)
    run = store.insert_api_run(
        conn,
        tenant_id,
        namespace,
        conversation_id=conversation_id,
        seq_from=seq_from,
        seq_to=seq_to,
        input_text=req.text,
        dry_run=req.dry_run,
    )
    return _Job(run, namespace, turns, summary, list(config.kinds), config.instructions, conversation_id)


# ---------------------------------------------------------------------------------------------- sweep


def sweep(limit: int = 500) -> int:
    """Queue the quiet conversations with unread turns (and what was lost or waits for the budget):
    one message each. Returns how many were sent."""
    s = extraction_settings()
    if conversations.extraction_off():
        return 0
    requeue_s = max(s.extraction_lease_s * 2, 900)
    with anonymous_transaction() as conn:
        due = store.conversations_to_extract(conn, s.extraction_quiet_s, requeue_s, limit)
    for tenant_id, conversation_id, through_seq in due:
        with tenant_transaction(tenant_id) as conn:
            conversations.mark_extraction_queued(conn, conversation_id, through_seq)
    return enqueue_extractions(due)

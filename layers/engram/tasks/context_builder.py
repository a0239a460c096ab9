"""POST /v1/tasks/{id}/context: what an agent needs to take up a task again, within a hard budget.

Sections are filled in this order, each within its share of budget_chars plus what the ones before left:
checkpoints (the latest, then earlier ones), events since the latest checkpoint (the newest kept), the
memories relevant to the query (recall: the namespace's critical facts first, within their reserved
share), and those memories' graph neighbours. The text shows the critical facts first."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from engram.adapters.embeddings.base import Embedder
from engram.conversations import service as conversations
from engram.conversations.models import WindowMessage
from engram.core.db import tenant_transaction
from engram.graph import service as graph
from engram.recall import service as recall
from engram.recall.models import RecallHit, RecallRequest
from engram.tasks import store
from engram.tasks.context import Fitted, block, fit_section
from engram.tasks.models import (
    Checkpoint,
    ContextEvent,
    ContextMemory,
    ContextNeighbour,
    ContextSection,
    TaskContext,
    TaskContextRequest,
)

CHECKPOINTS_READ = 5  # the latest ones: more never fit a context
EVENTS_READ = 500  # the newest events since the checkpoint read at most
NEIGHBOURS_PER_MEMORY = 3


def _checkpoint_line(c: Checkpoint) -> str:
    lines = [f"[{c.created_at:%Y-%m-%d %H:%M}] through event {c.seq_to}: {c.summary}"]
    for name, items in (
        ("done", c.completed),
        ("pending", c.pending),
        ("decided", c.decisions),
        ("blocked by", c.blockers),
    ):
        if items:
            lines.append(f"  {name}: " + "; ".join(items))
    if c.artifacts:
        lines.append(
            "  artifacts: " + "; ".join(a["name"] + (f" ({a['uri']})" if a.get("uri") else "") for a in c.artifacts)
        )
    return "\n".join(lines)


def _event_line(e: WindowMessage) -> str:
    who = e.role + (f" {e.tool_name}" if e.tool_name else "")
    return f"#{e.seq} {who}: {e.content}"


def _section(fitted: Fitted, room: int) -> ContextSection:
    return ContextSection(budget_chars=room, used_chars=fitted.used, omitted=fitted.omitted)


def task_context(tenant_id: UUID, task_id: UUID, req: TaskContextRequest, embedder: Embedder | None) -> TaskContext:
    with tenant_transaction(tenant_id) as conn:
        task = store.read_task(conn, task_id)
        saved = store.checkpoints(conn, task_id, CHECKPOINTS_READ)
        after = saved[0].seq_to if saved else 0
        lo = max(after + 1, task.event_count - EVENTS_READ + 1)
        rows = conversations.messages_for_windows(conn, [(task.conversation_id, lo, task.event_count)])
    events = [rows[k] for k in sorted(rows, key=lambda k: k[1])]
    query = req.query or task.goal
    title = f"=== Task {task.id} ({task.status}): {task.goal[:300]} ==="
    budget = req.budget_chars - len(title) - 2
    shares = req.shares
    sections: dict[str, ContextSection] = {}

    room = int(budget * shares.checkpoint)
    cps = fit_section("=== Checkpoints ===", saved, _checkpoint_line, room)
    sections["checkpoint"] = _section(cps, room)
    room = int(budget * shares.events) + room - cps.used
    header = f"=== Events since event {after} ===" if saved else "=== Events ==="
    evs = fit_section(header, events, _event_line, room, newest_last=True)
    sections["events"] = _section(evs, room)
    room = int(budget * shares.memories) + room - evs.used

    degraded: list[str] = []
    hits: list[Any] = []
    if room >= 100:  # recall's smallest budget
        found = recall.recall(
            tenant_id,
            RecallRequest(
                query=query[:4000],
                namespace=task.namespace,
                kinds=["semantic", "episodic", "procedural"],
                budget_chars=room,
                touch=False,
            ),
            embedder,
            record=False,
        )
        hits, degraded = [h for h in found.results if isinstance(h, RecallHit)], found.degraded
    critical_hits = [h for h in hits if h.critical]
    other_hits = [h for h in hits if not h.critical]
    crit = fit_section("=== Critical facts ===", critical_hits, lambda h: f"- {h.chunk.text}", room)
    mems = fit_section("=== Relevant memories ===", other_hits, lambda h: f"- {h.chunk.text}", room - crit.used)
    sections["memories"] = ContextSection(
        budget_chars=room, used_chars=crit.used + mems.used, omitted=crit.omitted + mems.omitted
    )
    room = int(budget * shares.neighbours) + room - crit.used - mems.used
    neighbours = _neighbours(tenant_id, [h.memory_id for h in crit.items + mems.items if h.memory_id])
    nbs = fit_section("=== Linked memories ===", neighbours, lambda n: f"- {n.relation} of {n.of}: {n.text}", room)
    sections["neighbours"] = _section(nbs, room)

    blocks = [title] + [
        block(h, f)
        for h, f in (
            ("=== Critical facts ===", crit),
            ("=== Checkpoints ===", cps),
            (header, evs),
            ("=== Relevant memories ===", mems),
            ("=== Linked memories ===", nbs),
        )
        if f.lines
    ]
    text = "\n\n".join(blocks)
    assert len(text) <= req.budget_chars, (len(text), req.budget_chars)
    return TaskContext(
        task=task,
        query=query,
        budget_chars=req.budget_chars,
        used_chars=len(text),
        checkpoints=cps.items,
        events=[
            ContextEvent(
                seq=e.seq,
                role=e.role,
                text=line.split(": ", 1)[1] if ": " in line else "",
                created_at=e.created_at,
                truncated=line != _event_line(e),
                redacted=e.redacted_at is not None,
            )
            for e, line in zip(evs.items, evs.lines, strict=True)
        ],
        critical=[_memory(h, line) for h, line in zip(crit.items, crit.lines, strict=True)],
        memories=[_memory(h, line) for h, line in zip(mems.items, mems.lines, strict=True)],
        neighbours=[
            n.model_copy(update={"text": line.split(": ", 1)[1]}) for n, line in zip(nbs.items, nbs.lines, strict=True)
        ],
        sections=sections,
        degraded=degraded,
        text=text,
    )


def _memory(h: Any, line: str) -> ContextMemory:
    text = line.removeprefix("- ")
    return ContextMemory(
        memory_id=h.memory_id,
        text=text,
        score=h.score,
        critical=h.critical,
        truncated=h.chunk.truncated or text != h.chunk.text,
    )


def _neighbours(tenant_id: UUID, memory_ids: list[UUID]) -> list[ContextNeighbour]:
    """The memories linked to these (either way, valid now), nearest first, each once and not one of them."""
    if not memory_ids:
        return []
    with tenant_transaction(tenant_id) as conn:
        linked = graph.linked_memories(
            conn,
            tenant_id,
            memory_ids,
            relations=None,
            depth=1,
            as_of=datetime.now(UTC),
            limit_per_memory=NEIGHBOURS_PER_MEMORY,
        )
    seen = set(memory_ids)
    out: list[ContextNeighbour] = []
    for root in memory_ids:
        for node in linked.get(root, []):
            if node.memory.id in seen:
                continue
            seen.add(node.memory.id)
            out.append(
                ContextNeighbour(
                    memory_id=node.memory.id,
                    relation=node.via.relation,
                    of=root,
                    text=node.memory.summary,
                    truncated=node.memory.truncated,
                )
            )
    return out

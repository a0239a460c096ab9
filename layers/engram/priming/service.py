"""Resume (a briefing at session start) and prime (what to know before a task).

- ``resume(tenant_id, namespace, budget_chars, recent_hours)``: four sections (Core by
  weight, in full; Recent non-core changes; the Topics leaf index; Triggers from `trigger:*` tags),
  the namespace merged with `default`, each section within its share of a hard budget. Touches nothing.
- ``prime(tenant_id, req, embedder)``: recall's candidates for the task, core
  memories weighted up, then maximal marginal relevance (memory vectors, a same-topic penalty) so
  the results cover the task's different sides, within budget_chars. Touches nothing either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from engram.adapters.embeddings.base import Embedder
from engram.core.config import settings
from engram.core.db import tenant_transaction
from engram.priming import store
from engram.priming.models import (
    PrimedMemory,
    PrimeRequest,
    PrimeResponse,
    PrimeTopic,
    ResumeMemory,
    ResumeResponse,
    ResumeSection,
    ResumeTopic,
    ResumeTrigger,
)
from engram.priming.selection import CORE_BONUS, MIN_USEFUL_CHARS, RESUME_SHARES, Option, fit_lines, mmr
from engram.recall import service as recall_service
from engram.recall.models import RecallHit, RecallRequest
from engram.topics import service as topic_service

__all__ = ["merged_namespaces", "prime", "resume"]

RECENT_LINE_CHARS = 300
SECTION_ROWS = 200  # rows read per section: more never fit a briefing
SESSION_ROWS = 5  # conversations whose summaries a briefing shows (their turns are a recall away)


def merged_namespaces(namespace: str) -> list[str]:
    """A project namespace reads with `default` (who the user is, lessons that hold everywhere)."""
    return [namespace] if namespace == "default" else [namespace, "default"]


def _clip(text: str, chars: int) -> tuple[str, bool]:
    flat = " ".join(text.split())
    return (flat, False) if len(flat) <= chars else (flat[: chars - 3] + "...", True)


def resume(
    tenant_id: UUID, namespace: str = "default", budget_chars: int = 6000, recent_hours: int = 24
) -> ResumeResponse:
    namespaces = merged_namespaces(namespace)
    since = datetime.now(UTC) - timedelta(hours=recent_hours)
    with tenant_transaction(tenant_id) as conn:
        critical_rows = store.critical_facts(conn, namespaces, settings().recall_critical_max)
        core_rows = store.core_by_weight(conn, namespaces, SECTION_ROWS)
        recent_rows = store.recent_changes(conn, namespaces, since, SECTION_ROWS)
        leaves = topic_service.leaf_index(conn, namespaces)[:SECTION_ROWS]
        trigger_rows = store.triggers(conn, namespaces, SECTION_ROWS)
        sessions = store.session_summaries(conn, namespaces, SESSION_ROWS)

    critical = [_briefed(r, *_clip(r.content, RECENT_LINE_CHARS), stored_length=r.length) for r in critical_rows]
    core = [_briefed(r, r.content, truncated=False) for r in core_rows]
    recent = [_briefed(r, *_clip(r.content, RECENT_LINE_CHARS), stored_length=r.length) for r in recent_rows]
    topics = [ResumeTopic(id=t.id, name=t.name, member_count=t.member_count, namespace=namespace) for t in leaves]
    triggers = [
        ResumeTrigger(trigger=r.tag.removeprefix("trigger:"), access_count=r.access_count, memories=r.memories)
        for r in trigger_rows
    ]
    parts = {
        "critical": _Part(f"=== Critical ({len(critical)}) ===", critical, lambda m: f"- {m.text}", cut=True),
        "core": _Part(f"=== Core ({len(core)}) ===", core, lambda m: m.text, cut=False),
        "sessions": _Part(
            f"=== Sessions ({len(sessions)}) ===",
            sessions,
            lambda c: f"- {c.title or 'conversation'} [{c.updated_at:%Y-%m-%d}]: {c.summary}",
            cut=True,
        ),
        "recent": _Part(
            f"=== Recent ({recent_hours}h) ===",
            recent,
            lambda m: f"- [{m.updated_at:%Y-%m-%d %H:%M}] {m.text}",
            cut=True,
        ),
        "topics": _Part(
            f"=== Topics ({len(topics)}) ===", topics, lambda t: f'{t.id}: "{t.name}" [{t.member_count}]', cut=False
        ),
        "triggers": _Part("=== Triggers ===", triggers, lambda t: f"- {t.trigger}", cut=False),
    }
    blocks, kept, sections = _fit_sections(parts, budget_chars)
    text = "\n\n".join(blocks)[:budget_chars]
    return ResumeResponse(
        namespaces=namespaces,
        budget_chars=budget_chars,
        used_chars=len(text),
        recent_hours=recent_hours,
        critical=kept["critical"],
        core=kept["core"],
        sessions=kept["sessions"],
        recent=kept["recent"],
        topics=kept["topics"],
        triggers=kept["triggers"],
        sections=sections,
        text=text,
    )


def _briefed(r: store.BriefedMemory, text: str, truncated: bool, stored_length: int | None = None) -> ResumeMemory:
    """A memory's line of the briefing; `stored_length`: the whole content's, when the store sent a part."""
    return ResumeMemory(
        memory_id=r.id,
        namespace=r.namespace,
        kind=r.kind,
        layer=r.layer,
        importance=r.importance,
        updated_at=r.updated_at,
        text=text,
        truncated=truncated or (stored_length is not None and stored_length > len(r.content)),
    )


@dataclass(frozen=True)
class _Part:
    """A section of the briefing: its header, its items and how each is rendered (`cut`: the last may be cut)."""

    header: str
    items: Sequence[Any]
    render: Callable[[Any], str]
    cut: bool


def _fit_sections(
    parts: dict[str, _Part], budget_chars: int
) -> tuple[list[str], dict[str, list[Any]], dict[str, ResumeSection]]:
    """Each section within its share of the budget, what one leaves unused going to the next:
    the text blocks, the items kept per section, and each section's budget and use."""
    blocks: list[str] = []
    kept: dict[str, list[Any]] = {}
    sections: dict[str, ResumeSection] = {}
    carry = 0
    critical_share = settings().recall_critical_share
    shares = [("critical", critical_share), *((name, share * (1 - critical_share)) for name, share in RESUME_SHARES)]
    for name, share in shares:
        room = int(budget_chars * share) + carry
        part = parts[name]
        # The header, its newline and the blank line between sections come out of the section's room.
        fitted, omitted = (
            fit_lines(part.items, part.render, room - len(part.header) - 2, cut=part.cut) if part.items else ([], 0)
        )
        if fitted:
            block = part.header + "\n" + "\n".join(line for _item, line in fitted)
            blocks.append(block)
            used = len(block) + 1
        else:
            used = 0
        kept[name] = [item for item, _line in fitted]
        if (
            name in ("critical", "recent") and fitted and fitted[-1][1] != part.render(fitted[-1][0])
        ):  # the last one was cut
            last, line = fitted[-1]
            text = line.split("] ", 1)[1] if name == "recent" else line.removeprefix("- ")
            kept[name][-1] = last.model_copy(update={"text": text, "truncated": True})
        sections[name] = ResumeSection(budget_chars=room, used_chars=used, omitted=omitted)
        carry = max(room - used, 0)
    return blocks, kept, sections


def prime(tenant_id: UUID, req: PrimeRequest, embedder: Embedder | None) -> PrimeResponse:
    namespaces = merged_namespaces(req.namespace)
    found = recall_service.recall(
        tenant_id,
        RecallRequest(
            query=req.task.strip()[:4000],  # the task may begin with more whitespace than a query holds
            namespaces=namespaces,
            kinds=["semantic", "episodic", "procedural"],
            limit=min(100, max(40, req.limit * 4)),
            touch=False,
            explain=True,  # the cosines: which lower-ranked memories are still on the task
        ),
        embedder,
        record=False,
    )
    hits = [h for h in found.results if isinstance(h, RecallHit) and h.memory_id is not None]
    # Recall put the critical facts first, within their share of the budget: they stay first, outside MMR.
    critical = [h for h in hits if h.critical][: settings().recall_critical_max]
    hits = [h for h in hits if not h.critical]
    ids = [h.memory_id for h in critical + hits if h.memory_id is not None]
    with tenant_transaction(tenant_id) as conn:
        vectors = topic_service.memory_vectors(conn, ids)
        leaves = topic_service.leaves_of_memories(conn, ids)
    bonus = CORE_BONUS * max((h.score for h in hits), default=0.0)
    options = [
        Option(
            key=h,
            relevance=h.score + (bonus if h.layer == "core" else 0.0),
            vector=vectors.get(h.memory_id) if h.memory_id else None,
            topic=leaves[h.memory_id][0] if h.memory_id in leaves else None,
            similarity=h.explain.vector if h.explain else None,
        )
        for h in hits
    ]
    results: list[PrimedMemory] = []
    topics: dict[str, PrimeTopic] = {}
    used = 0
    critical_room = int(req.budget_chars * settings().recall_critical_share)
    pinned = [Option(key=h, relevance=h.score, vector=None, topic=None, similarity=None) for h in critical]
    for o in [*pinned, *mmr(options, req.limit)]:
        h = o.key
        room = (critical_room if h.critical else req.budget_chars) - used
        if room < MIN_USEFUL_CHARS and results:
            if h.critical:
                continue
            break
        text, cut = (h.chunk.text, False) if len(h.chunk.text) <= room else (h.chunk.text[:room], True)
        used += len(text)
        leaf = leaves.get(h.memory_id)
        topic = PrimeTopic(id=leaf[0], name=leaf[1]) if leaf else None
        if topic:
            topics.setdefault(topic.id, topic)
        results.append(
            PrimedMemory(
                memory_id=h.memory_id,
                namespace=h.namespace,
                kind=h.kind,
                layer=h.layer,
                importance=h.importance,
                tags=h.tags,
                created_at=h.created_at,
                score=round(o.relevance, 6),
                text=text,
                truncated=cut or h.chunk.truncated,
                critical=h.critical,
                topic=topic,
            )
        )
    return PrimeResponse(
        results=results,
        topics=list(topics.values()),
        budget_chars=req.budget_chars,
        used_chars=used,
        degraded=found.degraded,
    )

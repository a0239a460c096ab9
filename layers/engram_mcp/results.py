"""Tool results as compact text for a model to read: one header line per item with the ids it can
pass back to another tool, then the content, indented. Nothing is shortened here that the service
did not already cut to its budget; where it did, the line says so."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # each model module loads with its service, when its tool is first called
    from engram.consolidation.models import Run, RunWithActions
    from engram.conversations.models import AppendResult, Conversation
    from engram.core.models import EvidenceTurn, Memory
    from engram.documents.models import QueryResponse
    from engram.erasure.models import Erasure
    from engram.extraction.models import ExtractionRun, ExtractionRunDetail, ExtractionRunPage
    from engram.feedback.models import Feedback
    from engram.graph.models import ChainLink, Link, MemoryHistory
    from engram.memories.models import MemoryWritten
    from engram.priming.models import PrimeResponse, ResumeResponse
    from engram.recall.models import CompactHit, RecallHit, RecallResponse
    from engram.tasks.models import Task
    from engram.topics.models import TopicLookupResponse, TopicNode, TopicTree

INDENT = "   "


def _day(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


def _indented(text: str) -> str:
    return "\n".join(INDENT + line for line in text.splitlines()) if text else INDENT + "(empty)"


def _tags(tags: Iterable[str]) -> str:
    listed = ", ".join(tags)
    return f" · tags: {listed}" if listed else ""


def _degraded(parts: list[str]) -> str:
    return f"\n(degraded: {'; '.join(parts)})" if parts else ""


def memory(m: Memory) -> str:
    head = (
        f"memory {m.id} · v{m.version} · {m.namespace} · {m.kind} · {m.layer} · importance {m.importance:g}"
        f"{_tags(m.tags)} · created {_day(m.created_at)} · updated {_day(m.updated_at)}"
    )
    if m.status != "active":
        head += f" · {m.status}"
    if m.critical:
        head += " · CRITICAL"
    if m.conflict_key:
        head += f" · key {m.conflict_key}"
    if m.valid_to:
        head += f" · valid until {_day(m.valid_to)}"
    if m.source:
        head += f" · source: {m.source}"
    out = f"{head}\n{_indented(m.content)}"
    if evidence := getattr(m, "evidence", None):  # a derived memory (GET): why do we believe this?
        out += "\nEvidence (the turns it came from):\n" + _turns(evidence)
    return out


def _turns(turns: Iterable[EvidenceTurn]) -> str:
    return "\n".join(
        f"{INDENT}conversation {t.conversation_id} #{t.seq} {t.role} ({_day(t.created_at)}): {t.content}" for t in turns
    )


def stored(written: MemoryWritten) -> str:
    m = written.memory
    if written.deduplicated:
        return f"Already stored: memory {m.id} (seen {m.repetition_count + 1} times in {m.namespace})."
    replaced = (
        f" It replaces {', '.join(map(str, written.superseded))} ({m.conflict_key})." if written.superseded else ""
    )
    return (
        f"Stored memory {m.id} in {m.namespace} ({m.kind}; searchable by keyword now, by meaning once embedded)."
        f"{replaced}"
    )


def updated(m: Memory) -> str:
    return f"Updated memory {m.id}: now version {m.version}.\n{memory(m)}"


def forgotten(m: Memory) -> str:
    return f"Forgot memory {m.id}: it is in the trash and recall no longer returns it."


def erased(e: Erasure) -> str:
    c = e.counts
    also = f"; {c.derived} derived from it erased too" if c.derived else ""
    kept = f"; {c.derived_kept} derived from it kept" if c.derived_kept else ""
    return (
        f"Erased ({e.id}): {c.memories} memories with {c.versions} earlier versions and {c.chunks} chunks{also}{kept}."
        " Nothing of it can be recalled or restored."
    )


def _hit(n: int, hit: RecallHit | CompactHit) -> str:
    from engram.recall.models import CompactHit

    if isinstance(hit, CompactHit):
        where = f"seq {hit.seq_from}-{hit.seq_to} · " if hit.seq_from is not None else ""
        head = f"{n}. {hit.type} {hit.id} · {where}score {hit.score:.3f} · {hit.namespace} · {_day(hit.created_at)}"
        head += " · CRITICAL" if hit.critical else ""
        return f"{head}\n{_indented(hit.text)}"
    chunk = hit.chunk
    if hit.type == "conversation":
        head = (
            f"{n}. conversation {hit.conversation_id} · seq {chunk.seq_from}-{chunk.seq_to} · "
            f"score {hit.score:.3f} · {hit.namespace} · {_day(hit.created_at)}"
        )
        if hit.messages:
            lines = [f"[{m.seq}] {m.role}: {m.content}" for m in hit.messages]
            return f"{head}\n{_indented(chr(10).join(lines))}"
        return f"{head}\n{_indented(chunk.text)}"
    head = (
        f"{n}. memory {hit.memory_id} · score {hit.score:.3f} · {hit.namespace} · {hit.kind} · "
        f"{_day(hit.created_at)}{_tags(hit.tags)}"
    )
    if hit.critical:
        head += " · CRITICAL"
    if chunk.truncated:
        head += " · cut to the budget"
    text = f"{head}\n{_indented(chunk.text)}"
    for c in hit.conflicts:
        text += f"\n{INDENT}! {c.relation} memory {c.memory_id}: {c.summary or ''}"
    for linked in hit.linked or []:
        text += f"\n{INDENT}-> {linked.relation} ({linked.direction}) memory {linked.memory_id}: {linked.summary or ''}"
    return text


def recalled(response: RecallResponse) -> str:
    footer = _degraded(response.degraded)
    if response.trace is not None:
        footer += "\n" + _traced(response)
    if not response.results:
        return "No memories matched." + footer
    if response.recall_id is not None:
        footer += f"\n(recall_id {response.recall_id}: say which results helped with recall_feedback)"
    lines = [_hit(n, hit) for n, hit in enumerate(response.results, 1)]
    return "\n".join(lines) + footer


def _traced(response: RecallResponse) -> str:
    """Where each expected item went, one line each."""
    assert response.trace is not None
    lines = ["Trace:"]
    for t in response.trace.items:
        what = t.memory_id or t.conversation_id or "-"
        ranks = f"vector #{t.vector_rank or '-'}, keyword #{t.keyword_rank or '-'}, fused #{t.fused_rank or '-'}"
        where = f"returned #{t.rank}" if t.returned else ", ".join(t.reasons) or "not returned"
        lines.append(f"- {t.expected} ({what}): {where}; {ranks}")
    return "\n".join(lines)


def task(t: Task) -> str:
    ended = f" · ended {_day(t.ended_at)}: {t.outcome or ''}" if t.ended_at else ""
    return (
        f"task {t.id} · {t.status} · {t.namespace} · {t.event_count} events · {t.checkpoint_count} checkpoints"
        f"{ended}\n{_indented(t.goal)}"
    )


def feedback_given(f: Feedback) -> str:
    moved = ", ".join(f"{w.id} x{w.ranking_factor:g}" for w in f.weights) or "no weights"
    return f"Feedback {f.id} on recall {f.recall_id} recorded: {moved} (decaying back with time)."


def primed(response: PrimeResponse) -> str:
    if not response.results:
        return "Nothing stored yet is relevant to this task." + _degraded(response.degraded)
    lines = []
    for n, m in enumerate(response.results, 1):
        topic = f" · topic {m.topic.id} {m.topic.name}" if m.topic else ""
        cut = " · cut to the budget" if m.truncated else ""
        critical = " · CRITICAL" if m.critical else ""
        head = f"{n}. memory {m.memory_id} · score {m.score:.3f} · {m.namespace} · {m.kind}{critical}{topic}{cut}"
        lines.append(f"{head}\n{_indented(m.text)}")
    return "\n".join(lines) + _degraded(response.degraded)


def resumed(r: ResumeResponse) -> str:
    """The briefing's sections as the service fitted them to budget_chars, each memory with its id."""
    blocks = []
    if r.critical:
        lines = [f"- memory {m.memory_id}: {m.text}{'…' if m.truncated else ''}" for m in r.critical]
        blocks.append(f"=== Critical ({len(r.critical)}) ===\n" + "\n".join(lines))
    if r.core:
        blocks.append(
            f"=== Core ({len(r.core)}) ===\n" + "\n".join(f"- memory {m.memory_id}: {m.text}" for m in r.core)
        )
    if r.recent:
        lines = [
            f"- [{_day(m.updated_at)}] memory {m.memory_id}: {m.text}{'…' if m.truncated else ''}" for m in r.recent
        ]
        blocks.append(f"=== Recent ({r.recent_hours}h) ===\n" + "\n".join(lines))
    if r.topics:
        lines = [f'{t.id}: "{t.name}" [{t.member_count}]' for t in r.topics]
        blocks.append(f"=== Topics ({len(r.topics)}) ===\n" + "\n".join(lines))
    if r.triggers:
        lines = [f"- {t.trigger} ({t.memories} memories)" for t in r.triggers]
        blocks.append("=== Triggers ===\n" + "\n".join(lines))
    omitted = sum(section.omitted for section in r.sections.values())
    if omitted:
        blocks.append(f"({omitted} more left out to fit budget_chars)")
    return "\n\n".join(blocks) or f"Nothing to resume yet in {', '.join(r.namespaces)}."


def queried(r: QueryResponse) -> str:
    if r.answer:
        head = f"Answer: {r.answer}"
    else:
        head = f"No answer{': ' + r.reason if r.reason else ''}. The spans below are what matched."
    lines = [head, f"Spans of memory {r.memory_id} (tier {r.document_tier}, read from {r.source}):"]
    for span in r.spans:
        cut = ", cut" if span.truncated else ""
        lines.append(f"[{span.n}] chars {span.start}-{span.end} (score {span.score:.3f}{cut})\n{_indented(span.text)}")
    if not r.spans:
        lines.append(INDENT + "(no span matched)")
    if r.truncated:
        lines.append(f"(more matched than the budget of {r.budget_bytes} bytes holds)")
    return "\n".join(lines)


def conversation(c: Conversation) -> str:
    title = f' "{c.title}"' if c.title else ""
    return f"Started conversation {c.id}{title} in {c.namespace}."


def appended(r: AppendResult) -> str:
    if r.replayed:
        return (
            f"Already appended (same idempotency_key): messages {r.seq_from}-{r.seq_to} of conversation "
            f"{r.conversation_id}; nothing written."
        )
    messages = "message" if r.count == 1 else "messages"
    return f"Appended {r.count} {messages} to conversation {r.conversation_id}: seq {r.seq_from}-{r.seq_to}."


def _topic_lines(nodes: list[TopicNode], depth: int = 0) -> list[str]:
    lines = []
    for node in nodes:
        keywords = f" · {', '.join(node.keywords)}" if node.keywords else ""
        lines.append(f"{'  ' * depth}{node.id} {node.name} [{node.member_count}]{keywords}")
        lines += _topic_lines(node.children, depth + 1)
    return lines


def topic_tree(tree: TopicTree) -> str:
    if tree.built_at is None:
        return f"No topic tree for {tree.namespace} yet: consolidation builds it."
    head = f"Topics of {tree.namespace} ({tree.memories} memories, built {_day(tree.built_at)}):"
    return "\n".join([head, *_topic_lines(tree.topics)])


def topic_members(r: TopicLookupResponse) -> str:
    lines = []
    for topic in r.topics:
        lines.append(f"{topic.id} {topic.name} ({topic.member_count} memories)")
        for m in topic.memories:
            cut = "…" if m.truncated else ""
            lines.append(f"- memory {m.memory_id} · {m.kind} · importance {m.importance:g}: {m.summary}{cut}")
        if topic.next_offset is not None:
            lines.append(f"  (more: offset {topic.next_offset})")
    if r.missing:
        lines.append(f"No such topic: {', '.join(r.missing)}")
    return "\n".join(lines)


def linked(link: Link) -> str:
    until = f" until {_day(link.valid_to)}" if link.valid_to else ""
    return (
        f"Linked memory {link.from_id} -{link.relation}-> memory {link.to_id} "
        f"(link {link.id}, strength {link.strength:g}, valid from {_day(link.valid_from)}{until})."
    )


def _chain(title: str, chain: list[ChainLink]) -> list[str]:
    return [f"{title}:"] + [f"- memory {c.memory.id} ({c.link.relation}): {c.memory.summary}" for c in chain]


def history(h: MemoryHistory) -> str:
    lines = [f"History of memory {h.memory_id}:"]
    for v in h.versions:
        when = f"replaced {_day(v.changed_at)}" if v.changed_at else "current"
        lines.append(f"v{v.version} ({when}) · {v.kind} · importance {v.importance:g}{_tags(v.tags)}")
        lines.append(_indented(v.content))
    if h.supersedes:
        lines += _chain("It replaced", h.supersedes)
    if h.superseded_by:
        lines += _chain("Replaced by", h.superseded_by)
    return "\n".join(lines)


def run_started(r: Run) -> str:
    what = "dry run: a plan, nothing will change" if r.dry_run else "it will change memories; undo over the HTTP API"
    return f"Consolidation run {r.id} of {r.namespace} is {r.status} ({what}). Read it with consolidation_run."


def run(r: RunWithActions) -> str:
    kind = "dry run" if r.dry_run else "run"
    lines = [f"Consolidation {kind} {r.id} of {r.namespace}: {r.status}" + (f" · error: {r.error}" if r.error else "")]
    for counts in r.step_counts:
        skipped = f", skipped: {counts.skipped}" if counts.skipped else ""
        lines.append(f"- {counts.step}: {counts.actions} actions, {counts.candidates} candidates{skipped}")
    for a in r.actions.items:
        done = "" if a.applied else " (planned)"
        ids = ", ".join(str(i) for i in a.memory_ids)
        lines.append(f"{a.seq}. {a.action}{done} [{ids}]: {a.reason}")
    if r.actions.next_cursor:
        lines.append(f"(more actions: cursor {r.actions.next_cursor})")
    return "\n".join(lines)


def _window(r: ExtractionRun) -> str:
    if r.conversation_id is None:
        return "a pushed text"
    return f"conversation {r.conversation_id} turns {r.seq_from}-{r.seq_to}"


def _spend(r: ExtractionRun) -> str:
    return f"{r.llm_calls} LLM calls, {r.llm_input_tokens + r.llm_output_tokens} tokens"


def extraction_runs(page: ExtractionRunPage) -> str:
    if not page.items:
        return "No extraction runs."
    lines = []
    for r in page.items:
        counts = ", ".join(f"{n} {action}" for action, n in sorted(r.counts.items())) or "no actions"
        reason = f" ({r.reason})" if r.reason else ""
        dry = " · dry run" if r.dry_run else ""
        lines.append(
            f"run {r.id} · {r.namespace} · {_window(r)} · {r.status}{reason}{dry} · {counts} · {_spend(r)}"
            f" · {_day(r.created_at)}"
        )
    if page.next_cursor:
        lines.append(f"(more runs: cursor {page.next_cursor})")
    return "\n".join(lines)


def extraction_run(r: ExtractionRunDetail) -> str:
    kind = "dry run (nothing written)" if r.dry_run else "run"
    reason = f" · {r.reason}" if r.reason else ""
    lines = [f"Extraction {kind} {r.id} of {r.namespace} over {_window(r)}: {r.status}{reason} · {_spend(r)}"]
    for a in r.actions:
        when = f" on {a.event_date}" if a.event_date else ""
        ids = " · ".join(
            part
            for part in (
                f"memory {a.memory_id}" if a.memory_id else "",
                f"acting on memory {a.target_id}" if a.target_id else "",
            )
            if part
        )
        cited = ", ".join(f"#{seq}" for seq in a.evidence_seqs)
        lines.append(f"{a.seq}. {a.action} {a.kind}{when}{' · ' + ids if ids else ''} · evidence {cited}")
        lines.append(_indented(a.content))
        if a.evidence:
            lines.append(_turns(a.evidence))
    if not r.actions and r.status == "done":
        lines.append("Nothing durable to learn.")
    if r.summary_after:
        lines.append("Conversation summary now:\n" + _indented(r.summary_after))
    return "\n".join(lines)

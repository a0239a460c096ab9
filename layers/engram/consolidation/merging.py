"""How memories combine, without SQL: the survivor, its merged fields, and the LLM's prompts and
answers for merge, reconcile and the gate (parsed strictly: an answer that loses a specific
detail, or is not the JSON asked for, changes nothing)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engram.consolidation.lifecycle import Memory, MemoryFields
from engram.consolidation.similarity import specifics
from engram.core.models import MAX_TAGS, PG_INTEGER_MAX

LAYER_RANK = {"buffer": 0, "working": 1, "core": 2}


def choose_survivor(rows: Sequence[Memory]) -> Memory:
    """The memory that absorbs the others: highest layer, then importance, then reinforcement,
    then the oldest (the original statement)."""
    return max(
        rows,
        key=lambda m: (
            LAYER_RANK[m.layer],
            m.importance,
            m.access_count + m.repetition_count,
            -m.created_at.timestamp(),
            str(m.id),
        ),
    )


def merged_fields(survivor: MemoryFields, others: Sequence[MemoryFields]) -> dict[str, Any]:
    """Max importance, summed counts, union of tags (survivor's first, capped), highest layer,
    latest access: nothing the duplicates earned is lost."""
    rows = [survivor, *others]
    tags: list[str] = []
    for m in rows:
        for tag in m.tags:
            if tag not in tags and len(tags) < MAX_TAGS:
                tags.append(tag)
    accessed = [m.last_accessed for m in rows if m.last_accessed is not None]
    return {
        "importance": max(float(m.importance) for m in rows),
        "access_count": min(sum(m.access_count for m in rows), PG_INTEGER_MAX),
        "repetition_count": min(sum(m.repetition_count for m in rows), PG_INTEGER_MAX),
        "tags": tags,
        "layer": max((m.layer for m in rows), key=LAYER_RANK.__getitem__),
        "last_accessed": max(accessed) if accessed else None,
    }


def changed_fields(current: MemoryFields, fields: dict[str, Any]) -> dict[str, Any]:
    """The merged fields whose value differs from the memory's own."""
    return {name: value for name, value in fields.items() if value != getattr(current, name)}


def missing_specifics(sources: Sequence[str], merged: str) -> set[str]:
    """Numbers, dates and ids of the sources that the merged text dropped."""
    wanted: set[str] = set()
    for text in sources:
        wanted |= specifics(text)
    return wanted - specifics(merged)


# --- LLM prompts and answers -------------------------------------------------------------------

MERGE_SYSTEM = (
    "You merge near-duplicate memories of an AI agent into one memory. Preserve every specific detail: "
    "names, numbers, dates, ids, commands, constraints. Never generalise; the merged text is as long as "
    "the longest source if needed. Same language as the input. If the memories state different facts, "
    'do not merge. Answer with JSON only: {"merge": true, "content": "..."} or {"merge": false}.'
)

RECONCILE_SYSTEM = (
    "Two memories of an AI agent are on the same topic; B is newer than A. Decide:\n"
    '- "update": B replaces A (A is stale: the fact changed);\n'
    '- "absorb": they overlap; write one memory holding every detail of both;\n'
    '- "keep_both": different aspects, both stay;\n'
    '- "contradiction": they disagree and you cannot tell which holds.\n'
    "Preserve every specific detail (names, numbers, dates, ids). Answer with JSON only: "
    '{"decision": "...", "content": "merged text, only for absorb"}.'
)

GATE_SYSTEM = (
    "You decide whether a memory of an AI agent belongs in long-term core memory. Only four categories "
    "are allowed: LESSON (a hard-won insight), IDENTITY (who the user or agent is, preferences), "
    "CONSTRAINT (an unconditional rule; anything 'for now' or 'temporary' is rejected), DECISION "
    "RATIONALE (why a lasting design choice was made). Everything else is rejected. Answer with JSON "
    'only: {"decision": "approve", "category": "lesson|identity|constraint|decision"} or {"decision": "reject"}.'
)


def merge_prompt(texts: Sequence[str]) -> str:
    return "\n\n".join(f"Memory {i + 1}:\n{t}" for i, t in enumerate(texts))


def reconcile_prompt(older: str, newer: str) -> str:
    return f"A (older):\n{older}\n\nB (newer):\n{newer}"


def gate_prompt(m: MemoryFields) -> str:
    notes = []
    if m.access_count >= 30:
        notes.append(f"recalled {m.access_count} times")
    if m.repetition_count >= 2:
        notes.append(f"restated {m.repetition_count} times")
    extra = f"\n(Context: {', '.join(notes)}.)" if notes else ""
    return f"Kind: {m.kind}. Tags: {', '.join(m.tags) or 'none'}.\nMemory:\n{m.content}{extra}"


class UnusableAnswer(ValueError):
    """The LLM's answer was not the JSON asked for, or would lose a detail."""

    @property
    def loggable(self) -> str:
        """The reason without what follows its colon (the details an answer dropped are the memories'
        own words): logs never hold memory content, so an erasure need not reach them."""
        return str(self).split(": ", 1)[0]


def json_object(text: str) -> dict[str, Any]:
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        raise UnusableAnswer("no JSON object in the answer")
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise UnusableAnswer(f"invalid JSON: {exc.msg}") from exc
    if not isinstance(value, dict):
        raise UnusableAnswer("the answer is not a JSON object")
    return value


def parse_merge(text: str, sources: Sequence[str], max_chars: int) -> str | None:
    """The merged content, or None when the LLM refused to merge. Raises UnusableAnswer."""
    answer = json_object(text)
    if answer.get("merge") is not True:
        return None
    content = answer.get("content")
    if not isinstance(content, str) or not content.strip():
        raise UnusableAnswer("merge without content")
    if len(content) > max_chars:
        raise UnusableAnswer(f"merged content is {len(content)} characters; the limit is {max_chars}")
    lost = missing_specifics(sources, content)
    if lost:
        raise UnusableAnswer(f"the merge drops details: {', '.join(sorted(lost))}")
    return content.strip()


Decision = Literal["update", "absorb", "keep_both", "contradiction"]


@dataclass(frozen=True)
class ReconcileAnswer:
    decision: Decision
    content: str | None


def parse_reconcile(text: str, older: str, newer: str, max_chars: int) -> ReconcileAnswer:
    answer = json_object(text)
    decision = answer.get("decision")
    if decision not in ("update", "absorb", "keep_both", "contradiction"):
        raise UnusableAnswer(f"unknown decision {decision!r}")
    content = answer.get("content")
    if decision != "absorb":
        return ReconcileAnswer(decision, None)
    if not isinstance(content, str) or not content.strip():
        content = newer  # an absorb without a text keeps the newer one
    if len(content) > max_chars:
        raise UnusableAnswer(f"absorbed content is {len(content)} characters; the limit is {max_chars}")
    lost = missing_specifics([older, newer], content)
    if lost:
        raise UnusableAnswer(f"the absorb drops details: {', '.join(sorted(lost))}")
    return ReconcileAnswer("absorb", content.strip())


def parse_gate(text: str) -> tuple[bool, str]:
    answer = json_object(text)
    decision = answer.get("decision")
    if decision == "approve":
        return True, f"llm approved: {answer.get('category') or 'whitelist category'}"
    if decision == "reject":
        return False, "llm rejected: no whitelist category"
    raise UnusableAnswer(f"unknown decision {decision!r}")

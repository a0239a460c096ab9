"""The lifecycle arithmetic, without SQL: decay by kind, reinforcement, promotion,
the gate's candidacy, heuristic and cooldowns, demotion, and the weight that orders eviction."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence, Set
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol, TypeVar
from uuid import UUID

from engram.consolidation.settings import ConsolidationSettings

# Whitelist of what belongs in core (the gate): tags that name a category.
GATE_CATEGORY_TAGS = frozenset({"lesson", "identity", "constraint", "decision", "preference", "rule"})
# Memories that never reach core, and leave it when found there.
# Session summaries and the project status distilled from them (engram.extraction) describe a moment.
NEVER_CORE_TAGS = frozenset(
    {"session", "ephemeral", "distilled", "auto-distilled", "session-summary", "project-status"}
)
# "for now" / "temporary": the gate rejects conditional or short-lived statements.
TEMPORARY_PATTERN = re.compile(
    r"\b(for now|temporar(y|ily)|until further notice|this week|today|for the moment)\b", re.IGNORECASE
)
# The heuristic's cue words for the four categories (lesson, identity, constraint, decision rationale).
CATEGORY_CUES = re.compile(
    r"\b(always|never|must|must not|do not|don't|lesson|learned|prefers?|my name is|i am|we decided|decided to|"
    r"because|rule|policy|constraint)\b",
    re.IGNORECASE,
)


class Weighed(Protocol):
    """What eviction weighs of a memory (the store's BufferWeight: no content)."""

    @property
    def id(self) -> UUID: ...
    @property
    def kind(self) -> str: ...
    @property
    def layer(self) -> str: ...
    @property
    def importance(self) -> float: ...
    @property
    def access_count(self) -> int: ...
    @property
    def repetition_count(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...


class MemoryFields(Weighed, Protocol):
    """A live memory as the rules read it (the store's MemoryRow): read-only attributes, so a
    frozen row satisfies it."""

    @property
    def content(self) -> str: ...
    @property
    def tags(self) -> list[str]: ...
    @property
    def source(self) -> str | None: ...
    @property
    def last_accessed(self) -> datetime | None: ...
    @property
    def layer_epoch(self) -> int | None: ...
    @property
    def gate_rejections(self) -> int: ...
    @property
    def gate_retry_epoch(self) -> int | None: ...


Memory = TypeVar("Memory", bound=MemoryFields)
Weight = TypeVar("Weight", bound=Weighed)

KIND_BIAS = {"procedural": 0.15, "semantic": 0.0, "episodic": -0.1}
LAYER_BIAS = {"core": 0.1, "working": 0.0, "buffer": -0.1}


@dataclass(frozen=True)
class LifecycleRules:
    decay: dict[str, float]
    floor: float
    promote_score: float
    repetition_weight: float
    promote_kind_epochs: int
    gate_score: float
    gate_min_importance: float
    gate_age: timedelta
    gate_cooldowns: tuple[int, ...]
    buffer_cap: int
    drop_below: float

    @classmethod
    def from_settings(cls, s: ConsolidationSettings) -> LifecycleRules:
        return cls(
            decay={
                "episodic": s.consolidation_decay_episodic,
                "semantic": s.consolidation_decay_semantic,
                "procedural": s.consolidation_decay_procedural,
            },
            floor=s.consolidation_importance_floor,
            promote_score=s.consolidation_promote_score,
            repetition_weight=s.consolidation_repetition_weight,
            promote_kind_epochs=s.consolidation_promote_kind_epochs,
            gate_score=s.consolidation_gate_score,
            gate_min_importance=s.consolidation_gate_min_importance,
            gate_age=timedelta(days=s.consolidation_gate_age_days),
            gate_cooldowns=tuple(s.consolidation_gate_cooldown_epochs),
            buffer_cap=s.consolidation_buffer_cap,
            drop_below=s.consolidation_drop_below,
        )


def decayed_importance(importance: float, kind: str, rules: LifecycleRules) -> float:
    """One epoch of exponential decay, never below the floor (and never raising a value already under it)."""
    factor = rules.decay.get(kind, rules.decay["semantic"])
    return min(importance, max(rules.floor, importance * factor))


def reinforcement_score(access_count: int, repetition_count: int, rules: LifecycleRules) -> float:
    return access_count + rules.repetition_weight * repetition_count


def epochs_in_layer(layer_epoch: int | None, epoch: int) -> int:
    """Epochs spent in the current layer; a memory no run has seen yet has spent none."""
    return 0 if layer_epoch is None else max(0, epoch - layer_epoch)


def promotion_reason(m: MemoryFields, epoch: int, rules: LifecycleRules) -> str | None:
    """Why a buffer memory moves to working now, or None."""
    score = reinforcement_score(m.access_count, m.repetition_count, rules)
    if score >= rules.promote_score:
        return (
            f"reinforcement score {score:g} >= {rules.promote_score:g}"
            f" (access + {rules.repetition_weight:g} x repetition)"
        )
    tags = set(m.tags)
    if (m.kind == "procedural" or "lesson" in tags) and not tags & {"distilled", "auto-distilled"}:
        spent = epochs_in_layer(m.layer_epoch, epoch)
        if spent >= rules.promote_kind_epochs:
            what = "procedural" if m.kind == "procedural" else "tagged lesson"
            return f"{what}, {spent} epochs in the buffer >= {rules.promote_kind_epochs}"
    return None


def is_never_core(m: MemoryFields) -> bool:
    return m.source == "session" or bool(set(m.tags) & NEVER_CORE_TAGS)


def gate_candidacy(m: MemoryFields, epoch: int, now: datetime, rules: LifecycleRules) -> str | None:
    """Why a working memory may be reviewed for core now, or None."""
    if is_never_core(m) or m.importance < rules.gate_min_importance:
        return None
    if m.gate_rejections > len(rules.gate_cooldowns):
        return None  # rejected for the last time
    retry = m.gate_retry_epoch
    if retry is not None and epoch < retry:
        return None
    score = reinforcement_score(m.access_count, m.repetition_count, rules)
    if score >= rules.gate_score:
        return f"score {score:g} >= {rules.gate_score:g}, importance {m.importance:.2f}"
    if score > 0 and now - m.created_at >= rules.gate_age:
        return f"older than {rules.gate_age.days} days with score {score:g}, importance {m.importance:.2f}"
    return None


def gate_heuristic(m: MemoryFields, rules: LifecycleRules) -> tuple[bool, str]:
    """The gate without an LLM. Approve only what states a whitelist category and nothing temporary:
    a category tag (lesson, identity, constraint, decision, preference, rule) or procedural kind, or
    a category cue in the text ("always", "never", "must", "we decided", "because", ...) backed by
    strong reinforcement (twice the gate score). Everything else is rejected, as the LLM gate does."""
    text = m.content
    if TEMPORARY_PATTERN.search(text):
        return False, "temporary wording (for now / temporary): not core"
    tags = set(m.tags) & GATE_CATEGORY_TAGS
    if tags:
        return True, f"category tag: {', '.join(sorted(tags))}"
    if m.kind == "procedural":
        return True, "procedural: a standing instruction"
    score = reinforcement_score(m.access_count, m.repetition_count, rules)
    cue = CATEGORY_CUES.search(text)
    if cue and score >= 2 * rules.gate_score:
        return True, f"category cue '{cue.group(0).lower()}' and score {score:g} >= {2 * rules.gate_score:g}"
    return False, "no whitelist category (lesson, identity, constraint, decision rationale)"


def gate_rejection(rejections: int, epoch: int, rules: LifecycleRules) -> tuple[int, int | None, str]:
    """The escalation after one more rejection: new count, the epoch it may retry from (None: never)."""
    count = rejections + 1
    if count <= len(rules.gate_cooldowns):
        wait = rules.gate_cooldowns[count - 1]
        return count, epoch + wait, f"rejection {count}: retry after {wait} epochs"
    return count, None, f"rejection {count}: final"


def demotion_reason(m: MemoryFields) -> str | None:
    """Core memories that do not belong there go back to working."""
    if m.source == "session" or "session" in m.tags:
        return "session note in core"
    if "ephemeral" in m.tags:
        return "tagged ephemeral"
    return None


def memory_weight(m: Weighed) -> float:
    """A memory's weight: what eviction keeps (importance, repetition, access, kind and layer)."""
    rep = min(0.7, 0.17 * math.log1p(m.repetition_count))
    acc = min(0.55, 0.12 * math.log1p(m.access_count))
    return float(m.importance) + rep + acc + KIND_BIAS.get(m.kind, 0.0) + LAYER_BIAS.get(m.layer, 0.0)


def eviction_order(buffer: Sequence[Weight], cap: int, keep: Set[UUID] = frozenset()) -> list[Weight]:
    """The buffer memories over the cap, lowest weight first (oldest first among equals); those whose
    id is in `keep` count towards the cap but are never evicted."""
    excess = len(buffer) - cap
    if excess <= 0:
        return []
    evictable = [m for m in buffer if m.id not in keep]
    ranked = sorted(evictable, key=lambda m: (memory_weight(m), m.created_at, str(m.id)))
    return ranked[:excess]

"""Choosing and fitting: maximal marginal relevance over memory vectors with a same-topic penalty
(prime), and the text of resume's sections within their shares of a hard budget. Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

PRIME_LAMBDA = 0.6  # relevance against novelty: lower spreads further from the task's centre
SAME_TOPIC_SIMILARITY = 0.75  # two memories of one leaf count as this similar at least
# Of the best option's relevance: below it a memory is filler, not a side of the task...
RELEVANCE_FLOOR = 0.5
# ...unless its cosine to the task is at least this share of the best option's. Recall's scores are
# rank-based (RRF, k = 10: ~1 / (10 + rank)), so the relevance floor alone keeps about the first 12 of
# its order, too few to reach a task's second and third subjects (bench/topics.py: prime covered 84.6% of
# a task's subjects against recall's 90.4%); a cosine says whether a lower-ranked memory is on the task.
SIMILARITY_FLOOR = 0.5
# The layer bias: a core memory's relevance gains this share of the best recall score. Relative,
# because recall's scores are rank-based and their scale moves with the fusion settings (0.8 is what an
# additive 0.15 was at the scale it was chosen on, where the best hybrid score was ~0.19).
CORE_BONUS = 0.8
# Resume's shares of budget_chars, in order; what a section leaves goes to the next ones.
RESUME_SHARES: tuple[tuple[str, float], ...] = (
    ("core", 0.45),
    ("sessions", 0.15),
    ("recent", 0.2),
    ("topics", 0.12),
    ("triggers", 0.08),
)
MIN_USEFUL_CHARS = 120  # a cut shorter than this is noise: stop instead


@dataclass
class Option:
    key: Any
    relevance: float
    vector: Sequence[float] | None
    topic: str | None
    similarity: float | None = None  # the cosine to the task, when known


def _cos(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=False))


def mmr(options: Sequence[Option], limit: int, lam: float = PRIME_LAMBDA) -> list[Option]:
    """Greedy MMR: each pick maximises lam * relevance - (1 - lam) * (its similarity to the closest
    pick), relevance scaled so the best option is 1. Same leaf topic counts as near-duplicate. Options
    under RELEVANCE_FLOOR whose cosine is also under SIMILARITY_FLOOR are left out: diversity must not
    bring in what the task is not about."""
    if not options:
        return []
    top = max(o.relevance for o in options) or 1.0
    best_similarity = max((o.similarity for o in options if o.similarity is not None), default=None)

    def on_task(o: Option) -> bool:
        if o.relevance >= RELEVANCE_FLOOR * top:
            return True
        if o.similarity is None or best_similarity is None or best_similarity <= 0:
            return False
        return o.similarity >= SIMILARITY_FLOOR * best_similarity

    pool = [o for o in options if on_task(o)]
    chosen: list[Option] = []
    while pool and len(chosen) < limit:

        def gain(o: Option) -> float:
            closest = 0.0
            for c in chosen:
                sim = _cos(o.vector, c.vector) if o.vector is not None and c.vector is not None else 0.0
                if o.topic is not None and o.topic == c.topic:
                    sim = max(sim, SAME_TOPIC_SIMILARITY)
                closest = max(closest, sim)
            return lam * (o.relevance / top) - (1 - lam) * closest

        best = max(pool, key=gain)
        chosen.append(best)
        pool.remove(best)
    return chosen


T = TypeVar("T")


def fit_lines(
    items: Sequence[T], render: Callable[[T], str], room: int, *, cut: bool
) -> tuple[list[tuple[T, str]], int]:
    """Rendered items, in order, while they fit in `room` characters (a newline after each). With
    `cut`, the first item that does not fit is cut to the room left (when that is worth reading) and
    the rest are omitted; without, items that do not fit are skipped and smaller later ones may fit.
    Returns the kept (item, line) pairs and how many were omitted."""
    kept: list[tuple[T, str]] = []
    used = 0
    omitted = 0
    for i, item in enumerate(items):
        line = render(item)
        if used + len(line) + 1 <= room:
            kept.append((item, line))
            used += len(line) + 1
            continue
        if cut:
            left = room - used - 1
            if left >= MIN_USEFUL_CHARS:
                kept.append((item, line[: left - 3] + "..."))
                used = room
            omitted += len(items) - i - (1 if left >= MIN_USEFUL_CHARS else 0)
            break
        omitted += 1
    return kept, omitted

"""Text similarity that confirms pgvector's near-duplicate candidates, and the pair classes.

An embedding puts "port 5432" and "port 5433" next to each other; the text check keeps one
model's quirks from merging different facts: near-exact merges (the only ones made without an
LLM) need a high token Jaccard AND the same specifics (every token holding a digit).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Literal

TOKEN = re.compile(r"[^\W_]+(?:[.:/@-][^\W_]+)*", re.UNICODE)
DIGIT = re.compile(r"\d")

PairClass = Literal["exact", "near_exact", "merge_candidate", "reconcile_candidate"]


@lru_cache(maxsize=8192)  # a memory meets several neighbours in a batch: tokenise it once
def normalized(text: str) -> str:
    """Case, width, whitespace and edge punctuation do not make two memories different."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split()).strip(" .!;,")


@lru_cache(maxsize=8192)
def tokens(text: str) -> frozenset[str]:
    return frozenset(TOKEN.findall(normalized(text)))


def common_tokens(texts: Iterable[str], share: float, floor: int) -> frozenset[str]:
    """The tokens of a namespace too frequent to tie two memories to one subject: those in more than
    max(floor, share x its memories) of them (articles, template words, a name on every page)."""
    counts: Counter[str] = Counter()
    memories = 0
    for text in texts:  # once over the namespace: uncached, so the pair checks keep their cache
        counts.update(set(TOKEN.findall(normalized.__wrapped__(text))))
        memories += 1
    limit = max(floor, share * memories)
    return frozenset(t for t, n in counts.items() if n > limit)


def shared_rare_tokens(text_a: str, text_b: str, common: frozenset[str]) -> frozenset[str]:
    """What two memories have in common that few others have: a name, an id, a number, a rare word.
    An update restates its subject, so a pair sharing none is not asked about (reconcile)."""
    return (tokens(text_a) & tokens(text_b)) - common


@lru_cache(maxsize=8192)
def specifics(text: str) -> frozenset[str]:
    """Numbers, versions, dates, ids: the tokens that carry a digit."""
    return frozenset(t for t in tokens(text) if DIGIT.search(t))


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class SimilarityThresholds:
    dedupe_cosine: float
    near_exact_jaccard: float
    merge_jaccard: float
    reconcile_min_cosine: float
    reconcile_max_cosine: float
    reconcile_min_gap_s: int
    # A reconcile pair must share a token found in at most this share of the namespace's memories
    # (or in at most reconcile_rare_min of them): see shared_rare_tokens.
    reconcile_rare_share: float = 0.005
    reconcile_rare_min: int = 5


@dataclass(frozen=True)
class PairVerdict:
    cls: PairClass | None
    cosine: float
    jaccard: float
    reason: str


def classify_pair(
    text_a: str, text_b: str, created_a: datetime, created_b: datetime, cosine: float, t: SimilarityThresholds
) -> PairVerdict:
    """What consolidation may do with two memories, from their texts, ages and cosine similarity."""
    ta, tb = tokens(text_a), tokens(text_b)
    jac = jaccard(ta, tb)
    if normalized(text_a) == normalized(text_b):
        return PairVerdict("exact", cosine, jac, "same text after normalising case and whitespace")
    same_specifics = specifics(text_a) == specifics(text_b)
    # Near-exact: one text only adds words to the other (a substitution may be an update: "prefers
    # tea" -> "prefers coffee"), so keeping the fuller text loses nothing.
    contained = ta <= tb or tb <= ta
    if cosine >= t.dedupe_cosine and jac >= t.near_exact_jaccard and same_specifics and contained:
        return PairVerdict(
            "near_exact",
            cosine,
            jac,
            f"cosine {cosine:.3f} >= {t.dedupe_cosine}, token Jaccard {jac:.3f} >= "
            f"{t.near_exact_jaccard}, one text holds every word of the other",
        )
    if cosine >= t.dedupe_cosine and jac >= t.merge_jaccard and same_specifics:
        return PairVerdict(
            "merge_candidate",
            cosine,
            jac,
            f"cosine {cosine:.3f} >= {t.dedupe_cosine}, token Jaccard {jac:.3f} >= {t.merge_jaccard}",
        )
    gap = abs((created_a - created_b).total_seconds())
    if t.reconcile_min_cosine <= cosine <= t.reconcile_max_cosine and gap >= t.reconcile_min_gap_s:
        return PairVerdict(
            "reconcile_candidate",
            cosine,
            jac,
            f"cosine {cosine:.3f} in [{t.reconcile_min_cosine}, {t.reconcile_max_cosine}], newer by {gap / 3600:.1f} h",
        )
    why = "different numbers or ids" if not same_specifics and cosine >= t.dedupe_cosine else "not similar enough"
    return PairVerdict(None, cosine, jac, why)


# Cosine thresholds measured per embedding model (bench/consolidation_thresholds.py on labelled
# pairs); a space's row (embedding_spaces.consolidation_thresholds) overrides them.
# all-MiniLM-L6-v2: duplicates >= 0.90, related-but-different <= 0.86, updates >= 0.65 on the labelled set.
CALIBRATED: dict[str, dict[str, float]] = {
    "all-minilm-l6-v2-int8": {"dedupe_cosine": 0.88, "reconcile_min_cosine": 0.63},
}


def thresholds_for(
    defaults: SimilarityThresholds, model_id: str | None, stored: dict[str, float] | None
) -> SimilarityThresholds:
    """The defaults, then the calibrated values of the model, then what its space row says."""
    values = {**defaults.__dict__, **CALIBRATED.get(model_id or "", {}), **(stored or {})}
    return SimilarityThresholds(**{k: type(getattr(defaults, k))(values[k]) for k in defaults.__dict__})

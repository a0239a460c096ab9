"""Topic distillation without SQL: which leaves of the topic tree hold
overlapping texts, the LLM's prompt, and its answer checked strictly: every distilled memory
replaces two or more sources and keeps every number, id and name they hold, or the whole
distillation is refused with the reason.

"Overlapping" is measured, not guessed: a member overlaps when its token Jaccard (the tokens
dedupe compares) with another member of its leaf reaches a threshold. On the labelled pairs of
bench/consolidation_thresholds.py the median Jaccard is 0.81 for duplicates, 0.52 for updates and
0.29 for related-but-different memories, so the default 0.4 counts restatements and updates and
leaves memories that merely share a subject.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engram.consolidation.lifecycle import MemoryFields
from engram.consolidation.merging import UnusableAnswer, json_object
from engram.consolidation.settings import ConsolidationSettings
from engram.consolidation.similarity import TOKEN, normalized, specifics, tokens


@dataclass(frozen=True)
class DistillRules:
    min_members: int  # overlapping members a leaf needs
    overlap_jaccard: float  # a member overlaps another at this token Jaccard
    max_leaves: int  # per run
    prompt_chars: int  # member text per call

    @classmethod
    def from_settings(cls, s: ConsolidationSettings) -> DistillRules:
        return cls(
            min_members=s.consolidation_distill_min_members,
            overlap_jaccard=s.consolidation_distill_overlap_jaccard,
            max_leaves=s.consolidation_distill_max_leaves,
            prompt_chars=s.consolidation_distill_prompt_chars,
        )


@dataclass(frozen=True)
class LeafOverlap:
    overlapping: list[int]  # indexes of the members that overlap another member
    best: list[float]  # each member's highest Jaccard with another member of the leaf


def leaf_overlap(texts: Sequence[str], min_jaccard: float, common: frozenset[str] = frozenset()) -> LeafOverlap:
    """Each member's closest other member by the Jaccard of their tokens less `common` (the
    namespace's template words: similarity.common_tokens); those at `min_jaccard` or more overlap.
    Two texts of common words only share nothing. All pairs at once: intersections are one product
    of 0/1 matrices over the tokens two or more members share (a leaf of 1,000 takes milliseconds;
    pair by pair in Python it took seconds)."""
    sets = [tokens(t) - common for t in texts]
    n = len(sets)
    if n < 2:
        return LeafOverlap([], [0.0] * n)
    counts = Counter(t for s in sets for t in s)
    shared = {t: i for i, t in enumerate(t for t, c in counts.items() if c > 1)}
    x = np.zeros((n, max(1, len(shared))), dtype=np.float32)
    for row, s in enumerate(sets):
        x[row, [shared[t] for t in s if t in shared]] = 1.0
    inter = x @ x.T
    sizes = np.array([len(s) for s in sets], dtype=np.float32)
    union = sizes[:, None] + sizes[None, :] - inter
    jac = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    np.fill_diagonal(jac, -1.0)
    best = [round(float(b), 6) for b in jac.max(axis=1)]
    return LeafOverlap([i for i, b in enumerate(best) if b >= min_jaccard], best)


# A word that starts a sentence is capitalised whatever it is: only later ones can be told to be names.
_SENTENCE_END = re.compile(r"(^|[.!?:;\n]|^\s*[-*•]|\n\s*[-*•])\s*$")


def names(text: str) -> frozenset[str]:
    """Tokens that name something: capitalised inside a sentence ("Berlin", "April"), or with a
    capital after their first letter anywhere ("HMRC", "PostgreSQL", "iOS"). Case-folded."""
    folded = unicodedata.normalize("NFKC", text)
    found = set()
    for match in TOKEN.finditer(folded):
        token = match.group(0)
        inner_capital = any(c.isupper() for c in token[1:])
        if inner_capital or (token[0].isupper() and not _SENTENCE_END.search(folded[: match.start()][-8:])):
            found.add(token)
    return frozenset(t.casefold() for t in found)


_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
# "5 March 2026", "March 5, 2026", "5th of March 2026": one date, whichever way it is written. Its
# parts are details each, but "5 March 2026" and "3 May 2026" in one source must not pass as kept
# when the text holds "5 March" and "3 May 2026": the whole date is a detail too.
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {_MONTH}\.?,? (\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.IGNORECASE)


def _date_list(text: str) -> list[str]:
    folded = " ".join(unicodedata.normalize("NFKC", text).split())
    found = [f"date:{int(d)} {m[:3].lower()} {y}" for d, m, y in _DAY_MONTH_YEAR.findall(folded)]
    return found + [f"date:{int(d)} {m[:3].lower()} {y}" for m, d, y in _MONTH_DAY_YEAR.findall(folded)]


def dates(text: str) -> frozenset[str]:
    """Dates written with a month name, as `date:<day> <month, 3 letters> <year>`."""
    return frozenset(_date_list(text))


def details(text: str) -> frozenset[str]:
    """What a distilled text must keep of a source: its numbers, dates and ids (tokens with a digit),
    its names, and its dates whole."""
    return specifics(text) | names(text) | dates(text)


def missing_details(sources: Sequence[str], distilled: str) -> set[str]:
    """Details of the sources that the distilled text does not hold (compared case-folded, as tokens).

    Counted, not only looked up: a detail stated by sources that say different things ("retried 4
    times, 10 s apart" and "retried 5 times, 10 s apart") must appear once for each of them, so a
    text cannot keep the second's "10" and lose the first's. Sources whose details are all in
    another source's (a restatement, a fuller version) count as that one."""
    sets = sorted({details(text) for text in sources}, key=len, reverse=True)
    distinct = [d for i, d in enumerate(sets) if not any(d <= bigger for bigger in sets[:i])]
    wanted = Counter(detail for d in distinct for detail in d)
    have = Counter(TOKEN.findall(normalized(distilled))) + Counter(_date_list(distilled))
    return {d for d, n in wanted.items() if have[d] < n}


DISTILL_SYSTEM = (
    "You condense the memories of one topic of an AI agent's long-term memory into fewer, richer "
    "memories. Rules:\n"
    "- Keep EVERY specific detail: names, numbers, dates, ids, versions, commands, paths, amounts. "
    "Never generalise, never round, never drop a qualifier.\n"
    "- Only combine memories that genuinely overlap (the same subject, redundant or complementary "
    "statements); each distilled memory replaces two or more numbered memories.\n"
    "- Consolidate, do not summarise: a distilled memory is as long as it needs to be to hold every "
    "detail of its sources.\n"
    "- Memories that overlap with none stay as they are: leave them out.\n"
    "- Write in the language of the memories.\n"
    'Answer with JSON only: {"distilled": [{"sources": [1, 4, 7], "content": "..."}]}, or '
    '{"distilled": []} when nothing overlaps.'
)

# Output room for one leaf's distilled memories; a longer answer is cut off and refused as invalid JSON.
DISTILL_MAX_TOKENS = 8192


def distill_prompt(members: Sequence[MemoryFields]) -> str:
    """The leaf's memories, numbered from 1, each with its layer, kind and importance."""
    lines = [
        f"[{i + 1}] ({m.layer}, {m.kind}, importance {float(m.importance):.2f}) {m.content}"
        for i, m in enumerate(members)
    ]
    return "Memories of one topic:\n\n" + "\n\n".join(lines)


def members_to_send(texts: Sequence[str], overlap: LeafOverlap, max_chars: int) -> list[int]:
    """Which members one call sends: the most overlapping first while their text fits `max_chars`
    (the members of a leaf that fits all go), in the leaf's order."""
    order = sorted(range(len(texts)), key=lambda i: (-overlap.best[i], i))
    picked: list[int] = []
    used = 0
    for i in order:
        if used + len(texts[i]) > max_chars and len(picked) >= 2:
            continue
        picked.append(i)
        used += len(texts[i])
    return sorted(picked)


@dataclass(frozen=True)
class Distilled:
    sources: list[int]  # indexes into the members sent (from 0)
    content: str


def parse_distillation(text: str, sources: Sequence[str], max_chars: int) -> list[Distilled]:
    """The distilled memories of an answer; [] when the LLM found nothing to condense. Raises
    UnusableAnswer (the reason names what is wrong: a source used twice, a detail dropped, ...)."""
    answer = json_object(text)
    entries = answer.get("distilled")
    if not isinstance(entries, list):
        raise UnusableAnswer('no "distilled" list in the answer')
    out: list[Distilled] = []
    used: set[int] = set()
    for n, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise UnusableAnswer(f"entry {n} is not an object")
        numbers, content = entry.get("sources"), entry.get("content")
        if not isinstance(numbers, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in numbers):
            raise UnusableAnswer(f"entry {n}: sources must be a list of memory numbers")
        picked = sorted(set(numbers))
        if len(picked) < 2:
            raise UnusableAnswer(f"entry {n}: a distilled memory replaces two or more memories")
        if picked[0] < 1 or picked[-1] > len(sources):
            raise UnusableAnswer(f"entry {n}: memory numbers run from 1 to {len(sources)}")
        if used & set(picked):
            raise UnusableAnswer(f"entry {n}: memory {min(used & set(picked))} is in two distilled memories")
        used |= set(picked)
        if not isinstance(content, str) or not content.strip():
            raise UnusableAnswer(f"entry {n}: no content")
        if len(content) > max_chars:
            raise UnusableAnswer(f"entry {n}: {len(content)} characters; the limit is {max_chars}")
        lost = missing_details([sources[i - 1] for i in picked], content)
        if lost:
            raise UnusableAnswer(f"entry {n} drops details of its sources: {', '.join(sorted(lost))}")
        out.append(Distilled([i - 1 for i in picked], content.strip()))
    return out

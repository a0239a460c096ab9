"""Topic names. Without the LLM: 2-4 distinctive keywords per topic by class-based TF-IDF (a topic's
words weighed against its siblings'). With it: a short name per topic, asked in batches of 30 with
the names already in use as context. Pure: the caller makes the LLM call.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

NAMING_BATCH = 30
MAX_NAME_CHARS = 80
TEXT_CHARS = 600  # of each memory, for its words: long documents would dominate their topic

_WORD = re.compile(r"[a-zA-Z][a-zA-Z0-9_+#.-]*[a-zA-Z0-9+#]|[a-zA-Z]{3,}")
_STOPWORD_TEXT = """
a about above after again against all also am an and any are aren as at be because been before being below
between both but by can cannot could did do does doing done don down during each even every few for from further
get gets got had has have having he her here hers herself him himself his how however i if in into is isn it its
itself just let like made make many may me might more most must my myself new no nor not now of off often on once
one only or other our ours ourselves out over own per same she should since so some such than that the their theirs
them themselves then there these they this those through to too two under until up upon us use used uses using very
was we were what when where which while who whom why will with within without would yes yet you your yours
yourself yourselves via etc e.g i.e always never still already each much well back first last next way ways
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def words(text: str, chars: int | None = TEXT_CHARS) -> list[str]:
    """Lower-cased content words of a text (its first `chars` characters; None: all of it)."""
    found = (w.lower().strip(".-") for w in _WORD.findall(text[:chars]))
    return [w for w in found if len(w) >= 3 and w not in STOPWORDS and not w.replace(".", "").isdigit()]


def class_tfidf(classes: Sequence[Counter[str]]) -> list[dict[str, float]]:
    """c-TF-IDF (BERTopic's): tf(t, c) / |c| * log(1 + A / f(t)), A the mean words per class and
    f(t) the count of t over all classes: frequent in this topic, rare in its siblings."""
    totals = Counter[str]()
    for c in classes:
        totals.update(c)
    sizes = [sum(c.values()) for c in classes]
    mean = (sum(sizes) / len(classes)) if classes else 0.0
    return [
        {t: (n / size) * math.log(1 + mean / totals[t]) for t, n in c.items()} if size else {}
        for c, size in zip(classes, sizes, strict=True)
    ]


def keywords(scores: Mapping[str, float], counts: Counter[str], k: int = 3) -> list[str]:
    """The best-scoring words, those said more than once first (a word said once is hardly the
    topic), without a word that merely extends a chosen one (`deploy` and `deploys`)."""
    chosen: list[str] = []
    ranked = sorted(scores, key=lambda t: (counts[t] < 2, -scores[t], t))
    for t in ranked:
        if any(t.startswith(c[:5]) or c.startswith(t[:5]) for c in chosen):
            continue
        chosen.append(t)
        if len(chosen) == k:
            break
    return chosen


def keyword_names(groups: Sequence[Sequence[Counter[str]]]) -> list[list[list[str]]]:
    """Keywords for each topic of each sibling group (topics under one parent, or the top level),
    scored against the group; siblings never share a name (a fourth keyword tells them apart)."""
    out: list[list[list[str]]] = []
    for group in groups:
        scored = class_tfidf(group)
        names = [keywords(s, c, 3) for s, c in zip(scored, group, strict=True)]
        seen: dict[tuple[str, ...], int] = {}
        for i, kw in enumerate(names):
            key = tuple(kw)
            if key in seen and len(kw) == 3:
                extra = keywords(scored[i], group[i], 4)
                names[i] = extra if len(extra) == 4 else kw
            seen[tuple(names[i])] = i
        out.append([kw or ["misc"] for kw in names])
    return out


def keyword_label(kw: Sequence[str]) -> str:
    return " / ".join(kw)[:MAX_NAME_CHARS]


def name_without(
    name: str, kw: Sequence[str], gone: set[str], spare: Sequence[str] = ()
) -> tuple[str, list[str]] | None:
    """A topic's keyword name without the words in `gone` (an erased memory's, that no remaining member
    says), topped up from `spare` (the remaining members' words, most frequent first); None when the
    name and keywords hold none of them. An LLM name that does is replaced by the keyword name."""
    if not (set(kw) & gone or set(words(name, None)) & gone):
        return None
    kept = [k for k in kw if k not in gone]
    for w in spare:
        if len(kept) >= 3:
            break
        if w not in gone and w not in kept:
            kept.append(w)
    kept = kept or ["misc"]
    return keyword_label(kept), kept


TOPIC_NAMING_SYSTEM = (
    "You name topic clusters of an AI agent's long-term memory. For each topic you get its id, its "
    "keywords and a few sample memories. Answer with one JSON object mapping each id to a name of 2 to 6 "
    "words that says what the memories are about (specific: 'Payments deploy schedule', not 'Deployment'). "
    "Names must differ from each other and from the names already in use. Same language as the memories. "
    "No other text."
)


def naming_prompt(topics: Sequence[tuple[str, Sequence[str], Sequence[str]]], existing: Sequence[str]) -> str:
    """topics: (id, keywords, sample texts)."""
    lines = ["Names already in use: " + (", ".join(f'"{n}"' for n in existing[:200]) or "none"), ""]
    for tid, kw, samples in topics:
        lines.append(f"[{tid}] keywords: {', '.join(kw)}")
        lines += [f"  - {s[:200]}" for s in samples[:4]]
    return "\n".join(lines)


def parse_names(answer: str, ids: Sequence[str], taken: set[str]) -> dict[str, str]:
    """The usable names of an answer: known ids, short printable text, no name given twice (or
    already taken); what is missing keeps its keyword name."""
    start, end = answer.find("{"), answer.rfind("}")
    if start < 0 or end <= start:
        return {}
    try:
        data = json.loads(answer[start : end + 1])
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, str] = {}
    used = {t.lower() for t in taken}
    for tid in ids:
        name = data.get(tid)
        if not isinstance(name, str):
            continue
        name = " ".join(name.split())[:MAX_NAME_CHARS]
        if not name or not name.isprintable() or name.lower() in used:
            continue
        used.add(name.lower())
        out[tid] = name
    return out

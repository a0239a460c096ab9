"""Keyword pseudo-relevance feedback: the words of a recall's first results, searched again by keyword.

A question's answer often shares no word with it ("What does Melanie do to destress?" / "...running
farther..."), but the turns that rank first often share words with the turns that answer it. The first
results' words (past the speaker's name, not the question's own, not short function words) become a
second keyword query; its list is fused in like a rewrite's (ranking.KEYWORD_FEEDBACK_WEIGHT). The
keyword side's inverse document frequencies weigh its common words down."""

from __future__ import annotations

import re

from engram.recall import ranking
from engram.recall.ranking import Candidate

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_SPEAKER = re.compile(r"^[^:\n]{1,60}: ")


def feedback_query(ranked: list[Candidate], query: str) -> str:
    """Up to KEYWORD_FEEDBACK_WORDS words of the first KEYWORD_FEEDBACK_RESULTS results, in the order
    they come, that the question does not hold; empty when there are none."""
    asked = {w.casefold() for w in re.findall(r"\w+", query)}
    words: dict[str, None] = {}
    for c in ranked[: ranking.KEYWORD_FEEDBACK_RESULTS]:
        for w in _WORD.findall(_SPEAKER.sub("", c.row.text, count=1)):
            folded = w.casefold()
            if folded not in asked and folded not in words:
                words[folded] = None
    return " ".join(list(words)[: ranking.KEYWORD_FEEDBACK_WORDS])

"""The vector a recall asks with. A question that names someone ("Would Caroline likely pursue writing?")
is embedded twice, as asked and without its names, and asks with the mean of the two: every turn a
speaker says carries their name ("Caroline: ..."), so the name alone drew the question's vector
toward all of that speaker's turns, whatever they spoke of. Halving its pull lets the subject lead.

On real dialogue (bench/quality/dialogue_recall.py, the development split, one run each): evidence
recall .786 / .840 / .916 -> .790 / .857 / .921 at 2k / 4k / 8k, open-domain .657 -> .697 and
multi-hop .768 -> .783 at 8k, no type lower. Embedding the question without its names alone won at
2k (.795) but lost multi-hop (.756): the name still says whose turns are meant."""

from __future__ import annotations

import math
import re

from engram.adapters.embeddings.base import Embedder

# A name: a capitalised word (with its possessive) after the question's first word. Acronyms ("LGBTQ")
# and "I" are not names here: they say what is asked about.
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+(?:'s)?\b")


def without_names(query: str) -> str | None:
    """The query without the names it holds, or None when it holds none (or nothing but names)."""
    stripped = " ".join(_NAME.sub(" ", query).split())
    return stripped if stripped and stripped != " ".join(query.split()) else None


def query_vector(embedder: Embedder, query: str) -> list[float]:
    """The query's embedding; for a query that names someone, the unit mean of its embedding as asked
    and without the names (one embedder call for both)."""
    unnamed = without_names(query)
    if unnamed is None:
        return embedder.embed([query])[0]
    asked, bare = embedder.embed([query, unnamed])
    total = [a + b for a, b in zip(asked, bare, strict=True)]
    norm = math.sqrt(sum(x * x for x in total)) or 1.0
    return [x / norm for x in total]

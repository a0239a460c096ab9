"""The vector a recall asks with: a question that names someone asks with the mean of its embedding as
asked and without the names (engram.recall.query_vector)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from engram.recall.query_vector import query_vector, without_names


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Would Caroline likely pursue writing as a career?", "Would likely pursue writing as a career?"),
        ("What did Melanie's kids like?", "What did kids like?"),
        ("When did Caroline and Melanie meet Jon?", "When did and meet ?"),
        ("What did Caroline say at the LGBTQ support group?", "What did say at the LGBTQ support group?"),
    ],
)
def test_a_question_loses_its_names_and_keeps_its_first_word_and_acronyms(query: str, expected: str) -> None:
    assert without_names(query) == expected


@pytest.mark.parametrize("query", ["what hobbies do they share?", "Caroline", "Where was I", "  "])
def test_a_question_without_names_is_asked_as_it_is(query: str) -> None:
    assert without_names(query) is None


class Letters:
    """An embedder whose vector counts each letter a-z: texts that differ differ in it."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        out = []
        for text in texts:
            counts = [float(text.lower().count(chr(ord("a") + i))) for i in range(26)]
            norm = math.sqrt(sum(x * x for x in counts)) or 1.0
            out.append([x / norm for x in counts])
        return out


def test_a_named_question_asks_with_the_unit_mean_of_both_embeddings_in_one_call() -> None:
    embedder = Letters()
    query = "Would Caroline likely pursue writing?"
    vector = query_vector(embedder, query)
    assert embedder.calls == [[query, "Would likely pursue writing?"]]
    asked, bare = Letters().embed([query, "Would likely pursue writing?"])
    mean = [a + b for a, b in zip(asked, bare, strict=True)]
    norm = math.sqrt(sum(x * x for x in mean))
    assert vector == pytest.approx([x / norm for x in mean])
    assert math.sqrt(sum(x * x for x in vector)) == pytest.approx(1.0)
    assert vector != pytest.approx(asked) and vector != pytest.approx(bare)


def test_a_question_without_names_is_embedded_alone() -> None:
    embedder = Letters()
    assert query_vector(embedder, "what hobbies do they share?") == Letters().embed(["what hobbies do they share?"])[0]
    assert embedder.calls == [["what hobbies do they share?"]]

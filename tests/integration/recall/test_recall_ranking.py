"""How recall ranks, through the API on real Postgres + pgvector: keyword words weighed by how rare they
are, results that repeat an earlier one waiting behind ones that say something else, a conversation's
turns by their own signals, and a named question's vector."""

from __future__ import annotations

from typing import Any

import pytest


def _store(api: Any, contents: list[str], namespace: str) -> list[str]:
    """Each text stored as a memory of the namespace: their ids, in order."""
    ids = []
    for text in contents:
        r = api.post("/v1/memories", {"content": text, "namespace": namespace})
        assert r.status == 201, r.body
        ids.append(r.body["memory"]["id"])
    return ids


def test_a_rare_query_word_outranks_a_word_every_memory_shares(api, drain):
    # ts_rank_cd alone ranks the memory saying "Maria" three times first; weighed by rarity, the one
    # holding "sourdough" (one memory of five) leads, and "Maria" (four of five) weighs little.
    contents = [
        "Maria, Maria and Maria went to the bank.",
        "Maria likes green tea.",
        "Maria walked home in the rain.",
        "Maria repainted the hallway.",
        "The sourdough starter is bubbling again.",
    ]
    ids = _store(api, contents, "idf")
    drain()
    r = api.post("/v1/recall", {"query": "Maria sourdough", "namespace": "idf", "mode": "keyword", "explain": True})
    assert r.status == 200, r.body
    ranked = [h["memory_id"] for h in r.body["results"]]
    assert ranked[0] == ids[4]
    assert set(ranked) == set(ids)  # every memory matching any word is still a candidate


def test_with_diversify_a_near_repeat_waits_behind_a_result_that_says_something_else(api, drain):
    contents = [
        "The heron nested by the old mill pond.",
        "The heron nested by the old mill pond!",  # another memory (another hash), nearly the same vector
        "A grey heron was fishing in the river at dawn.",
        "Invoices are due on Fridays.",
    ]
    ids = _store(api, contents, "mmr")
    drain()

    def top_two(**body: object) -> list[str]:
        r = api.post("/v1/recall", {"query": "heron nesting by the mill pond", "namespace": "mmr", "limit": 2, **body})
        assert r.status == 200, r.body
        return [h["memory_id"] for h in r.body["results"]]

    assert set(top_two()) == {ids[0], ids[1]}  # by score alone (the default) the repeat comes second
    first, second = top_two(diversify=True)
    assert first in (ids[0], ids[1]) and second == ids[2]


def test_keyword_words_of_any_shape_are_weighed_without_error(api, drain):
    r = api.post("/v1/memories", {"content": "Path C:\\temp\\x-1 it's O'Brien's ZX-9931 & co | !x", "namespace": "odd"})
    assert r.status == 201, r.body
    memory_id = r.body["memory"]["id"]
    drain()
    for query in (
        "C:\\temp\\x-1",
        "it's O'Brien's",
        "ZX-9931",
        "a & b | !c <-> d",
        "'; DROP TABLE chunks; --",
        "the of",
    ):
        r = api.post("/v1/recall", {"query": query, "namespace": "odd", "mode": "keyword"})
        assert r.status == 200, (query, r.body)
    found = api.post("/v1/recall", {"query": "O'Brien's ZX-9931", "namespace": "odd", "mode": "keyword"})
    assert [h["memory_id"] for h in found.body["results"]] == [memory_id]


def test_a_turns_vector_score_counts_its_best_same_day_neighbour(
    api: Any, drain: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer is often the reply to the turn that matches the question: a turn's vector score is its
    cosine plus NEIGHBOUR_VECTOR_WEIGHT x the higher cosine of the turns beside it said the same day."""
    from engram.recall import ranking

    day, later = "2024-03-04T10:00:00+00:00", "2024-03-09T10:00:00+00:00"
    r = api.post("/v1/conversations", {"title": "unwind", "namespace": "nbvec"})
    assert r.status == 201, r.body
    said = [
        ("user", "Ana: How was your week?", day),
        ("assistant", "Ben: What do you do to unwind after a long shift at the hospital?", day),
        ("user", "Ana: Pottery, mostly. Shaping clay on the wheel calms me.", day),
        ("assistant", "Ben: Unwinding after a long shift at the hospital is hard.", later),
    ]
    messages = [{"role": role, "content": text, "created_at": at} for role, text, at in said]
    r = api.post(f"/v1/conversations/{r.body['id']}/messages", {"messages": messages})
    assert r.status == 201, r.body
    drain()

    def vector_scores() -> dict[int, float]:
        body = {"query": "how does she unwind after a long hospital shift", "namespace": "nbvec", "explain": True}
        found = api.post("/v1/recall", body)
        assert found.status == 200, found.body
        return {h["chunk"]["seq_from"]: h["explain"]["vector"] for h in found.body["results"]}

    monkeypatch.setattr(ranking, "NEIGHBOUR_VECTOR_WEIGHT", 0.0)
    cosine = vector_scores()
    monkeypatch.setattr(ranking, "NEIGHBOUR_VECTOR_WEIGHT", 0.2)
    scored = vector_scores()
    assert scored[1] == pytest.approx(cosine[1] + 0.2 * cosine[2], abs=1e-6)
    assert scored[2] == pytest.approx(cosine[2] + 0.2 * max(cosine[1], cosine[3]), abs=1e-6)
    assert scored[3] == pytest.approx(cosine[3] + 0.2 * cosine[2], abs=1e-6)  # turn 4 is another day's
    assert scored[4] == pytest.approx(cosine[4], abs=1e-6)  # its neighbour was said days before
    assert scored[3] - cosine[3] > 0.05  # the reply gains from the question it answers


def test_asked_what_a_named_speaker_would_do_their_own_statements_lead(api: Any, drain: Any) -> None:
    """A question naming one speaker and asking what they would (likely) do or have done raises their
    turns that speak of themselves (ranking.SELF_STATEMENT_CUES): what she said of herself, not what she
    said of a book, answers whether she would pursue writing."""
    r = api.post("/v1/conversations", {"title": "plans", "namespace": "own"})
    assert r.status == 201, r.body
    said = [  # one a day, so no turn holds another's words as its neighbour
        "Caroline: That book about writing careers was great.",
        "Melanie: Writing poems relaxes the kids.",
        "Caroline: I've been writing a lot lately.",
        "Melanie: The garden needs work this spring.",
    ]
    messages = [
        {"role": ("user", "assistant")[i % 2], "content": text, "created_at": f"2024-03-0{i + 1}T10:00:00+00:00"}
        for i, text in enumerate(said)
    ]
    r = api.post(f"/v1/conversations/{r.body['id']}/messages", {"messages": messages})
    assert r.status == 201, r.body
    drain()

    def first(query: str) -> str:
        found = api.post("/v1/recall", {"query": query, "namespace": "own", "mode": "keyword"})
        assert found.status == 200, found.body
        return found.body["results"][0]["messages"][0]["content"]

    # Her turn about the book holds more of the question's words; asked what she would do, her own leads.
    assert first("Would Caroline likely pursue writing as a career?") == said[2]
    assert first("What has Caroline said about writing careers?") == said[2]
    # Asked what she said, not what she would do or has done: the words decide.
    assert first("What did Caroline say about writing careers?") == said[0]


def test_a_question_naming_someone_asks_with_the_mean_of_its_vectors_with_and_without_the_name(
    api: Any, drain: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """engram.recall.query_vector through the API: the cosines explain reports for a named question are
    those of the unit mean of its embedding as asked (a) and without the name (b), so each memory's is
    one constant x (a's + b's), and not a's alone."""
    from engram.recall import service

    _store(
        api,
        [
            "Caroline wants to work as a counselor for young people.",
            "Melanie wants to open a pottery studio.",
            "Caroline went hiking with her friends last weekend.",
        ],
        "named",
    )
    drain()

    def cosines(query: str) -> dict[str, float]:
        found = api.post("/v1/recall", {"query": query, "namespace": "named", "explain": True, "touch": False})
        assert found.status == 200, found.body
        return {h["chunk"]["text"]: h["explain"]["vector"] for h in found.body["results"]}

    named = cosines("What does Caroline want to work as?")
    monkeypatch.setattr(service, "query_vector", lambda embedder, query: embedder.embed([query])[0])
    asked, bare = cosines("What does Caroline want to work as?"), cosines("What does want to work as?")
    assert named.keys() == asked.keys() == bare.keys() and len(named) == 3
    scale = [named[t] / (asked[t] + bare[t]) for t in named]
    assert max(scale) - min(scale) < 0.005, scale  # one constant: 1 / |a + b|
    assert min(scale) >= 0.5 and max(scale) <= 1.0  # |a + b| lies between 1 and 2 for two unit vectors
    assert any(abs(named[t] - asked[t]) > 0.01 for t in named)  # the name's pull halved, not kept whole

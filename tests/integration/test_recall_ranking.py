"""How recall ranks, through the API on real Postgres + pgvector: keyword words weighed by how rare they
are, and results that repeat an earlier one waiting behind ones that say something else."""

from __future__ import annotations

from typing import Any


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

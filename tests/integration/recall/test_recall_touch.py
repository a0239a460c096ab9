"""Recall's touch (access count, importance) under concurrency and scopes, on real Postgres."""

from __future__ import annotations

import random
import threading
from uuid import UUID

import psycopg
import pytest

WORDS = ["harbour", "lantern", "orchard", "granite", "meadow", "compass", "falcon", "willow"]


@pytest.fixture
def shared_notes(api, drain) -> list[str]:
    """Forty notes that each hold three of eight words: queries of different words return overlapping
    sets in different orders."""
    rng = random.Random(7)
    memories = [
        {"content": f"Note {n}: the {' and the '.join(rng.sample(WORDS, 3))} were mentioned.", "namespace": "hot"}
        for n in range(40)
    ]
    r = api.post("/v1/memories/batch", {"items": memories})
    assert r.status in (200, 201, 207) and r.body["created"] == 40, r.body
    drain()
    return [item["memory_id"] for item in r.body["results"]]


def counts(stack, ids: list[str]) -> dict[UUID, tuple[int, float]]:
    with psycopg.connect(stack.dsn) as conn:
        rows = conn.execute(
            "SELECT id, access_count, importance FROM memories WHERE id = ANY(%s)", ([*ids],)
        ).fetchall()
    return {r[0]: (r[1], float(r[2])) for r in rows}


def test_concurrent_recalls_of_the_same_memories_never_fail(tenant, shared_notes):
    """Sixteen threads recall overlapping results in reversed and shuffled word orders, touch on: every
    recall answers (a touch that locked rows in plan order deadlocked, 40P01, a 409)."""
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall

    embedder = embedder_from_env()
    failures: list[BaseException] = []
    answered = []

    def client(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(12):
            words = rng.sample(WORDS, 4)
            if seed % 2:
                words.reverse()
            try:
                found = recall(
                    UUID(tenant.id),
                    RecallRequest(query=" ".join(words), namespace="hot", limit=30, touch=True, diversify=False),
                    embedder,
                )
                answered.append(len(found.results))
            except BaseException as exc:  # every failure is the finding
                failures.append(exc)

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(answered) == 16 * 12 and min(answered) > 10


def test_a_read_key_recall_changes_nothing(stack, api, api_for, shared_notes):
    issued = api.post("/v1/keys", {"scopes": ["read"], "name": "reader"})
    assert issued.status == 201, issued.body
    read_key = issued.body["api_key"]
    before = counts(stack, shared_notes)
    r = api_for(read_key).post("/v1/recall", {"query": "harbour lantern", "namespace": "hot", "touch": True})
    assert r.status == 200 and r.body["results"]
    assert counts(stack, shared_notes) == before

    r = api.post("/v1/recall", {"query": "harbour lantern", "namespace": "hot"})
    assert r.status == 200
    after = counts(stack, shared_notes)
    touched = [i for i in after if after[i] != before[i]]
    assert {UUID(h["memory_id"]) for h in r.body["results"]} == set(touched)
    assert all(after[i][0] == before[i][0] + 1 and after[i][1] > before[i][1] for i in touched)

"""A run whose buffer cap is exceeded after its own merges: it never evicts the memories its merges
kept (trashing one brought the duplicate it absorbed back to current), and its undo treats the
changes its own later steps made as its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from tests.support.owner_view import tenant_rows

NS = "eviction"
PAIRS = 3
OTHERS = 4


def _start(api: Any, steps: list[str]) -> str:
    reply = api.post("/v1/consolidate", {"namespace": NS, "steps": steps})
    assert reply.status == 202, reply.body
    return str(reply.body["id"])


def _run(stack: Any, tenant_id: str, run_id: str) -> str:
    from engram.consolidation import service

    return str(service.run_cycle(stack.dsn, UUID(tenant_id), UUID(run_id), time_budget_s=600.0).status)


def _actions(api: Any, run_id: str) -> list[dict[str, Any]]:
    reply = api.get(f"/v1/consolidation-runs/{run_id}?limit=200")
    assert reply.status == 200, reply.body
    return list(reply.body["actions"]["items"])


@pytest.fixture
def crowded_buffer(api: Any, drain: Callable[[], Any], settings_env: Callable[..., None]) -> dict[str, list[str]]:
    """Near-exact duplicate pairs of no importance beside weightier memories, with a cap that the
    buffer exceeds by as many memories as the merges keep."""
    settings_env(ENGRAM_LLM_LEVEL="off", ENGRAM_CONSOLIDATION_BUFFER_CAP=str(OTHERS))
    made: dict[str, list[str]] = {"pairs": [], "others": []}
    for n in range(PAIRS):
        for text in (f"The build agent {n} runs on host ci-{n}0{n}.", f"the build agent {n} runs on host  ci-{n}0{n}"):
            reply = api.post("/v1/memories", {"namespace": NS, "content": text, "importance": 0.0})
            assert reply.status == 201, reply.body
            made["pairs"].append(reply.body["memory"]["id"])
    topics = ("the coffee rota", "the parking permits", "the fire drill", "the badge printer", "the lunch order")
    for n, topic in enumerate(topics[:OTHERS]):
        reply = api.post(
            "/v1/memories", {"namespace": NS, "content": f"Note {n} on {topic}.", "importance": 0.5 + n / 10}
        )
        made["others"].append(reply.body["memory"]["id"])
    drain()
    return made


def test_a_run_never_evicts_what_its_own_merges_kept(api, tenant, stack, crowded_buffer):
    before = tenant_rows(stack, tenant.id)
    run_id = _start(api, ["dedupe", "buffer_cap"])
    assert _run(stack, tenant.id, run_id) == "done"
    actions = _actions(api, run_id)
    merges = [a for a in actions if a["action"] == "merge"]
    assert len(merges) == PAIRS
    survivors = {a["details"]["survivor"] for a in merges}
    evicted = {i for a in actions if a["action"] == "evict" for i in a["memory_ids"]}
    assert evicted and not evicted & survivors
    assert evicted <= set(crowded_buffer["others"])
    for merge in merges:  # the absorbed duplicate stays superseded; the survivor stays current
        assert api.get(f"/v1/memories/{merge['details']['superseded']}").body["valid_to"] is not None
        kept = api.get(f"/v1/memories/{merge['details']['survivor']}").body
        assert kept["status"] == "active" and kept["valid_to"] is None
    undone = api.post(f"/v1/consolidation-runs/{run_id}/undo")
    assert undone.status == 200, undone.body
    assert tenant_rows(stack, tenant.id) == before


def test_undo_puts_back_what_a_later_step_of_the_same_run_changed(api, tenant, stack, crowded_buffer, monkeypatch):
    # The eviction as it was before survivors were kept: the buffer cap trashes the merges' survivors,
    # whose supersedes links end, and the trigger makes the absorbed duplicates current again. Those
    # duplicates changed after the merge that named them, but by this run: undo is not refused.
    from engram.consolidation import store

    monkeypatch.setattr(store, "merge_survivors", lambda conn, run_id: set())
    before = tenant_rows(stack, tenant.id)
    run_id = _start(api, ["dedupe", "buffer_cap"])
    assert _run(stack, tenant.id, run_id) == "done"
    actions = _actions(api, run_id)
    survivors = {a["details"]["survivor"] for a in actions if a["action"] == "merge"}
    evicted = {i for a in actions if a["action"] == "evict" for i in a["memory_ids"]}
    assert survivors and survivors <= evicted
    undone = api.post(f"/v1/consolidation-runs/{run_id}/undo")
    assert undone.status == 200, undone.body
    assert tenant_rows(stack, tenant.id) == before

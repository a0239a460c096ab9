"""Topic distillation through the HTTP API and the consolidation worker on a real PostgreSQL, with
the LLM faked at the HTTP boundary: a leaf of overlapping memories becomes fewer memories that keep
every detail, recall finds them instead of their sources, `as_of` still finds the sources, undo
puts every row back, an answer that drops a detail is refused, and a run distils at most two leaves."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import pytest

from tests.support.fake_distiller import GROUPS, OTHERS, PAYMENTS, FakeDistiller
from tests.support.owner_view import owner_connection, tenant_rows

NS = "kb"


@pytest.fixture
def settings_env(settings_env: Callable[..., None]) -> Callable[..., None]:
    settings_env(ENGRAM_LLM_LEVEL="off")  # no LLM unless a test turns it on
    return settings_env


def _llm_on(settings_env: Callable[..., None], url: str) -> None:
    settings_env(
        ANTHROPIC_API_KEY="sk-test", ENGRAM_ANTHROPIC_BASE_URL=url, ENGRAM_LLM_LEVEL="auto", ENGRAM_LLM_BACKOFF_S="0.01"
    )


def _write(api: Any, texts: list[str]) -> list[str]:
    ids = []
    for text in texts:
        reply = api.post("/v1/memories", {"namespace": NS, "content": text, "tags": ["ops"]})
        assert reply.status == 201, reply.body
        ids.append(reply.body["memory"]["id"])
    return ids


def _run(api: Any, stack: Any, tenant_id: str, **body: Any) -> dict[str, Any]:
    from engram.consolidation import service

    reply = api.post("/v1/consolidate", {"namespace": NS, **body})
    assert reply.status == 202, reply.body
    progress = service.run_cycle(stack.dsn, UUID(tenant_id), UUID(reply.body["id"]), time_budget_s=600)
    assert progress.status == "done", progress
    run = api.get(f"/v1/consolidation-runs/{reply.body['id']}?limit=200")
    assert run.status == 200, run.body
    return run.body


def _distill_actions(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in run["actions"]["items"] if a["step"] == "distill"]


def _recall(api: Any, query: str, **extra: Any) -> list[str]:
    body = {"query": query, "namespace": NS, "limit": 10, "touch": False, "diversify": False, **extra}
    reply = api.post("/v1/recall", body)  # not diversified: a source's twin must not push it out
    assert reply.status == 200, reply.body
    return [r["memory_id"] for r in reply.body["results"]]


def _leaf_members(api: Any) -> list[set[str]]:
    def leaves(nodes: list[dict[str, Any]]) -> list[str]:
        out = []
        for n in nodes:
            out += [n["id"]] if n["is_leaf"] else leaves(n["children"])
        return out

    ids = leaves(api.get(f"/v1/topics?namespace={NS}").body["topics"])
    reply = api.post("/v1/topics/lookup", {"ids": ids, "limit": 100})
    return [{m["memory_id"] for m in t["memories"]} for t in reply.body["topics"]]


def _payments_leaf(api: Any, drain: Callable[[], Any], stack: Any, tenant_id: str) -> list[str]:
    """The 12 payments memories and 6 others, embedded, with a topic tree holding the 12 in one leaf."""
    ids = _write(api, [t for _f, t in PAYMENTS])
    _write(api, OTHERS)
    drain()
    _run(api, stack, tenant_id, steps=["topics"])
    assert any(set(ids) <= leaf for leaf in _leaf_members(api)), "the payments memories share a leaf"
    return ids


def test_a_leaf_of_overlapping_memories_is_distilled_recall_finds_it_and_undo_puts_every_row_back(
    api, tenant, stack, drain, settings_env, fake_messages
):
    sources = _payments_leaf(api, drain, stack, tenant.id)
    fake = FakeDistiller(fake_messages, {t: (f, GROUPS[f]) for f, t in PAYMENTS})
    _llm_on(settings_env, fake.url)
    before = tenant_rows(stack, tenant.id)

    plan = _run(api, stack, tenant.id, dry_run=True, steps=["distill"])
    (candidate,) = _distill_actions(plan)
    assert candidate["action"] == "distill_candidate" and not candidate["applied"]
    assert set(candidate["memory_ids"]) == set(sources) and candidate["details"]["overlapping"] == 12
    assert not fake.requests and tenant_rows(stack, tenant.id) == before  # a plan makes no call

    run = _run(api, stack, tenant.id, steps=["distill", "topics"])
    (action,) = _distill_actions(run)
    assert action["action"] == "distill" and action["applied"]
    assert action["details"]["sources"] == 12 and len(fake.requests) == 1
    distilled = [d["memory_id"] for d in action["details"]["distilled"]]
    assert len(distilled) == 3  # 12 memories -> 3
    counts = {c["step"]: c for c in run["step_counts"]}
    assert counts["distill"]["actions"] == 1 and run["llm_calls"] == 1
    texts = []
    for memory_id, entry in zip(distilled, action["details"]["distilled"], strict=True):
        memory = api.get(f"/v1/memories/{memory_id}").body
        texts.append(memory["content"])
        assert memory["tags"][0] == "distilled" and "ops" in memory["tags"] and memory["source"] == "distill"
        links = api.get(f"/v1/links?memory_id={memory_id}").body["items"]
        assert {(link["relation"], link["to_id"]) for link in links} == {
            (rel, s) for s in entry["sources"] for rel in ("supersedes", "derived_from")
        }
    assert any("release-2025" in t and "pay-db-03" in t for t in texts)
    for source in sources:  # superseded, not deleted: history keeps them
        assert api.get(f"/v1/memories/{source}").body["valid_to"] is not None
    with owner_connection(stack) as conn:
        logged = conn.execute(
            "SELECT count(*) FROM llm_usage WHERE run_id = %s AND purpose = 'consolidation_distill'", (run["id"],)
        ).fetchone()
    assert logged is not None and logged[0] == 1

    drain()  # the distilled memories get their vectors
    question = "which branch does the payments service deploy from"
    found = _recall(api, question)
    assert found and found[0] in distilled and not set(found) & set(sources)
    superseded_at = api.get(f"/v1/memories/{sources[0]}").body["valid_to"]
    # Just before the supersession (valid_to is exclusive): a whole second earlier can be before the
    # sources were written, on a fast machine.
    instant = datetime.fromisoformat(superseded_at.replace("Z", "+00:00")) - timedelta(microseconds=1)
    in_the_past = _recall(api, question, as_of=instant.isoformat())
    assert sources[0] in in_the_past and not set(in_the_past) & set(distilled)

    undone = api.post(f"/v1/consolidation-runs/{run['id']}/undo")
    assert undone.status == 200, undone.body
    assert tenant_rows(stack, tenant.id) == before  # sources back, distilled memories and links gone
    assert any(set(sources) <= leaf for leaf in _leaf_members(api))  # the tree before the run


def test_an_answer_that_drops_a_number_is_refused_and_not_asked_again(
    api, tenant, stack, drain, settings_env, fake_messages
):
    sources = _payments_leaf(api, drain, stack, tenant.id)
    fake = FakeDistiller(fake_messages, {t: (f, GROUPS[f]) for f, t in PAYMENTS})
    fake.drop = " at 14:00 UTC"
    _llm_on(settings_env, fake.url)
    before = tenant_rows(stack, tenant.id)
    run = _run(api, stack, tenant.id, steps=["distill"])
    (refused,) = _distill_actions(run)
    assert refused["action"] == "distill_refused" and not refused["applied"]
    assert "14:00" in refused["reason"] and "utc" in refused["reason"].lower()
    assert set(refused["memory_ids"]) == set(sources)
    assert tenant_rows(stack, tenant.id) == before  # nothing written
    assert len(fake.requests) == 1
    again = _run(api, stack, tenant.id, steps=["distill"])  # nothing changed: not asked again
    assert _distill_actions(again) == [] and len(fake.requests) == 1
    api.post("/v1/memories", {"namespace": NS, "content": "The payments service logs go to the pay-logs index."})
    drain()  # a new member joins the leaf: the leaf is asked about again
    fake.drop = None
    third = _run(api, stack, tenant.id, steps=["distill"])
    assert len(fake.requests) == 2 and [a["action"] for a in _distill_actions(third)] == ["distill"]


def test_with_the_llm_off_the_step_does_nothing_and_says_why(api, tenant, stack, drain, settings_env):
    _payments_leaf(api, drain, stack, tenant.id)
    before = tenant_rows(stack, tenant.id)
    run = _run(api, stack, tenant.id, steps=["distill"])
    (counts,) = run["step_counts"]
    assert counts["step"] == "distill" and counts["actions"] == 0
    assert counts["skipped"].startswith("llm_disabled")
    assert _distill_actions(run) == [] and tenant_rows(stack, tenant.id) == before


SUBJECTS = {
    "bread": [
        "Feed the sourdough starter with equal parts rye flour and water every morning at 7.",
        "Every morning at 7 the sourdough starter is fed with equal parts rye flour and water.",
        "Keep the sourdough starter in a glass jar at 24 C and discard half of it before each feed.",
        "Discard half of the sourdough starter before each feed and keep it in a glass jar at 24 C.",
    ],
    "birds": [
        "The garden robin sings at dawn from the top of the hedge near the gate.",
        "From the top of the hedge near the gate the garden robin sings at dawn.",
        "The garden robin nests in the ivy on the north wall of the shed every April.",
        "Every April the garden robin nests in the ivy on the north wall of the shed.",
    ],
    "tax": [
        "The quarterly VAT return is filed with HMRC by the 7th of the second month.",
        "By the 7th of the second month the quarterly VAT return is filed with HMRC.",
        "Corporation tax is paid to HMRC nine months and one day after the year end.",
        "Nine months and one day after the year end corporation tax is paid to HMRC.",
    ],
}


def test_a_run_distils_at_most_two_leaves_and_the_next_run_goes_on(
    api, tenant, stack, drain, settings_env, fake_messages
):
    settings_env(ENGRAM_CONSOLIDATION_DISTILL_MIN_MEMBERS="4")
    ids = {subject: _write(api, texts) for subject, texts in SUBJECTS.items()}
    drain()
    _run(api, stack, tenant.id, steps=["topics"])
    leaves = _leaf_members(api)
    assert all(any(set(group) <= leaf for leaf in leaves) for group in ids.values()), "one leaf per subject"
    groups = {t: (t[:30], n) for n, texts in enumerate(SUBJECTS.values()) for t in texts}
    fake = FakeDistiller(fake_messages, groups)
    _llm_on(settings_env, fake.url)

    first = _run(api, stack, tenant.id, steps=["distill"])
    assert [a["action"] for a in _distill_actions(first)] == ["distill", "distill"]
    assert len(fake.requests) == 2
    second = _run(api, stack, tenant.id, steps=["distill"])
    assert [a["action"] for a in _distill_actions(second)] == ["distill"]
    distilled_subjects = {
        subject
        for run in (first, second)
        for action in _distill_actions(run)
        for subject, group in ids.items()
        if set(group) <= set(action["memory_ids"])
    }
    assert distilled_subjects == set(SUBJECTS) and len(fake.requests) == 3


def test_a_distilled_text_that_is_a_source_keeps_that_memory_and_supersedes_the_rest(
    api, tenant, stack, drain, settings_env, fake_messages
):
    sources = _payments_leaf(api, drain, stack, tenant.id)
    fake = FakeDistiller(fake_messages, {t: (f, f) for f, t in PAYMENTS})  # each fact's first wording, verbatim
    _llm_on(settings_env, fake.url)
    before = tenant_rows(stack, tenant.id)
    run = _run(api, stack, tenant.id, steps=["distill"])
    (action,) = _distill_actions(run)
    assert action["action"] == "distill", action["reason"]
    kept = [d["memory_id"] for d in action["details"]["distilled"]]
    assert len(kept) == 6 and set(kept) < set(sources)  # no new memory: six sources stay
    for memory_id in sources:
        memory = api.get(f"/v1/memories/{memory_id}").body
        if memory_id in kept:
            assert memory["valid_to"] is None and memory["tags"] == ["distilled", "ops"]
        else:
            assert memory["valid_to"] is not None
    assert tenant_rows(stack, tenant.id)["links"] == before["links"] + 12  # supersedes + derived_from, 6 each
    assert api.post(f"/v1/consolidation-runs/{run['id']}/undo").status == 200
    assert tenant_rows(stack, tenant.id) == before


def test_the_run_call_cap_stops_distillation_before_its_call(api, tenant, stack, drain, settings_env, fake_messages):
    _payments_leaf(api, drain, stack, tenant.id)
    fake = FakeDistiller(fake_messages, {t: (f, GROUPS[f]) for f, t in PAYMENTS})
    _llm_on(settings_env, fake.url)
    settings_env(ENGRAM_CONSOLIDATION_LLM_RUN_CALLS="0")
    before = tenant_rows(stack, tenant.id)
    run = _run(api, stack, tenant.id, steps=["distill"])
    (counts,) = run["step_counts"]
    assert counts["candidates"] == 1 and counts["actions"] == 0 and "run call cap" in counts["skipped"]
    assert run["llm_capped"] and not fake.requests and tenant_rows(stack, tenant.id) == before


def test_undo_is_refused_while_a_link_made_since_reaches_a_distilled_memory(
    api, tenant, stack, drain, settings_env, fake_messages
):
    _payments_leaf(api, drain, stack, tenant.id)
    fake = FakeDistiller(fake_messages, {t: (f, GROUPS[f]) for f, t in PAYMENTS})
    _llm_on(settings_env, fake.url)
    run = _run(api, stack, tenant.id, steps=["distill"])
    (action,) = _distill_actions(run)
    distilled = action["details"]["distilled"][0]["memory_id"]
    note = api.post("/v1/memories", {"namespace": NS, "content": "Payments release checklist lives in the wiki."})
    link = api.post("/v1/links", {"from_id": note.body["memory"]["id"], "to_id": distilled, "relation": "relates_to"})
    assert link.status == 201, link.body
    refused = api.post(f"/v1/consolidation-runs/{run['id']}/undo")
    assert refused.status == 409 and distilled in refused.body["error"]["message"]
    assert api.get(f"/v1/memories/{distilled}").status == 200  # nothing was undone
    assert api.get(f"/v1/consolidation-runs/{run['id']}").body["status"] == "done"
    assert api.delete(f"/v1/links/{link.body['id']}").status == 200
    assert api.post(f"/v1/consolidation-runs/{run['id']}/undo").status == 200

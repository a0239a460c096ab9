"""Consolidation through the HTTP API and the service contract, on a real PostgreSQL: dry run,
applied run, idempotence, resume after a stop, undo to byte-identical rows, and the LLM steps
through a fake Messages API at the HTTP boundary."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

import pytest

from tests.support.owner_view import owner_connection, tenant_rows

NS = "ops"
DUP_A = "The staging database is db-stage-01 in eu-west-1."
DUP_B = "the staging database is  db-stage-01 in eu-west-1"
OLD_FACT = "The payments service deploys from the release-2024 branch every Tuesday."
NEW_FACT = "The payments service now deploys from the release-2025 branch every Tuesday."
OTHER = "The office coffee machine is descaled on the first Monday of each month."


def _plant(api: Any, drain: Callable[[], Any], stack: Any, tenant_id: str) -> dict[str, str]:
    ids = {}
    for name, content in (("dup_a", DUP_A), ("dup_b", DUP_B), ("old", OLD_FACT), ("new", NEW_FACT), ("other", OTHER)):
        reply = api.post("/v1/memories", {"namespace": NS, "content": content, "tags": [name]})
        assert reply.status == 201, reply.body
        ids[name] = reply.body["memory"]["id"]
    drain()
    with owner_connection(stack) as conn:  # the old fact was written three hours before the new one
        conn.execute(
            "UPDATE memories SET created_at = created_at - interval '3 hours',"
            " updated_at = updated_at - interval '3 hours' WHERE id = %s",
            (ids["old"],),
        )
        conn.execute("UPDATE memories SET repetition_count = 1 WHERE id = %s", (ids["dup_b"],))
    return ids


def _run(stack: Any, tenant_id: str, run_id: str, budget: float = 600.0) -> Any:
    from engram.consolidation import service

    return service.run_cycle(stack.dsn, UUID(tenant_id), UUID(run_id), time_budget_s=budget)


def _start(api: Any, **body: Any) -> str:
    reply = api.post("/v1/consolidate", {"namespace": NS, **body})
    assert reply.status == 202, reply.body
    assert reply.body["status"] == "queued"
    return reply.body["id"]


def _actions(api: Any, run_id: str) -> list[dict[str, Any]]:
    items, cursor = [], None
    while True:
        reply = api.get(f"/v1/consolidation-runs/{run_id}?limit=200" + (f"&cursor={cursor}" if cursor else ""))
        assert reply.status == 200, reply.body
        items += reply.body["actions"]["items"]
        cursor = reply.body["actions"]["next_cursor"]
        if not cursor:
            return items


def _recall(api: Any, query: str, **extra: Any) -> list[str]:
    reply = api.post("/v1/recall", {"query": query, "namespaces": [NS], "limit": 10, "touch": False, **extra})
    assert reply.status == 200, reply.body
    return [r["memory_id"] for r in reply.body["results"]]


class FakeClaude:
    """The Messages API at the HTTP boundary, answering each consolidation prompt as a careful model would."""

    def __init__(self, fake_messages: Callable[..., Any]) -> None:
        self.merged: str | None = None  # what a merge request gets back (None: "do not merge")
        self.reconcile = "update"  # the decision a reconcile request gets back
        messages = fake_messages(self.answer, (100, 10))
        self.requests: list[dict[str, Any]] = messages.requests
        self.url: str = messages.url

    def answer(self, body: dict[str, Any]) -> str:
        system = body.get("system") or ""
        prompt = body["messages"][0]["content"]
        if "same topic" in system:
            return json.dumps({"decision": self.reconcile})
        if "near-duplicate" in system:
            return json.dumps({"merge": True, "content": self.merged}) if self.merged else '{"merge": false}'
        if "lesson" in prompt.lower():
            return '{"decision": "approve", "category": "lesson"}'
        return '{"decision": "reject"}'


@pytest.fixture
def settings_env(settings_env: Callable[..., None]) -> Callable[..., None]:
    settings_env(ENGRAM_LLM_LEVEL="off")  # no LLM unless a test turns it on
    return settings_env


@pytest.fixture
def fake_claude(settings_env: Callable[..., None], fake_messages: Callable[..., Any]) -> Iterator[FakeClaude]:
    fake = FakeClaude(fake_messages)
    settings_env(
        ANTHROPIC_API_KEY="sk-test",
        ENGRAM_ANTHROPIC_BASE_URL=fake.url,
        ENGRAM_LLM_LEVEL="auto",
        ENGRAM_LLM_BACKOFF_S="0.01",
    )
    yield fake


def test_dry_run_lists_the_plan_and_changes_nothing(api, tenant, stack, drain, settings_env):
    ids = _plant(api, drain, stack, tenant.id)
    before = tenant_rows(stack, tenant.id)
    run_id = _start(api, dry_run=True)
    assert _run(stack, tenant.id, run_id).status == "done"
    assert tenant_rows(stack, tenant.id) == before
    actions = _actions(api, run_id)
    assert actions and not any(a["applied"] for a in actions)
    merges = [a for a in actions if a["action"] == "merge"]
    assert len(merges) == 1 and set(merges[0]["memory_ids"]) == {ids["dup_a"], ids["dup_b"]}
    assert merges[0]["details"]["cosine"] >= 0.85 and "duplicate" in merges[0]["reason"]
    reconcile = [a for a in actions if a["action"] == "reconcile_candidate"]
    assert [set(a["memory_ids"]) for a in reconcile] == [{ids["old"], ids["new"]}]
    run = api.get(f"/v1/consolidation-runs/{run_id}").body
    assert run["status"] == "done" and run["dry_run"] and run["epoch"] is None and run["llm_calls"] == 0


def test_reconcile_asks_only_about_pairs_sharing_a_rare_token(api, tenant, stack, drain, settings_env):
    ids = _plant(api, drain, stack, tenant.id)

    def planned() -> list[set[str]]:
        run_id = _start(api, dry_run=True, steps=["reconcile"])
        assert _run(stack, tenant.id, run_id).status == "done"
        return [set(a["memory_ids"]) for a in _actions(api, run_id) if a["action"] == "reconcile_candidate"]

    # The old and new facts share "payments", "release", "branch"...: each in 2 of the 5 memories.
    settings_env(ENGRAM_CONSOLIDATION_RECONCILE_RARE_SHARE="0", ENGRAM_CONSOLIDATION_RECONCILE_RARE_MIN="2")
    assert planned() == [{ids["old"], ids["new"]}]
    settings_env(ENGRAM_CONSOLIDATION_RECONCILE_RARE_MIN="1")  # now every shared token is common
    assert planned() == []


def test_applied_run_merges_is_idempotent_and_undo_restores_every_row(api, tenant, stack, drain, settings_env):
    ids = _plant(api, drain, stack, tenant.id)
    before = tenant_rows(stack, tenant.id)
    run_id = _start(api)
    assert _run(stack, tenant.id, run_id).status == "done"
    actions = _actions(api, run_id)
    merge = next(a for a in actions if a["action"] == "merge")
    assert merge["applied"]
    survivor, superseded = merge["details"]["survivor"], merge["details"]["superseded"]
    assert {survivor, superseded} == {ids["dup_a"], ids["dup_b"]}
    kept = api.get(f"/v1/memories/{survivor}").body
    assert kept["repetition_count"] == 1 and set(kept["tags"]) == {"dup_a", "dup_b"}
    assert api.get(f"/v1/memories/{superseded}").body["valid_to"] is not None  # history, not deleted
    assert superseded not in _recall(api, "staging database")
    links = api.get(f"/v1/links?memory_id={survivor}").body["items"]
    assert {(link["relation"], link["created_by"], link["run_id"]) for link in links} == {
        ("supersedes", "consolidation", run_id),
        ("derived_from", "consolidation", run_id),
    }
    decayed = api.get(f"/v1/memories/{ids['other']}").body
    assert decayed["importance"] == pytest.approx(0.5 * 0.988, abs=1e-6)

    after = tenant_rows(stack, tenant.id)
    assert _run(stack, tenant.id, run_id).status == "done"  # called again: a no-op
    assert tenant_rows(stack, tenant.id) == after and len(_actions(api, run_id)) == len(actions)

    undone = api.post(f"/v1/consolidation-runs/{run_id}/undo")
    assert undone.status == 200, undone.body
    assert undone.body["status"] == "undone"
    assert tenant_rows(stack, tenant.id) == before
    assert api.get(f"/v1/links?memory_id={survivor}").body["items"] == []
    again = api.post(f"/v1/consolidation-runs/{run_id}/undo")
    assert again.status == 409


def test_undo_puts_the_namespace_clock_back(api, tenant, stack, drain, settings_env):
    ids = _plant(api, drain, stack, tenant.id)

    def clock() -> tuple[Any, ...] | None:
        with owner_connection(stack) as conn:
            return conn.execute(
                "SELECT epoch, last_run_id::text, last_run_at FROM consolidation_namespaces"
                " WHERE tenant_id = %s AND namespace = %s",
                (tenant.id, NS),
            ).fetchone()

    def run_to_end() -> dict[str, Any]:
        run_id = _start(api)
        assert _run(stack, tenant.id, run_id).status == "done"
        return api.get(f"/v1/consolidation-runs/{run_id}").body

    undone = run_to_end()
    assert api.post(f"/v1/consolidation-runs/{undone['id']}/undo").status == 200
    assert clock() == (0, None, None)  # as if it never ran
    first = run_to_end()
    assert first["epoch"] == 1  # not 2: decay and cooldowns do not count the undone run
    merged = [a["memory_ids"] for a in _actions(api, first["id"]) if a["action"] == "merge"]
    assert [set(m) for m in merged] == [{ids["dup_a"], ids["dup_b"]}]  # looked at again, merged again
    second = run_to_end()
    assert clock()[:2] == (2, second["id"])
    assert api.post(f"/v1/consolidation-runs/{second['id']}/undo").status == 200
    epoch, last_run_id, last_run_at = clock()
    assert (epoch, last_run_id) == (1, first["id"]) and last_run_at.isoformat() == first["started_at"].replace(
        "Z", "+00:00"
    )


def test_undo_is_refused_naming_memories_changed_since(api, tenant, stack, drain, settings_env):
    ids = _plant(api, drain, stack, tenant.id)
    run_id = _start(api)
    assert _run(stack, tenant.id, run_id).status == "done"
    merge = next(a for a in _actions(api, run_id) if a["action"] == "merge")
    survivor = merge["details"]["survivor"]
    assert api.patch(f"/v1/memories/{survivor}", {"importance": 0.9}).status == 200
    refused = api.post(f"/v1/consolidation-runs/{run_id}/undo")
    assert refused.status == 409
    assert refused.body["error"]["details"]["changed_memories"] == [survivor]
    assert survivor in refused.body["error"]["message"]
    assert api.get(f"/v1/memories/{ids['other']}").body["importance"] < 0.5  # nothing was put back


def test_a_run_stopped_between_batches_resumes_without_applying_twice(
    api, tenant, stack, drain, settings_env, monkeypatch
):
    from engram.consolidation import cycle

    ids = _plant(api, drain, stack, tenant.id)
    run_id = _start(api)
    # No time at all: every call commits one batch and asks for a continuation.
    first = _run(stack, tenant.id, run_id, budget=0)
    assert first.status == "continue" and first.batches == 1

    class Killed(BaseException):
        """The worker dies (timeout, OOM): nothing after the last commit survives."""

    real = cycle.STEP_FUNCTIONS["dedupe"]

    def dies(ctx: Any, cursor: Any) -> Any:
        real(ctx, cursor)  # does its work inside the transaction, then the process dies
        raise Killed

    monkeypatch.setitem(cycle.STEP_FUNCTIONS, "dedupe", dies)
    with pytest.raises(Killed):
        while _run(stack, tenant.id, run_id, budget=0).status == "continue":
            pass
    assert api.get(f"/v1/consolidation-runs/{run_id}").body["status"] == "running"
    monkeypatch.setitem(cycle.STEP_FUNCTIONS, "dedupe", real)
    calls = 0
    while (progress := _run(stack, tenant.id, run_id, budget=0)).status == "continue":
        calls += 1
    assert progress.status == "done" and calls >= 2
    actions = _actions(api, run_id)
    assert [a["action"] for a in actions].count("merge") == 1
    assert sum(1 for a in actions if a["action"] == "decay") == 1
    assert api.get(f"/v1/memories/{ids['other']}").body["importance"] == pytest.approx(0.5 * 0.988, abs=1e-6)
    run = api.get(f"/v1/consolidation-runs/{run_id}").body
    assert run["epoch"] == 1 and [c["step"] for c in run["step_counts"]] == run["steps"]


def test_reconcile_through_the_llm_supersedes_the_stale_fact(api, tenant, stack, drain, fake_claude):
    ids = _plant(api, drain, stack, tenant.id)
    before = tenant_rows(stack, tenant.id)
    plan = _start(api, dry_run=True)
    assert _run(stack, tenant.id, plan).status == "done"
    assert not fake_claude.requests  # a plan makes no call
    planned = {a["action"] for a in _actions(api, plan)}
    assert {"merge", "reconcile_candidate"} <= planned

    run_id = _start(api)
    assert _run(stack, tenant.id, run_id).status == "done"
    supersede = next(a for a in _actions(api, run_id) if a["action"] == "supersede")
    assert supersede["details"]["survivor"] == ids["new"] and supersede["details"]["superseded"] == ids["old"]
    assert any("same topic" in r["system"] for r in fake_claude.requests)
    found = _recall(api, "which branch does the payments service deploy from")
    assert ids["new"] in found and ids["old"] not in found
    assert ids["old"] in _recall(api, "which branch does the payments service deploy from", include_expired=True)
    run = api.get(f"/v1/consolidation-runs/{run_id}").body
    assert run["llm_calls"] == len(fake_claude.requests) and run["llm_input_tokens"] == 100 * run["llm_calls"]
    with owner_connection(stack) as conn:
        logged = conn.execute("SELECT count(*) FROM llm_usage WHERE run_id = %s", (run_id,)).fetchone()
    assert logged is not None and logged[0] == run["llm_calls"]

    assert api.post(f"/v1/consolidation-runs/{run_id}/undo").status == 200
    assert tenant_rows(stack, tenant.id) == before


def test_a_contradiction_asked_again_after_a_change_keeps_its_one_link(api, tenant, stack, drain, fake_claude):
    ids = _plant(api, drain, stack, tenant.id)
    fake_claude.reconcile = "contradiction"

    def run_reconcile() -> tuple[int, list[dict[str, Any]]]:
        asked = len(fake_claude.requests)
        run_id = _start(api, steps=["reconcile"])
        assert _run(stack, tenant.id, run_id).status == "done"
        calls = sum(1 for r in fake_claude.requests[asked:] if "same topic" in r["system"])
        return calls, [a for a in _actions(api, run_id) if a["action"] == "contradicts"]

    calls, [linked] = run_reconcile()
    assert calls == 1 and set(linked["memory_ids"]) == {ids["old"], ids["new"]}
    links = api.get(f"/v1/links?memory_id={ids['new']}&relation=contradicts").body["items"]
    assert [(link["from_id"], link["to_id"]) for link in links] == [(ids["new"], ids["old"])]
    assert api.patch(f"/v1/memories/{ids['new']}", {"importance": 0.9}).status == 200  # the verdict is stale
    calls, [again] = run_reconcile()  # asked again; the link it would write exists: no failure, no second link
    assert calls == 1 and set(again["memory_ids"]) == {ids["old"], ids["new"]}
    assert len(api.get(f"/v1/links?memory_id={ids['new']}&relation=contradicts").body["items"]) == 1


def test_llm_cap_stops_the_llm_steps_and_says_so(api, tenant, stack, drain, fake_claude, settings_env):
    _plant(api, drain, stack, tenant.id)
    settings_env(ENGRAM_CONSOLIDATION_LLM_RUN_CALLS="0")
    run_id = _start(api)
    assert _run(stack, tenant.id, run_id).status == "done"
    run = api.get(f"/v1/consolidation-runs/{run_id}").body
    assert run["llm_calls"] == 0 and "run call cap" in run["llm_capped"]
    assert not fake_claude.requests
    reconcile = next(c for c in run["step_counts"] if c["step"] == "reconcile")
    assert reconcile["candidates"] == 1 and "cap" in reconcile["skipped"]


def test_the_tenant_daily_cap_counts_every_llm_call_of_the_day(api, tenant, stack, drain, fake_claude, settings_env):
    _plant(api, drain, stack, tenant.id)
    settings_env(ENGRAM_CONSOLIDATION_LLM_DAILY_TOKENS="5000")
    with owner_connection(stack) as conn:  # today's earlier calls (query answers, other runs) used the allowance
        conn.execute(
            "INSERT INTO llm_usage (tenant_id, purpose, provider, model, input_tokens, output_tokens,"
            " latency_ms, ok) VALUES (%s, 'query_answer', 'anthropic', 'm', 4990, 10, 5, true)",
            (tenant.id,),
        )
    run_id = _start(api)
    assert _run(stack, tenant.id, run_id).status == "done"
    run = api.get(f"/v1/consolidation-runs/{run_id}").body
    assert run["llm_calls"] == 0 and run["llm_capped"] == "tenant daily token cap reached: 5000 tokens"
    assert not fake_claude.requests


def test_lifecycle_steps_promote_evict_and_drop(api, tenant, stack, drain, settings_env):
    settings_env(ENGRAM_CONSOLIDATION_BUFFER_CAP="2")
    made = {}
    for name, importance in (("keep", 0.9), ("weak", 0.2), ("weaker", 0.1), ("gone", 0.0), ("loved", 0.5)):
        reply = api.post(
            "/v1/memories",
            {"namespace": NS, "content": f"Fact number {name} about the fleet", "importance": importance},
        )
        made[name] = reply.body["memory"]["id"]
    with owner_connection(stack) as conn:
        conn.execute("UPDATE memories SET access_count = 5 WHERE id = %s", (made["loved"],))
    run_id = _start(api, steps=["promote", "buffer_cap", "drop_decayed"])
    assert _run(stack, tenant.id, run_id).status == "done"
    by_action: dict[str, list[str]] = {}
    for a in _actions(api, run_id):
        by_action.setdefault(a["action"], []).extend(a["memory_ids"])
    assert by_action["promote"] == [made["loved"]]
    assert api.get(f"/v1/memories/{made['loved']}").body["layer"] == "working"
    # Four left in the buffer, cap 2: the two lightest go to the trash ("gone" first).
    assert sorted(by_action["evict"]) == sorted([made["gone"], made["weaker"]])
    trash = {m["id"] for m in api.get(f"/v1/trash?namespace={NS}").body["items"]}
    assert trash == {made["gone"], made["weaker"]}
    assert "drop_decayed" not in by_action  # "gone" was evicted first
    assert api.post(f"/v1/consolidation-runs/{run_id}/undo").status == 200
    assert api.get(f"/v1/trash?namespace={NS}").body["items"] == []
    assert api.get(f"/v1/memories/{made['loved']}").body["layer"] == "buffer"


def test_routes_validate_and_isolate_tenants(api, tenant, make_tenant, api_for, settings_env):
    bad = api.post("/v1/consolidate", {"namespace": NS, "steps": ["decay", "explode"]})
    assert bad.status == 422 and "steps" in json.dumps(bad.body)
    assert api.post("/v1/consolidate", {"namespace": "bad namespace!"}).status == 422
    run_id = _start(api)
    busy = api.post("/v1/consolidate", {"namespace": NS})
    assert busy.status == 409 and busy.body["error"]["details"]["run_id"] == run_id
    assert _start(api, dry_run=True)  # a plan may always be asked for
    listed = api.get(f"/v1/consolidation-runs?namespace={NS}").body["items"]
    assert [r["id"] for r in listed][1] == run_id and listed[0]["dry_run"]
    assert api.post(f"/v1/consolidation-runs/{run_id}/undo").status == 409  # still queued
    stranger = api_for(make_tenant("tenant-b").key)
    assert stranger.get(f"/v1/consolidation-runs/{run_id}").status == 404
    assert stranger.post(f"/v1/consolidation-runs/{run_id}/undo").status == 404
    assert stranger.get("/v1/consolidation-runs").body["items"] == []
    reader = api_for(make_tenant("tenant-c", scopes=["read"]).key)
    assert reader.post("/v1/consolidate", {"namespace": NS}).status == 403
    # A read key of the run's own tenant sees the run but may neither start one nor undo it.
    issued = api.post("/v1/keys", {"scopes": ["read"], "name": "reader"})
    assert issued.status == 201, issued.body
    own_reader = api_for(issued.body["api_key"])
    assert own_reader.get(f"/v1/consolidation-runs/{run_id}").status == 200
    assert own_reader.post("/v1/consolidate", {"namespace": NS, "dry_run": True}).status == 403
    assert own_reader.post(f"/v1/consolidation-runs/{run_id}/undo").status == 403


VPN_A = "The VPN gateway for the Berlin office is vpn-ber-2.example.net."
VPN_B = "The Berlin office VPN gateway is vpn-ber-2.example.net; use the corp profile."


def test_llm_merge_rewrites_the_survivor_and_undo_brings_back_its_chunks_and_vectors(
    api, tenant, stack, drain, fake_claude
):
    fake_claude.merged = "The VPN gateway for the Berlin office is vpn-ber-2.example.net; use the corp profile."
    a = api.post("/v1/memories", {"namespace": NS, "content": VPN_A, "importance": 0.7}).body["memory"]["id"]
    b = api.post("/v1/memories", {"namespace": NS, "content": VPN_B, "importance": 0.4}).body["memory"]["id"]
    drain()
    before = tenant_rows(stack, tenant.id)
    run_id = _start(api, steps=["dedupe"])
    assert _run(stack, tenant.id, run_id).status == "done"
    (merge,) = [x for x in _actions(api, run_id) if x["action"] == "merge"]
    assert merge["details"]["survivor"] == a and merge["details"]["superseded"] == b
    assert "llm merge" in merge["reason"] and "content" in merge["details"]["changes"]
    survivor = api.get(f"/v1/memories/{a}").body
    assert survivor["content"] == fake_claude.merged and survivor["version"] == 2
    assert survivor["embedding_status"] == "pending"  # new chunks wait for their vectors
    drain()
    history = api.get(f"/v1/memories/{a}/history").body
    assert VPN_A in json.dumps(history)  # the text before the merge is kept as a version

    assert api.post(f"/v1/consolidation-runs/{run_id}/undo").status == 200
    assert tenant_rows(stack, tenant.id) == before  # old chunks back, vectors included


def test_gate_with_the_llm_and_with_the_heuristic(api, tenant, stack, drain, settings_env):
    made = {}
    for name, content, tags in (
        ("lesson", "Lesson learned: always pin the base image digest.", ["lesson"]),
        ("chatter", "The kitchen got a new kettle.", []),
        ("session", "Session note: worked on the importer.", ["session"]),
    ):
        reply = api.post("/v1/memories", {"namespace": NS, "content": content, "importance": 0.8, "tags": tags})
        made[name] = reply.body["memory"]["id"]
    with owner_connection(stack) as conn:
        conn.execute(
            "UPDATE memories SET layer = 'working', access_count = 4 WHERE id = ANY(%s::uuid[])",
            ([made["lesson"], made["chatter"]],),
        )
        conn.execute("UPDATE memories SET layer = 'core' WHERE id = %s", (made["session"],))
    run_id = _start(api, steps=["gate", "demote"])  # LLM off: the stated heuristic decides
    assert _run(stack, tenant.id, run_id).status == "done"
    acts = {x["memory_ids"][0]: x for x in _actions(api, run_id)}
    assert acts[made["lesson"]]["action"] == "gate_approve" and "heuristic" in acts[made["lesson"]]["reason"]
    assert acts[made["chatter"]]["action"] == "gate_reject"
    assert acts[made["chatter"]]["details"] == {"rejections": 1, "retry_epoch": 49}
    assert acts[made["session"]]["action"] == "demote"
    layers = {k: api.get(f"/v1/memories/{v}").body["layer"] for k, v in made.items()}
    assert layers == {"lesson": "core", "chatter": "working", "session": "working"}
    again = _start(api, steps=["gate"])  # the rejected memory waits out its cooldown
    assert _run(stack, tenant.id, again).status == "done"
    assert _actions(api, again) == []


def test_gate_asks_the_llm_when_it_is_on(api, tenant, stack, drain, fake_claude):
    lesson = api.post(
        "/v1/memories", {"namespace": NS, "content": "Lesson: never run migrations by hand.", "importance": 0.8}
    ).body["memory"]["id"]
    other = api.post(
        "/v1/memories", {"namespace": NS, "content": "The printer on floor 2 is out of toner.", "importance": 0.8}
    ).body["memory"]["id"]
    with owner_connection(stack) as conn:
        conn.execute(
            "UPDATE memories SET layer = 'working', access_count = 3 WHERE id = ANY(%s::uuid[])", ([lesson, other],)
        )
    plan = _start(api, dry_run=True, steps=["gate"])
    assert _run(stack, tenant.id, plan).status == "done"
    assert {x["action"] for x in _actions(api, plan)} == {"gate_candidate"} and not fake_claude.requests
    run_id = _start(api, steps=["gate"])
    assert _run(stack, tenant.id, run_id).status == "done"
    acts = {x["memory_ids"][0]: x["action"] for x in _actions(api, run_id)}
    assert acts == {lesson: "gate_approve", other: "gate_reject"}
    assert len(fake_claude.requests) == 2
    assert all(r["system"].startswith("You decide whether a memory") for r in fake_claude.requests)


def test_through_the_queue_the_stale_fact_leaves_recall_but_as_of_finds_it(
    api, tenant, stack, drain, fake_claude, drain_consolidation
):
    ids = _plant(api, drain, stack, tenant.id)
    run_id = _start(api)
    drain_consolidation()  # the worker, as the SQS event source mapping runs it
    run = api.get(f"/v1/consolidation-runs/{run_id}").body
    assert run["status"] == "done", run
    superseded_at = api.get(f"/v1/memories/{ids['old']}").body["valid_to"]
    assert superseded_at is not None
    question = "which branch does the payments service deploy from"
    assert ids["old"] not in _recall(api, question)
    assert ids["old"] in _recall(api, question, as_of=_before(superseded_at))


def _before(instant: str) -> str:
    from datetime import datetime, timedelta

    # valid_to is exclusive; a whole second earlier can be before the memory was written
    return (datetime.fromisoformat(instant.replace("Z", "+00:00")) - timedelta(microseconds=1)).isoformat()


def test_a_recall_raises_importance(api, tenant, drain, settings_env):
    memory = api.post("/v1/memories", {"namespace": NS, "content": OTHER, "importance": 0.5}).body["memory"]["id"]
    drain()
    reply = api.post("/v1/recall", {"query": "coffee machine descaled", "namespaces": [NS]})
    assert reply.body["results"][0]["memory_id"] == memory
    assert api.get(f"/v1/memories/{memory}").body["importance"] == pytest.approx(0.53, abs=1e-6)


def test_undo_is_refused_when_an_evicted_memory_has_a_new_twin(api, tenant, stack, settings_env):
    settings_env(ENGRAM_CONSOLIDATION_BUFFER_CAP="1")
    keep = api.post("/v1/memories", {"namespace": NS, "content": "Keep this one", "importance": 0.9}).body
    gone = api.post("/v1/memories", {"namespace": NS, "content": "Evict this one", "importance": 0.1}).body
    run_id = _start(api, steps=["buffer_cap"])
    assert _run(stack, tenant.id, run_id).status == "done"
    assert [m["id"] for m in api.get(f"/v1/trash?namespace={NS}").body["items"]] == [gone["memory"]["id"]]
    assert keep["memory"]["id"] not in [m["id"] for m in api.get(f"/v1/trash?namespace={NS}").body["items"]]
    twin = api.post("/v1/memories", {"namespace": NS, "content": "Evict this one"})
    assert twin.status == 201
    refused = api.post(f"/v1/consolidation-runs/{run_id}/undo")
    assert refused.status == 409 and gone["memory"]["id"] in refused.body["error"]["message"]
    assert api.get(f"/v1/consolidation-runs/{run_id}").body["status"] == "done"  # nothing was undone


def test_a_batch_ends_after_its_llm_calls_and_the_next_one_goes_on(api, tenant, stack, fake_claude, monkeypatch):
    from engram.consolidation import cycle

    monkeypatch.setattr(cycle, "LLM_CALLS_PER_BATCH", 1)
    ids = []
    for n in range(3):
        reply = api.post(
            "/v1/memories", {"namespace": NS, "content": f"Lesson {n}: pin every base image digest.", "importance": 0.8}
        )
        ids.append(reply.body["memory"]["id"])
    with owner_connection(stack) as conn:
        conn.execute("UPDATE memories SET layer = 'working', access_count = 3 WHERE id = ANY(%s::uuid[])", (ids,))
    run_id = _start(api, steps=["gate"])
    batches = 0
    while (progress := _run(stack, tenant.id, run_id, budget=0)).status == "continue":
        batches += 1
    assert progress.status == "done" and batches == 3  # one LLM call per batch
    acts = _actions(api, run_id)
    assert sorted(a["memory_ids"][0] for a in acts) == sorted(ids) and {a["action"] for a in acts} == {"gate_approve"}
    assert len(fake_claude.requests) == 3


def test_undo_is_refused_when_a_revived_link_would_overlap_one_written_since(api, tenant, stack, settings_env):
    settings_env(ENGRAM_CONSOLIDATION_BUFFER_CAP="1")
    keep = api.post("/v1/memories", {"namespace": NS, "content": "Linked keeper", "importance": 0.9}).body["memory"]
    gone = api.post("/v1/memories", {"namespace": NS, "content": "Linked evictee", "importance": 0.1}).body["memory"]
    link = {"from_id": gone["id"], "to_id": keep["id"], "relation": "relates_to"}
    first = api.post("/v1/links", link).body
    with owner_connection(stack) as conn:  # ended by a deletion while both ends are active (a lost revival)
        conn.execute(
            "UPDATE links SET ended_at = now(), ended_reason = 'memory_deleted', valid_to = now() WHERE id = %s",
            (first["id"],),
        )
    assert api.post("/v1/links", link).status == 201  # the same pair again, open-ended
    run_id = _start(api, steps=["buffer_cap"])
    assert _run(stack, tenant.id, run_id).status == "done"
    assert [m["id"] for m in api.get(f"/v1/trash?namespace={NS}").body["items"]] == [gone["id"]]
    refused = api.post(f"/v1/consolidation-runs/{run_id}/undo")
    assert refused.status == 409, refused.body
    assert gone["id"] in refused.body["error"]["message"] and "link" in refused.body["error"]["message"]
    assert api.get(f"/v1/consolidation-runs/{run_id}").body["status"] == "done"  # nothing was undone

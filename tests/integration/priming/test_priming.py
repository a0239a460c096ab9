"""Resume and prime through the HTTP API on a real PostgreSQL: the briefing's sections within their
budget, the namespace merged with `default`, and primed results spread over the task's topics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.owner_view import owner_connection

NS = "proj"
MEMORIES: dict[str, list[str]] = {
    "deploy": [
        "Deploy the payments service with terraform apply from the release branch.",
        "Run terraform plan and get a review before every production deploy.",
        "Payments deploys are frozen on Fridays after 14:00.",
        "A failed payments deploy is rolled back with the previous terraform state.",
    ],
    "database": [
        "The main database is PostgreSQL 16 on Aurora; schema migrations are plain SQL files.",
        "PostgreSQL schema migrations are reviewed by two people before they run.",
        "Long-running PostgreSQL migrations must use CREATE INDEX CONCURRENTLY to avoid table locks.",
        "A PostgreSQL migration that rewrites a large table needs a maintenance window.",
    ],
    "garden": [
        "Tomatoes in the greenhouse need watering every evening in July.",
        "Prune the apple tree in late winter before the buds open.",
        "The compost heap needs turning every two weeks.",
        "Slugs eat the lettuce seedlings unless the beds are ringed with copper.",
    ],
}


def _seed(api: Any, drain: Callable[[], Any], drain_consolidation: Callable[[], Any], stack: Any) -> dict[str, str]:
    ids: dict[str, str] = {}
    for subject, texts in MEMORIES.items():
        for text in texts:
            reply = api.post(
                "/v1/memories",
                {"namespace": NS, "content": text, "tags": ["trigger:deploy"] if subject == "deploy" else []},
            )
            assert reply.status == 201, reply.body
            ids[text] = reply.body["memory"]["id"]
    rule = api.post(
        "/v1/memories",
        {
            "content": "The user prefers answers in British English, short and direct.",
            "kind": "procedural",
            "importance": 0.9,
        },
    )
    ids["rule"] = rule.body["memory"]["id"]
    drain()
    with owner_connection(stack) as conn:  # the gate would take a few runs to promote these: core now
        conn.execute(
            "UPDATE memories SET layer = 'core' WHERE id = ANY(%s::uuid[])",
            ([ids["rule"], ids[MEMORIES["deploy"][2]]],),
        )
        conn.execute(
            "UPDATE memories SET updated_at = now() - interval '3 days' WHERE id = %s::uuid",
            (ids[MEMORIES["garden"][3]],),
        )
    reply = api.post("/v1/consolidate", {"namespace": NS, "steps": ["topics"]})
    assert reply.status == 202, reply.body
    drain_consolidation()
    return ids


def test_resume_has_four_sections_within_budget_and_reads_default_too(api, drain, drain_consolidation, stack):
    ids = _seed(api, drain, drain_consolidation, stack)
    reply = api.get(f"/v1/resume?namespace={NS}&budget_chars=3000&recent_hours=24")
    assert reply.status == 200, reply.body
    body = reply.body
    assert body["namespaces"] == [NS, "default"]
    assert body["core"][0]["memory_id"] == ids["rule"]  # procedural, important: heaviest
    assert {m["memory_id"] for m in body["core"]} == {ids["rule"], ids[MEMORIES["deploy"][2]]}
    recent = {m["memory_id"] for m in body["recent"]}
    assert ids[MEMORIES["garden"][0]] in recent and ids[MEMORIES["garden"][3]] not in recent  # 3 days old
    assert not recent & {m["memory_id"] for m in body["core"]}
    assert body["topics"] and all(t["member_count"] >= 1 for t in body["topics"])
    assert body["triggers"] == [{"trigger": "deploy", "access_count": 0, "memories": 4}]
    text = body["text"]
    assert len(text) == body["used_chars"] <= 3000
    for header in ("=== Core (2) ===", "=== Recent (24h) ===", "=== Topics", "=== Triggers ==="):
        assert header in text
    assert "British English" in text and "- deploy" in text

    plain = api.get(f"/v1/resume?namespace={NS}&budget_chars=3000&format=text")
    assert plain.status == 200 and plain.headers["content-type"].startswith("text/plain")
    assert plain.body == text


def test_resume_keeps_a_small_budget(api, drain, drain_consolidation, stack):
    _seed(api, drain, drain_consolidation, stack)
    for budget in (200, 450, 900):
        body = api.get(f"/v1/resume?namespace={NS}&budget_chars={budget}").body
        assert len(body["text"]) <= budget
        assert all(s["used_chars"] <= s["budget_chars"] for s in body["sections"].values())
    assert api.get("/v1/resume?budget_chars=100").status == 422
    assert api.get("/v1/resume?format=xml").status == 422


def test_prime_spreads_over_the_topics_of_the_task(api, drain, drain_consolidation, stack):
    ids = _seed(api, drain, drain_consolidation, stack)
    task = "I am about to ship a change to the payments service that needs a database migration."
    reply = api.post("/v1/prime", {"task": task, "namespace": NS, "budget_chars": 1200, "limit": 6})
    assert reply.status == 200, reply.body
    body = reply.body
    assert body["used_chars"] <= 1200
    got = [r["memory_id"] for r in body["results"]]
    assert len(got) == len(set(got)) >= 4
    deploy = {ids[t] for t in MEMORIES["deploy"]}
    database = {ids[t] for t in MEMORIES["database"]}
    assert set(got) & deploy and set(got) & database  # both sides of the task
    assert len({r["topic"]["id"] for r in body["results"] if r["topic"]}) >= 2
    assert body["topics"] and all(t["name"] for t in body["topics"])
    assert not set(got[:4]) & {ids[t] for t in MEMORIES["garden"]}


def test_prime_refuses_bad_input_and_sees_nothing_of_another_tenant(
    api, drain, drain_consolidation, stack, make_tenant, api_for
):
    _seed(api, drain, drain_consolidation, stack)
    for body, field in (
        ({"task": ""}, "task"),
        ({"task": " \n\t "}, "task"),
        ({"task": "x", "budget_chars": 10}, "budget_chars"),
        ({"task": "x", "limit": 0}, "limit"),
        ({"task": "x", "namespace": "bad ns"}, "namespace"),
    ):
        reply = api.post("/v1/prime", body)
        assert reply.status == 422 and field in str(reply.body["error"]), reply.body
    # Valid: words after more whitespace than recall's 4,000-character query holds.
    padded = api.post("/v1/prime", {"task": " " * 4500 + "payments deploy", "namespace": NS})
    assert padded.status == 200 and padded.body["results"], padded.body
    other = api_for(make_tenant("tenant-b").key)
    assert other.post("/v1/prime", {"task": "payments deploy", "namespace": NS}).body["results"] == []
    briefing = other.get(f"/v1/resume?namespace={NS}").body
    assert briefing["core"] == [] and briefing["topics"] == [] and briefing["text"] == ""

"""The topic tree through the HTTP API on a real PostgreSQL: memories on clearly different subjects,
a consolidation run, then the tree, lookups, a topic, recall by topic, and tenant isolation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.owner_view import owner_connection

NS = "kb"
SUBJECTS: dict[str, list[str]] = {
    "sourdough": [
        "Feed the sourdough starter with equal parts flour and water every morning.",
        "Sourdough bread needs a long cold proof in the fridge overnight for a sour crumb.",
        "Bake the sourdough loaf in a preheated dutch oven at 250C with the lid on.",
        "A sourdough starter that smells of acetone is hungry and needs feeding.",
        "Score the sourdough dough with a razor blade before it goes into the oven.",
        "Whole wheat flour makes the sourdough starter more active than white flour.",
    ],
    "kubernetes": [
        "The payments pods run on the Kubernetes cluster prod-eu with three replicas.",
        "Kubernetes liveness probes restart a pod when its health endpoint fails.",
        "Use kubectl rollout undo to roll back a bad Kubernetes deployment.",
        "Kubernetes namespaces separate the staging and production workloads.",
        "The Kubernetes horizontal pod autoscaler scales on CPU above 70 percent.",
        "Helm charts template the Kubernetes manifests of every service.",
    ],
    "birds": [
        "The robin sings at dawn from the top of the garden hedge.",
        "Blue tits nest in the wooden bird box on the oak tree every spring.",
        "Goldfinches come to the nyjer seed feeder in winter.",
        "A sparrowhawk hunts the small birds around the garden feeders.",
        "Swallows arrive from Africa in April and nest under the barn roof.",
        "The woodpecker drums on the dead branch of the old birch tree.",
    ],
}


def _write(api: Any, namespace: str = NS) -> dict[str, str]:
    subject_of = {}
    for subject, texts in SUBJECTS.items():
        for text in texts:
            reply = api.post("/v1/memories", {"namespace": namespace, "content": text})
            assert reply.status == 201, reply.body
            subject_of[reply.body["memory"]["id"]] = subject
    return subject_of


def _consolidate(api: Any, drain_consolidation: Callable[[], Any], namespace: str = NS) -> dict[str, Any]:
    reply = api.post("/v1/consolidate", {"namespace": namespace, "steps": ["topics"]})
    assert reply.status == 202, reply.body
    drain_consolidation()
    run = api.get(f"/v1/consolidation-runs/{reply.body['id']}")
    assert run.body["status"] == "done", run.body
    return run.body


def _leaves(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for n in nodes:
        out += [n] if n["is_leaf"] else _leaves(n["children"])
    return out


def _route(nodes: list[dict[str, Any]], topic_id: str) -> list[str]:
    """The ids from a top-level topic down to `topic_id` in a tree as GET /v1/topics shows it."""
    for n in nodes:
        if n["id"] == topic_id:
            return [topic_id]
        below = _route(n["children"], topic_id)
        if below:
            return [n["id"], *below]
    return []


def _members(api: Any, ids: list[str]) -> dict[str, set[str]]:
    reply = api.post("/v1/topics/lookup", {"ids": ids, "limit": 100})
    assert reply.status == 200, reply.body
    return {t["id"]: {m["memory_id"] for m in t["memories"]} for t in reply.body["topics"]}


def test_consolidation_builds_a_tree_that_separates_subjects_named_by_keywords(api, drain, drain_consolidation):
    subject_of = _write(api)
    drain()
    assert api.get(f"/v1/topics?namespace={NS}").body["topics"] == []  # no tree before the first run
    run = _consolidate(api, drain_consolidation)
    (action,) = [a for a in run["actions"]["items"] if a["step"] == "topics"]
    assert action["details"]["memories"] == 18

    tree = api.get(f"/v1/topics?namespace={NS}")
    assert tree.status == 200, tree.body
    assert tree.body["memories"] == 18 and tree.body["built_at"]
    leaves = _leaves(tree.body["topics"])
    members = _members(api, [leaf["id"] for leaf in leaves])
    assert sum(len(m) for m in members.values()) == 18
    for leaf in leaves:  # every leaf holds one subject only
        subjects = {subject_of[m] for m in members[leaf["id"]]}
        assert len(subjects) == 1, (leaf["name"], subjects)
        assert 2 <= len(leaf["keywords"]) <= 4 and leaf["named_by"] == "keywords"
        assert leaf["samples"]
    names = " ".join(leaf["name"] for leaf in leaves)
    assert "sourdough" in names and "kubernetes" in names

    # A topic by id: its path, children and members.
    first = leaves[0]
    one = api.get(f"/v1/topics/{first['id']}")
    assert one.status == 200, one.body
    assert one.body["path"][-1] == first["id"]
    for leaf in leaves:  # every leaf's path, from its top-level topic down
        assert api.get(f"/v1/topics/{leaf['id']}").body["path"] == _route(tree.body["topics"], leaf["id"])
    assert {m["memory_id"] for m in one.body["memories"]["memories"]} == members[first["id"]]

    # Recall inside a topic only.
    kube = next(leaf for leaf in leaves if "kubernetes" in leaf["name"])
    found = api.post(
        "/v1/recall", {"query": "how do I roll back", "namespace": NS, "topics": [kube["id"]], "touch": False}
    )
    assert found.status == 200, found.body
    assert found.body["results"]
    assert {r["memory_id"] for r in found.body["results"]} <= members[kube["id"]]


def test_ids_are_kept_across_rebuilds_and_unknown_ids_are_reported(api, drain, drain_consolidation):
    _write(api)
    drain()
    _consolidate(api, drain_consolidation)

    def leaf_of() -> dict[str, str]:
        leaves = _leaves(api.get(f"/v1/topics?namespace={NS}").body["topics"])
        return {m: tid for tid, members in _members(api, [leaf["id"] for leaf in leaves]).items() for m in members}

    before = leaf_of()
    _consolidate(api, drain_consolidation)  # nothing changed: the same tree, every id kept
    assert leaf_of() == before
    api.post("/v1/memories", {"namespace": NS, "content": "Kubernetes secrets hold the database password."})
    drain()
    _consolidate(api, drain_consolidation)
    now = leaf_of()
    kept = sum(1 for m, tid in before.items() if now.get(m) == tid)
    # Most memories stay; small fragments may move. How many move depends on the memories' random ids
    # (the clustering reads them in id order): 16-18 of 18 kept in 12 runs, 12 in one (0.7 failed it).
    assert kept >= 0.6 * len(before), (kept, before, now)
    after = set(now.values())
    reply = api.post("/v1/topics/lookup", {"ids": ["t999999", *sorted(after)], "limit": 1})
    assert reply.body["missing"] == ["t999999"]
    assert all(len(t["memories"]) == 1 for t in reply.body["topics"])
    assert any(t["next_offset"] == 1 for t in reply.body["topics"])
    assert api.get("/v1/topics/t999999").status == 404


def test_bad_requests_name_the_field(api):
    for body, field in (
        ({"ids": []}, "ids"),
        ({"ids": ["x1"]}, "ids"),
        ({"ids": ["t1"], "limit": 0}, "limit"),
        ({"ids": ["t1"], "extra": 1}, "extra"),
    ):
        reply = api.post("/v1/topics/lookup", body)
        assert reply.status == 422, reply.body
        assert field in str(reply.body["error"]), reply.body
    assert api.get("/v1/topics/nope").status in (404, 422)
    assert api.get("/v1/topics?depth=-1").status == 422


def test_tenant_b_sees_none_of_a_topics(api, drain, drain_consolidation, make_tenant, api_for, stack):
    _write(api)
    drain()
    _consolidate(api, drain_consolidation)
    ids = [leaf["id"] for leaf in _leaves(api.get(f"/v1/topics?namespace={NS}").body["topics"])]
    other = api_for(make_tenant("tenant-b").key)
    assert other.get(f"/v1/topics?namespace={NS}").body["topics"] == []
    assert other.post("/v1/topics/lookup", {"ids": ids}).body == {"topics": [], "missing": ids}
    assert other.get(f"/v1/topics/{ids[0]}").status == 404
    with owner_connection(stack) as conn:  # the rows exist: row-level security hides them
        assert conn.execute("SELECT count(*) FROM topics WHERE id = %s", (ids[0],)).fetchone()[0] >= 1


def test_new_memories_join_the_nearest_leaf_when_their_vectors_land(api, drain, drain_consolidation, stack):
    _write(api)
    drain()
    _consolidate(api, drain_consolidation)
    reply = api.post("/v1/memories", {"namespace": NS, "content": "Sourdough starter needs rye flour to wake up."})
    far = api.post("/v1/memories", {"namespace": NS, "content": "Quarterly VAT returns are due on the 7th."})
    drain()  # the embed worker fills the vectors, then places the memories in the tree
    leaves = _leaves(api.get(f"/v1/topics?namespace={NS}").body["topics"])
    members = _members(api, [leaf["id"] for leaf in leaves])
    home = next(t for t, m in members.items() if reply.body["memory"]["id"] in m)
    assert "sourdough" in next(leaf["name"] for leaf in leaves if leaf["id"] == home)
    assert next(leaf for leaf in leaves if leaf["id"] == home)["member_count"] >= 7
    alone = next(t for t, m in members.items() if far.body["memory"]["id"] in m)
    assert members[alone] == {far.body["memory"]["id"]}
    with owner_connection(stack) as conn:  # once each: a redelivered job places nothing twice
        assert (
            conn.execute(
                "SELECT count(*) FROM topic_members WHERE memory_id = %s", (reply.body["memory"]["id"],)
            ).fetchone()[0]
            == 1
        )


def _name_from_keywords(body: dict[str, Any]) -> str:
    """A naming answer: each topic of the prompt named from its keywords."""
    import json
    import re

    found = re.findall(r"^\[(t\d+)\] keywords: ([^,\n]+)", body["messages"][0]["content"], re.M)
    return json.dumps({tid: f"All about {kw.strip()}" for tid, kw in found})


def test_the_llm_names_new_topics_in_batches_and_unchanged_ones_keep_their_name(
    api, drain, drain_consolidation, stack, tenant, monkeypatch, fake_messages
):
    from engram_local.stack import LocalStack

    fake = fake_messages(_name_from_keywords, (200, 30))
    for key, value in {
        "ANTHROPIC_API_KEY": "sk-test",
        "ENGRAM_ANTHROPIC_BASE_URL": fake.url,
        "ENGRAM_LLM_LEVEL": "full",
        "ENGRAM_LLM_BACKOFF_S": "0.01",
    }.items():
        monkeypatch.setenv(key, value)
    LocalStack.refresh_settings()
    try:
        _write(api)
        drain()
        run = _consolidate(api, drain_consolidation)
        topics = api.get(f"/v1/topics?namespace={NS}").body["topics"]
        every = [t for t in _walk(topics)]
        assert every and all(t["named_by"] == "llm" and t["name"].startswith("All about ") for t in every)
        assert len(fake.requests) == -(-len(every) // 30)  # batches of 30
        assert run["llm_calls"] == len(fake.requests)
        with owner_connection(stack) as conn:
            assert conn.execute(
                "SELECT count(*) FROM llm_usage WHERE tenant_id = %s AND purpose = 'topic_naming'", (tenant.id,)
            ).fetchone()[0] == len(fake.requests)
        calls = len(fake.requests)
        _consolidate(api, drain_consolidation)  # nothing changed: names stand, no call
        assert len(fake.requests) == calls
        assert {t["name"] for t in _walk(api.get(f"/v1/topics?namespace={NS}").body["topics"])} == {
            t["name"] for t in every
        }
    finally:
        monkeypatch.undo()
        LocalStack.refresh_settings()


def _walk(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for n in nodes:
        out += [n, *_walk(n["children"])]
    return out


def test_purging_a_namespace_removes_its_tree(api, drain, drain_consolidation):
    _write(api)
    drain()
    _consolidate(api, drain_consolidation)
    ids = [leaf["id"] for leaf in _leaves(api.get(f"/v1/topics?namespace={NS}").body["topics"])]
    assert api.post(f"/v1/namespaces/{NS}/purge").status == 200
    tree = api.get(f"/v1/topics?namespace={NS}").body
    assert tree["topics"] == [] and tree["built_at"] is None
    assert api.post("/v1/topics/lookup", {"ids": ids}).body["missing"] == ids


def test_a_topic_path_runs_from_its_top_level_topic_down_within_the_tenant(api, make_tenant, stack, tenant):
    other = make_tenant("tenant-b")
    rows = [
        (tenant.id, "t1", None, 0, False),
        (tenant.id, "t2", "t1", 1, False),
        (tenant.id, "t3", "t2", 2, True),
        (other.id, "t8", None, 0, False),  # the other tenant's t2 hangs under its t8
        (other.id, "t2", "t8", 1, True),
    ]
    with owner_connection(stack) as conn, conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO topics (tenant_id, id, namespace, parent_id, depth, is_leaf, name, named_by, member_count)"
            " VALUES (%s, %s, 'default', %s, %s, %s, 'x', 'keywords', 0)",
            rows,
        )
    reply = api.get("/v1/topics/t3")
    assert reply.status == 200, reply.body
    assert reply.body["path"] == ["t1", "t2", "t3"]
    assert api.get("/v1/topics/t1").body["path"] == ["t1"]


def test_a_lookup_of_many_ids_pages_each_topic_as_a_lookup_of_one(api, drain, drain_consolidation):
    _write(api)
    drain()
    _consolidate(api, drain_consolidation)
    every = [t["id"] for t in _walk(api.get(f"/v1/topics?namespace={NS}").body["topics"])]
    assert len(every) >= 3
    for order in ("importance", "newest"):
        for offset in (0, 2):
            body = {"limit": 2, "offset": offset, "order": order, "summary_chars": 40}
            together = api.post("/v1/topics/lookup", {"ids": [*every, "t999999"], **body})
            assert together.status == 200, together.body
            assert [t["id"] for t in together.body["topics"]] == every
            assert together.body["missing"] == ["t999999"]
            for topic in together.body["topics"]:
                alone = api.post("/v1/topics/lookup", {"ids": [topic["id"]], **body}).body["topics"]
                assert alone == [topic]
    # Paging one topic to its end gives each member once, whichever other ids come along.
    top = max(_walk(api.get(f"/v1/topics?namespace={NS}").body["topics"]), key=lambda t: t["member_count"])
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        reply = api.post("/v1/topics/lookup", {"ids": [every[-1], top["id"]], "limit": 3, "offset": offset})
        (page,) = [t for t in reply.body["topics"] if t["id"] == top["id"]]
        seen += [m["memory_id"] for m in page["memories"]]
        offset = page["next_offset"]
    assert len(seen) == len(set(seen)) == top["member_count"]


TAX = [
    "Quarterly VAT returns for the company are filed with HMRC by the 7th of the second month.",
    "The VAT return needs the sales ledger and the purchase invoices of the quarter.",
    "Corporation tax is paid nine months and a day after the company's year end.",
    "The accountant files the company's VAT return online through the HMRC portal.",
]


def _tree_rows(stack: Any, tenant_id: str) -> tuple[list[tuple[Any, ...]], set[tuple[Any, ...]], int]:
    """Every topic row of the namespace, its leaf membership and the tree's version, as stored."""
    with owner_connection(stack) as conn:
        topics = conn.execute(
            "SELECT id, parent_id, depth, is_leaf, name, keywords, named_by, member_count, centroid::text,"
            " created_at FROM topics WHERE tenant_id = %s AND namespace = %s ORDER BY id",
            (tenant_id, NS),
        ).fetchall()
        members = conn.execute(
            "SELECT topic_id, memory_id::text, similarity FROM topic_members WHERE tenant_id = %s", (tenant_id,)
        ).fetchall()
        version = conn.execute(
            "SELECT version FROM topic_trees WHERE tenant_id = %s AND namespace = %s", (tenant_id, NS)
        ).fetchone()
    return topics, set(members), version[0] if version else 0


def test_undo_of_a_run_puts_the_previous_tree_back(api, drain, drain_consolidation, stack, tenant):
    _write(api)
    drain()
    first = _consolidate(api, drain_consolidation)
    for text in TAX:
        assert api.post("/v1/memories", {"namespace": NS, "content": text}).status == 201
    drain()  # placed into the first tree as their vectors land
    before_topics, before_members, before_version = _tree_rows(stack, tenant.id)
    second = _consolidate(api, drain_consolidation)
    rebuilt_topics, rebuilt_members, _ = _tree_rows(stack, tenant.id)
    assert (rebuilt_topics, rebuilt_members) != (before_topics, before_members)  # the rebuild changed it
    late = api.post("/v1/memories", {"namespace": NS, "content": "Kubernetes secrets hold the database password."})
    drain()  # placed into the rebuilt tree

    assert api.post(f"/v1/consolidation-runs/{second['id']}/undo").status == 200
    topics, members, version = _tree_rows(stack, tenant.id)
    late_id = late.body["memory"]["id"]
    assert {m for m in members if m[1] != late_id} == before_members  # ids, membership, similarities
    assert [m[1] for m in members].count(late_id) == 1  # the memory written since joins the old tree
    leaf_of_late = next(m[0] for m in members if m[1] == late_id)
    unchanged = [t for t in topics if t[0] != leaf_of_late]
    assert unchanged == [t for t in before_topics if t[0] != leaf_of_late]  # names, centroids, counts
    assert {t[0] for t in topics} >= {t[0] for t in before_topics}
    assert version > before_version + 1  # a reader caching by version sees the change
    tree = api.get(f"/v1/topics?namespace={NS}").body
    assert sum(leaf["member_count"] for leaf in _leaves(tree["topics"])) == len(members)

    # Undoing the first run too: there was no tree before it.
    assert api.post(f"/v1/consolidation-runs/{first['id']}/undo").status == 200
    assert _tree_rows(stack, tenant.id) == ([], set(), 0)
    assert api.get(f"/v1/topics?namespace={NS}").body["topics"] == []

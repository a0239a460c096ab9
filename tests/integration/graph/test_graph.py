"""The temporal graph through the HTTP API: links, duplicates, traversal bounds and cycles, tenant
isolation, point-in-time reads, delete/restore of memories, history and supersession."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

T1 = datetime(2026, 3, 1, tzinfo=UTC)
T2 = datetime(2026, 3, 10, tzinfo=UTC)


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def _memories(api, *contents: str, namespace: str = "graph") -> list[str]:
    ids = []
    for text in contents:
        r = api.post("/v1/memories", {"content": text, "namespace": namespace})
        assert r.status == 201, r.body
        ids.append(r.body["memory"]["id"])
    return ids


def _link(api, a: str, b: str, relation: str = "relates_to", **extra):
    return api.post("/v1/links", {"from_id": a, "to_id": b, "relation": relation, **extra})


def _reached(api, memory_id: str, query: str = "") -> list[str]:
    r = api.get(f"/v1/memories/{memory_id}/links{query}")
    assert r.status == 200, r.body
    return [n["memory"]["id"] for n in r.body["nodes"]]


def test_create_list_and_end_a_link(api):
    a, b = _memories(api, "Decision: use Postgres for the ledger.", "The ledger needs transactions.")
    r = _link(api, a, b, "caused_by", strength=0.7, metadata={"why": "review"})
    assert r.status == 201, r.body
    link = r.body
    assert (link["from_id"], link["to_id"], link["relation"]) == (a, b, "caused_by")
    assert link["strength"] == 0.7 and link["created_by"] == "api" and link["run_id"] is None
    assert link["valid_to"] is None and link["ended_at"] is None

    assert [x["id"] for x in api.get(f"/v1/links?memory_id={a}").body["items"]] == [link["id"]]
    assert api.get(f"/v1/links?memory_id={a}&direction=in").body["items"] == []
    assert api.get(f"/v1/links?memory_id={b}&relation=supersedes").body["items"] == []

    ended = api.delete(f"/v1/links/{link['id']}")
    assert ended.status == 200 and ended.body["ended_reason"] == "link_deleted"
    assert ended.body["valid_to"] is not None
    assert api.get(f"/v1/links?memory_id={a}").body["items"] == []
    history = api.get(f"/v1/links?memory_id={a}&include_ended=true").body["items"]
    assert [x["id"] for x in history] == [link["id"]]
    assert api.delete(f"/v1/links/{link['id']}").status == 404


def test_bad_links_are_refused_and_write_nothing(api):
    a, b = _memories(api, "alpha note", "beta note")
    self_link = _link(api, a, a)
    assert self_link.status == 422 and self_link.body["error"]["details"]["field"] == "to_id"
    unknown = _link(api, a, b, "likes")
    assert unknown.status == 422 and unknown.body["error"]["details"]["field"] == "relation"
    assert _link(api, a, b, strength=1.5).status == 422
    backwards = _link(api, a, b, valid_from=_iso(T2), valid_to=_iso(T1))
    assert backwards.status == 422 and backwards.body["error"]["details"]["field"] == "valid_to"
    past = _link(api, a, b, valid_to=_iso(T1))  # starts now by default, so it would end before it starts
    assert past.status == 422 and past.body["error"]["details"]["field"] == "valid_to"
    missing = _link(api, a, "00000000-0000-4000-8000-000000000000")
    assert missing.status == 404
    assert api.get(f"/v1/links?memory_id={a}&include_ended=true").body["items"] == []


def test_duplicate_links_are_a_conflict_unless_their_validity_is_disjoint(api):
    a, b = _memories(api, "gamma note", "delta note")
    assert _link(api, a, b).status == 201
    dup = _link(api, a, b)
    assert dup.status == 409, dup.body
    assert _link(api, a, b, "implements").status == 201  # another relation is another link
    assert _link(api, b, a).status == 201  # and the other direction too

    c, d = _memories(api, "epsilon note", "zeta note")
    assert _link(api, c, d, valid_from=_iso(T1), valid_to=_iso(T2)).status == 201
    overlapping = _link(api, c, d, valid_from=_iso(T1 + timedelta(days=2)), valid_to=_iso(T2 + timedelta(days=2)))
    assert overlapping.status == 409
    open_ended = _link(api, c, d, valid_from=_iso(T1 - timedelta(days=5)))
    assert open_ended.status == 409
    # [T1, T2) and [T2, ...) only touch: no overlap
    assert _link(api, c, d, valid_from=_iso(T2)).status == 201


def test_batch_links_report_per_item(api):
    a, b, c = _memories(api, "batch one", "batch two", "batch three")
    r = api.post(
        "/v1/links/batch",
        {
            "items": [
                {"from_id": a, "to_id": b, "relation": "part_of"},
                {"from_id": a, "to_id": a, "relation": "part_of"},
                {"from_id": a, "to_id": b, "relation": "part_of"},
                {"from_id": b, "to_id": c, "relation": "nonsense"},
                {"from_id": b, "to_id": c, "relation": "part_of"},
            ]
        },
    )
    assert r.status == 200, r.body
    assert [x["status"] for x in r.body["results"]] == ["created", "error", "error", "error", "created"]
    assert r.body["results"][2]["error"]["code"] == "conflict"
    assert r.body["results"][3]["error"]["details"]["field"] == "relation"
    assert (r.body["created"], r.body["failed"]) == (2, 3)
    assert len(api.get(f"/v1/links?memory_id={b}").body["items"]) == 2
    # overlapping bounded links inside one batch: the second sees the first
    bounded = {"from_id": c, "to_id": a, "relation": "reverts", "valid_to": _iso(T2)}
    r = api.post(
        "/v1/links/batch",
        {"items": [{**bounded, "valid_from": _iso(T1)}, {**bounded, "valid_from": _iso(T1 + timedelta(days=1))}]},
    )
    assert [x["status"] for x in r.body["results"]] == ["created", "error"], r.body
    clean = api.post(
        "/v1/links/batch",
        {
            "items": [
                {"from_id": c, "to_id": a, "relation": "relates_to"},
                {"from_id": c, "to_id": b, "relation": "relates_to"},
            ]
        },
    )
    assert [x["link"]["to_id"] for x in clean.body["results"]] == [a, b]
    too_many = api.post("/v1/links/batch", {"items": [{"from_id": a, "to_id": b, "relation": "part_of"}] * 101})
    assert too_many.status == 422


def test_traversal_is_cycle_safe_and_reports_paths(api):
    a, b, c, d = _memories(api, "cycle a", "cycle b", "cycle c", "cycle d")
    for x, y in ((a, b), (b, c), (c, a), (c, d)):
        assert _link(api, x, y).status == 201
    r = api.get(f"/v1/memories/{a}/links?depth=5&direction=out")
    assert r.status == 200, r.body
    nodes = r.body["nodes"]
    assert [n["memory"]["id"] for n in nodes] == [b, c, d]  # each once, nearest first; a is the root
    assert [n["depth"] for n in nodes] == [1, 2, 3]
    assert nodes[2]["path"] == [a, b, c, d]
    assert nodes[2]["via"]["from_id"] == c and nodes[2]["via"]["to_id"] == d
    assert r.body["root"]["id"] == a and r.body["truncated"] is False
    # both directions: c is one step back from a (c -> a)
    both = api.get(f"/v1/memories/{a}/links?depth=1").body["nodes"]
    assert {n["memory"]["id"] for n in both} == {b, c}
    assert _reached(api, a, "?depth=1&direction=in") == [c]


def test_traversal_is_bounded_by_depth_and_node_limit(api):
    chain = _memories(api, *[f"chain link {i}" for i in range(7)])
    for x, y in itertools.pairwise(chain):
        assert _link(api, x, y, "derived_from").status == 201
    assert _reached(api, chain[0], "?depth=2") == chain[1:3]
    assert _reached(api, chain[0], "?depth=5") == chain[1:6]
    hub, *leaves = _memories(api, *[f"star {i}" for i in range(6)])
    for i, leaf in enumerate(leaves):
        assert _link(api, hub, leaf, strength=round(0.1 * (i + 1), 1)).status == 201
    r = api.get(f"/v1/memories/{hub}/links?limit=3").body
    assert r["truncated"] is True
    assert [n["memory"]["id"] for n in r["nodes"]] == leaves[::-1][:3]  # strongest links first
    assert api.get(f"/v1/memories/{hub}/links?limit=5").body["truncated"] is False
    assert api.get(f"/v1/memories/{hub}/links?depth=6").status == 422
    assert api.get(f"/v1/memories/{hub}/links?depth=0").status == 422
    assert api.get(f"/v1/memories/{hub}/links?limit=501").status == 422
    assert _reached(api, hub, "?relation=supersedes") == []


def test_a_tenant_cannot_link_see_or_traverse_another_tenants_memories(api, make_tenant, api_for):
    other = api_for(make_tenant("graph-b").key)
    a1, a2 = _memories(api, "tenant A private one", "tenant A private two")
    (b1,) = _memories(other, "tenant B note")
    link = _link(api, a1, a2).body
    # B links its memory to A's: 404, the same as a memory that does not exist
    assert _link(other, b1, a1).status == 404
    assert _link(other, a1, a2).status == 404
    assert other.get(f"/v1/memories/{a1}/links").status == 404
    assert other.get(f"/v1/memories/{a1}/history").status == 404
    assert other.get(f"/v1/links?memory_id={a1}&include_ended=true").body["items"] == []
    assert other.get("/v1/links?include_ended=true").body["items"] == []
    assert other.delete(f"/v1/links/{link['id']}").status == 404
    # A's view is intact
    assert _reached(api, a1) == [a2]


def test_as_of_reads_the_links_valid_at_that_instant(api):
    a, b = _memories(api, "as-of source", "as-of target")
    assert _link(api, a, b, valid_from=_iso(T1), valid_to=_iso(T2)).status == 201
    at = lambda t: _reached(api, a, f"?as_of={quote(_iso(t))}")  # noqa: E731
    assert at(T1 - timedelta(microseconds=1)) == []
    assert at(T1) == [b]  # valid_from is inclusive
    assert at(T2 - timedelta(microseconds=1)) == [b]
    assert at(T2) == []  # valid_to is exclusive
    assert _reached(api, a) == []  # now: long expired


def test_deleting_a_memory_ends_its_links_and_restoring_brings_exactly_those_back(api):
    a, b, c, d = _memories(api, "restore a", "restore b", "restore c", "restore d")
    ab = _link(api, a, b).body
    ca = _link(api, c, a, "caused_by").body
    ad = _link(api, a, d).body
    assert api.delete(f"/v1/links/{ad['id']}").status == 200  # ended for another reason

    assert api.delete(f"/v1/memories/{a}").status == 200
    assert _reached(api, b) == [] and _reached(api, c) == []
    ended = {x["id"]: x for x in api.get(f"/v1/links?memory_id={a}&include_ended=true").body["items"]}
    assert ended[ab["id"]]["ended_reason"] == "memory_deleted" and ended[ab["id"]]["valid_to"] is not None
    assert ended[ad["id"]]["ended_reason"] == "link_deleted"

    # d goes to the trash too, then a comes back: a-b and c-a return, a-d (ended earlier) does not
    assert api.delete(f"/v1/memories/{d}").status == 200
    assert api.post(f"/v1/memories/{a}/restore").status == 200
    live = {x["id"]: x for x in api.get(f"/v1/links?memory_id={a}").body["items"]}
    assert set(live) == {ab["id"], ca["id"]}
    assert live[ab["id"]]["valid_to"] is None and live[ab["id"]]["ended_reason"] is None
    assert set(_reached(api, a)) == {b, c}


def test_a_link_ended_by_the_other_memorys_delete_waits_for_both(api):
    a, b = _memories(api, "both ends a", "both ends b")
    ab = _link(api, a, b).body
    assert api.delete(f"/v1/memories/{b}").status == 200
    assert api.delete(f"/v1/memories/{a}").status == 200
    assert api.post(f"/v1/memories/{a}/restore").status == 200
    assert api.get(f"/v1/links?memory_id={a}").body["items"] == []  # b is still in the trash
    assert api.post(f"/v1/memories/{b}/restore").status == 200
    assert [x["id"] for x in api.get(f"/v1/links?memory_id={a}").body["items"]] == [ab["id"]]


def test_history_keeps_every_version_after_patches(api):
    (m,) = _memories(api, "The deploy window is Tuesday.")
    assert api.patch(f"/v1/memories/{m}", {"content": "The deploy window is Wednesday."}).status == 200
    assert api.patch(f"/v1/memories/{m}", {"tags": ["deploy"], "importance": 0.9}).status == 200
    r = api.get(f"/v1/memories/{m}/history")
    assert r.status == 200, r.body
    versions = r.body["versions"]
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert [v["content"] for v in versions] == [
        "The deploy window is Tuesday.",
        "The deploy window is Wednesday.",
        "The deploy window is Wednesday.",
    ]
    assert versions[1]["tags"] == [] and versions[2]["tags"] == ["deploy"] and versions[2]["importance"] == 0.9
    assert versions[0]["changed_at"] is not None and versions[2]["changed_at"] is None
    assert r.body["supersedes"] == [] and r.body["superseded_by"] == []
    assert api.get("/v1/memories/00000000-0000-4000-8000-000000000000/history").status == 404


def test_history_leaves_out_versions_of_an_undone_change(api, stack):
    import psycopg

    (m,) = _memories(api, "Rotate the keys monthly.")
    assert api.patch(f"/v1/memories/{m}", {"content": "Rotate the keys weekly."}).status == 200
    # what a consolidation undo does: the row as it was, version included
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("UPDATE memories SET content = 'Rotate the keys monthly.', version = 1 WHERE id = %s", (m,))
    versions = api.get(f"/v1/memories/{m}/history").body["versions"]
    assert [(v["version"], v["content"]) for v in versions] == [(1, "Rotate the keys monthly.")]
    assert api.patch(f"/v1/memories/{m}", {"content": "Rotate the keys daily."}).status == 200
    versions = api.get(f"/v1/memories/{m}/history").body["versions"]
    assert [(v["version"], v["content"]) for v in versions] == [
        (1, "Rotate the keys monthly."),
        (2, "Rotate the keys daily."),
    ]


def test_supersedes_ends_the_older_memory_and_forms_a_chain_both_ways(api):
    old = api.post("/v1/memories", {"content": "We chose PostgreSQL.", "namespace": "graph"}).body["memory"]
    mid = api.post(
        "/v1/memories", {"content": "We moved to SQLite.", "namespace": "graph", "valid_from": _iso(T1)}
    ).body["memory"]
    new = api.post("/v1/memories", {"content": "We are back on PostgreSQL.", "namespace": "graph"}).body["memory"]
    assert _link(api, mid["id"], old["id"], "supersedes").status == 201
    # the older memory stops being valid when the newer one starts (its valid_from)
    assert api.get(f"/v1/memories/{old['id']}").body["valid_to"].startswith("2026-03-01T00:00:00")
    r = _link(api, new["id"], mid["id"], "supersedes")
    assert r.status == 201
    # no valid_from on the newer memory: the link's start (now)
    assert api.get(f"/v1/memories/{mid['id']}").body["valid_to"] == r.body["valid_from"]

    h = api.get(f"/v1/memories/{mid['id']}/history").body
    assert [x["memory"]["id"] for x in h["supersedes"]] == [old["id"]]
    assert [x["memory"]["id"] for x in h["superseded_by"]] == [new["id"]]
    newest = api.get(f"/v1/memories/{new['id']}/history").body
    assert [x["memory"]["id"] for x in newest["supersedes"]] == [old["id"], mid["id"]]  # oldest first
    oldest = api.get(f"/v1/memories/{old['id']}/history").body
    assert [x["memory"]["id"] for x in oldest["superseded_by"]] == [mid["id"], new["id"]]

    # ending the link gives the older memory its validity back
    assert api.delete(f"/v1/links/{r.body['id']}").status == 200
    assert api.get(f"/v1/memories/{mid['id']}").body["valid_to"] is None


def _recall(api, **body):
    r = api.post("/v1/recall", {"mode": "keyword", "namespace": "graph-recall", "touch": False, **body})
    assert r.status == 200, r.body
    return r.body


def test_recall_as_of_reads_what_was_valid_at_that_instant(api):
    ns = {"namespace": "graph-recall"}
    early = api.post(
        "/v1/memories",
        {"content": "Freeze policy: deploys pause on Fridays.", **ns, "valid_from": _iso(T1), "valid_to": _iso(T2)},
    ).body["memory"]
    late = api.post(
        "/v1/memories", {"content": "Freeze policy: deploys pause on Mondays.", **ns, "valid_from": _iso(T2)}
    ).body["memory"]
    found = lambda **kw: [h["memory_id"] for h in _recall(api, query="freeze policy deploys", **kw)["results"]]  # noqa: E731
    assert found() == [late["id"]]  # now: the early one expired
    assert found(as_of=_iso(T1 - timedelta(microseconds=1))) == []
    assert found(as_of=_iso(T1)) == [early["id"]]  # valid_from inclusive
    assert found(as_of=_iso(T2 - timedelta(microseconds=1))) == [early["id"]]
    assert found(as_of=_iso(T2)) == [late["id"]]  # valid_to exclusive
    both = api.post("/v1/recall", {"query": "freeze", "as_of": _iso(T1), "include_expired": True})
    assert both.status == 422


def test_recall_flags_contradictions_and_expands_links_within_the_budget(api):
    ns = {"namespace": "graph-recall"}
    claim = api.post("/v1/memories", {"content": "The billing service retries failed charges three times.", **ns})
    counter = api.post("/v1/memories", {"content": "Payments are never retried automatically; ops decide.", **ns})
    cause = api.post("/v1/memories", {"content": "An outage in 2025 double-charged customers.", **ns})
    claim_id, counter_id, cause_id = (x.body["memory"]["id"] for x in (claim, counter, cause))
    assert _link(api, counter_id, claim_id, "contradicts").status == 201
    assert _link(api, counter_id, cause_id, "caused_by").status == 201

    plain = _recall(api, query="billing service retries charges")
    hit = next(h for h in plain["results"] if h["memory_id"] == claim_id)
    assert [c["memory_id"] for c in hit["conflicts"]] == [counter_id]  # flagged without asking
    assert hit["conflicts"][0]["relation"] == "contradicts" and hit["conflicts"][0]["direction"] == "in"
    assert hit["conflicts"][0]["summary"].startswith("Payments are never retried")
    assert hit["linked"] is None

    expanded = _recall(api, query="billing service retries charges", expand={"depth": 2})
    hit = next(h for h in expanded["results"] if h["memory_id"] == claim_id)
    linked = {n["memory_id"]: n for n in hit["linked"]}
    # the contradicting memory is shown (and its summary charged) once, in conflicts
    assert set(linked) == {cause_id} and [c["memory_id"] for c in hit["conflicts"]] == [counter_id]
    assert linked[cause_id]["depth"] == 2 and linked[cause_id]["path"] == [claim_id, counter_id, cause_id]
    assert linked[cause_id]["relation"] == "caused_by" and linked[cause_id]["direction"] == "out"
    only = _recall(api, query="billing service retries charges", expand={"relations": ["caused_by"]})
    assert next(h for h in only["results"] if h["memory_id"] == claim_id)["linked"] == []

    # a tight budget: results' text first, then conflicts, then links; every flag stays
    tight = _recall(api, query="billing service retries charges", limit=1, budget_chars=100, expand={"depth": 2})
    (hit,) = tight["results"]
    assert hit["memory_id"] == claim_id
    assert tight["used_chars"] <= 100
    assert [c["memory_id"] for c in hit["conflicts"]] == [counter_id]
    text = len(hit["chunk"]["text"]) + sum(len(n["summary"] or "") for n in hit["conflicts"] + hit["linked"])
    assert text == tight["used_chars"]
    assert [n["memory_id"] for n in hit["linked"]] == [cause_id] and hit["linked"][0]["summary"] is None
    # with room for everything, each summary is charged once
    roomy = _recall(api, query="billing service retries charges", limit=1, budget_chars=5000, expand={"depth": 2})
    (hit,) = roomy["results"]
    counter_text = "Payments are never retried automatically; ops decide."
    cause_text = "An outage in 2025 double-charged customers."
    assert roomy["used_chars"] == len(hit["chunk"]["text"]) + len(counter_text) + len(cause_text)

    # ending the contradiction ends the flag; recall as of before it started does not flag it either
    link_id = api.get(f"/v1/links?memory_id={claim_id}&relation=contradicts").body["items"][0]["id"]
    assert api.delete(f"/v1/links/{link_id}").status == 200
    after = _recall(api, query="billing service retries charges")
    assert next(h for h in after["results"] if h["memory_id"] == claim_id)["conflicts"] == []


def test_recall_expansion_stays_inside_the_tenant(api, make_tenant, api_for, stack):
    import psycopg

    other = api_for(make_tenant("graph-recall-b").key)
    mine, my_plan = _memories(
        api, "Quarterly roadmap draft for the search team.", "Hiring plan, second half.", namespace="graph-recall"
    )
    theirs = _memories(
        other, "Quarterly roadmap draft for the search team, their copy.", "their secret plan", namespace="graph-recall"
    )
    assert _link(api, mine, my_plan, "relates_to").status == 201
    assert _link(other, theirs[0], theirs[1], "contradicts").status == 201
    # across tenants: refused either way, as if the other memory did not exist
    assert _link(api, mine, theirs[1], "relates_to").status == 404
    assert _link(other, theirs[1], mine, "contradicts").status == 404
    # and should such links exist anyway (written past the trigger), recall still shows none of theirs
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")  # no triggers: the tenant check is one
        tenant_of_mine = conn.execute("SELECT tenant_id FROM memories WHERE id = %s", (mine,)).fetchone()[0]
        for relation, far in (("relates_to", theirs[1]), ("contradicts", theirs[0])):
            conn.execute(
                "INSERT INTO links (tenant_id, from_id, to_id, relation) VALUES (%s, %s, %s, %s)",
                (tenant_of_mine, mine, far, relation),
            )
    body = _recall(api, query="quarterly roadmap search team", expand={"depth": 3})
    assert [h["memory_id"] for h in body["results"]] == [mine]
    assert body["results"][0]["conflicts"] == []
    assert [n["memory_id"] for n in body["results"][0]["linked"]] == [my_plan]
    theirs_body = _recall(other, query="quarterly roadmap search team", expand={"depth": 3})
    assert [h["memory_id"] for h in theirs_body["results"]] == [theirs[0]]
    assert [c["memory_id"] for c in theirs_body["results"][0]["conflicts"]] == [theirs[1]]
    assert theirs_body["results"][0]["linked"] == []  # the contradiction is shown once, in conflicts


def test_recall_as_of_applies_to_conflicts_and_expansion(api):
    now = datetime.now(UTC)
    ns = {"namespace": "graph-asof"}
    claim = api.post("/v1/memories", {"content": "The search cluster has three nodes.", **ns}).body["memory"]["id"]
    soon = _iso(now + timedelta(days=5))
    counter = api.post("/v1/memories", {"content": "The cluster grows to five.", **ns, "valid_from": soon})
    plan = api.post("/v1/memories", {"content": "Capacity plan for next quarter.", **ns, "valid_from": soon})
    gone = api.post(
        "/v1/memories",
        {"content": "Old sizing note.", **ns, "valid_from": _iso(T1), "valid_to": _iso(T2)},
    )
    counter_id, plan_id, gone_id = (x.body["memory"]["id"] for x in (counter, plan, gone))
    assert _link(api, counter_id, claim, "contradicts").status == 201
    assert _link(api, claim, plan_id, "relates_to").status == 201
    assert _link(api, claim, gone_id, "relates_to").status == 201

    def hit(**body):
        found = _recall(api, query="search cluster nodes", namespace="graph-asof", expand={"depth": 1}, **body)
        return next(h for h in found["results"] if h["memory_id"] == claim)

    now_hit = hit()  # neither the counter claim nor the plan holds yet; the sizing note has expired
    assert now_hit["conflicts"] == [] and now_hit["linked"] == []
    later = hit(as_of=_iso(now + timedelta(days=6)))
    assert [c["memory_id"] for c in later["conflicts"]] == [counter_id]
    assert [n["memory_id"] for n in later["linked"]] == [plan_id]
    expired = hit(include_expired=True)
    assert expired["conflicts"] == [] and [n["memory_id"] for n in expired["linked"]] == [gone_id]


def test_recall_expand_relations_may_not_be_empty(api):
    r = api.post("/v1/recall", {"query": "anything", "expand": {"relations": []}})
    assert r.status == 422, r.body
    assert r.body["error"]["details"]["field"] == "expand.relations"


def test_concurrent_overlapping_links_let_exactly_one_in(api, tenant):
    import concurrent.futures
    from uuid import UUID

    from engram.core.errors import Conflict
    from engram.graph import service as graph
    from engram.graph.models import LinkCreate

    a, b = _memories(api, "race source", "race target")
    specs = [
        LinkCreate.model_validate(
            {
                "from_id": a,
                "to_id": b,
                "relation": "relates_to",
                "valid_from": _iso(T1 + timedelta(hours=i)),
                "valid_to": _iso(T2 + timedelta(hours=i)),
            }
        )
        for i in range(8)
    ]

    def create(spec: LinkCreate) -> str:
        try:
            graph.create_link(UUID(tenant.id), spec)  # each thread has its own connection
            return "created"
        except Conflict:
            return "conflict"

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(create, specs))
    assert sorted(outcomes) == ["conflict"] * 7 + ["created"]
    assert len(api.get(f"/v1/links?memory_id={a}&include_ended=true").body["items"]) == 1


class Rendezvous:
    """Two threads, each in its own transaction on its own connection, meet at one point of it:
    each waits there until the other has arrived too, has finished, or waits for a lock. So when
    a lock serialises them the first goes on alone; without one both are inside at once."""

    def __init__(self, dsn: str) -> None:
        import threading

        import psycopg

        self.monitor = psycopg.connect(dsn, autocommit=True)
        self.guard = threading.Lock()
        self.arrived: set[int] = set()
        self.done: set[int] = set()
        self.pids: dict[int, int] = {}
        self.who: dict[int, int] = {}

    def run(self, me: int, work):
        """Run `work()` in this thread as participant `me` (0 or 1)."""
        import threading

        from engram.core.db import connection

        self.who[threading.get_ident()] = me
        self.pids[me] = connection().info.backend_pid
        try:
            return work()
        finally:
            self.done.add(me)

    def meet(self) -> None:
        import threading
        import time

        me = self.who[threading.get_ident()]
        other = 1 - me
        self.arrived.add(me)
        while other not in self.arrived and other not in self.done:
            with self.guard:
                waiting = self.monitor.execute(
                    "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = %s", (self.pids.get(other, 0),)
                ).fetchone()
            if waiting and waiting[0]:
                return
            time.sleep(0.005)

    def both(self, first, second) -> list:
        import concurrent.futures

        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            futures = [pool.submit(self.run, 0, first), pool.submit(self.run, 1, second)]
            outcomes = []
            for f in futures:
                try:
                    outcomes.append(f.result())
                except Exception as exc:  # the test looks at what each one got
                    outcomes.append(exc)
        self.monitor.close()
        return outcomes


def test_concurrent_supersedes_links_onto_one_memory_take_turns(api, tenant, stack, monkeypatch):
    from uuid import UUID

    from engram.graph import service as graph
    from engram.graph import store as graph_store
    from engram.graph.models import LinkCreate

    old, x, y = _memories(api, "turns: the old plan", "turns: plan x", "turns: plan y")
    rendezvous = Rendezvous(stack.dsn)
    insert_links = graph_store.insert_links

    def meeting_first(*args, **kwargs):  # both writers hold their memory locks here
        rendezvous.meet()
        return insert_links(*args, **kwargs)

    monkeypatch.setattr(graph_store, "insert_links", meeting_first)

    def supersede(newer: str):
        spec = LinkCreate.model_validate({"from_id": newer, "to_id": old, "relation": "supersedes"})
        return lambda: graph.create_link(UUID(tenant.id), spec)

    outcomes = rendezvous.both(supersede(x), supersede(y))
    assert [type(o).__name__ for o in outcomes] == ["Link", "Link"], outcomes
    # the older memory ends when the first of the two newer ones starts, whichever committed first
    valid_to = datetime.fromisoformat(api.get(f"/v1/memories/{old}").body["valid_to"])
    assert valid_to == min(o.valid_from for o in outcomes)
    assert {x["memory"]["id"] for x in api.get(f"/v1/memories/{old}/history").body["superseded_by"]} == {x, y}


def test_concurrent_restores_of_both_ends_revive_their_link(api, tenant, stack, monkeypatch):
    from uuid import UUID

    from engram.memories import service as memories

    a, b = _memories(api, "revive together a", "revive together b")
    ab = _link(api, a, b).body
    assert api.delete(f"/v1/memories/{a}").status == 200 and api.delete(f"/v1/memories/{b}").status == 200
    rendezvous = Rendezvous(stack.dsn)
    read_memory = memories.read_memory

    def meeting_first(*args, **kwargs):  # each restore has set its memory active, not yet committed
        rendezvous.meet()
        return read_memory(*args, **kwargs)

    monkeypatch.setattr(memories, "read_memory", meeting_first)
    outcomes = rendezvous.both(
        lambda: memories.restore_memory(UUID(tenant.id), UUID(a)),
        lambda: memories.restore_memory(UUID(tenant.id), UUID(b)),
    )
    assert [str(o.id) for o in outcomes] == [a, b], outcomes
    live = api.get(f"/v1/links?memory_id={a}").body["items"]
    assert [x["id"] for x in live] == [ab["id"]] and live[0]["valid_to"] is None


def test_restoring_a_memory_whose_ended_link_overlaps_a_newer_one_is_a_conflict(api, stack):
    import psycopg

    a, b = _memories(api, "overlap on restore a", "overlap on restore b")
    first = _link(api, a, b).body
    # a link ended by a deletion while both ends are active (what a lost revival left behind)
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute(
            "UPDATE links SET ended_at = now(), ended_reason = 'memory_deleted', valid_to = now() WHERE id = %s",
            (first["id"],),
        )
    assert _link(api, a, b).status == 201  # the same triple again, open-ended
    assert api.delete(f"/v1/memories/{a}").status == 200
    r = api.post(f"/v1/memories/{a}/restore")
    assert r.status == 409, r.body
    assert a in r.body["error"]["message"] and "relates_to" in r.body["error"]["message"]
    assert api.get(f"/v1/memories/{a}").status == 404  # still in the trash: nothing of the restore kept


def test_the_older_memory_is_current_while_the_newer_one_is_in_the_trash(api):
    old, new = _memories(api, "Trash rule: the office opens at 8.", "Trash rule: the office opens at 9.")
    assert _link(api, new, old, "supersedes").status == 201
    closed = api.get(f"/v1/memories/{old}").body["valid_to"]
    assert closed is not None

    def found() -> list[str]:
        return [h["memory_id"] for h in _recall(api, query="trash rule office opens", namespace="graph")["results"]]

    assert api.delete(f"/v1/memories/{new}").status == 200
    assert api.get(f"/v1/memories/{old}").body["valid_to"] is None
    assert found() == [old]
    assert api.post(f"/v1/memories/{new}/restore").status == 200
    assert api.get(f"/v1/memories/{old}").body["valid_to"] == closed
    assert found() == [new]

    # the older one trashed and restored: the link comes back with its effect
    assert api.delete(f"/v1/memories/{old}").status == 200
    assert api.post(f"/v1/memories/{old}/restore").status == 200
    assert api.get(f"/v1/memories/{old}").body["valid_to"] == closed


def test_supersedes_cycles_are_refused_naming_the_cycle(api):
    a, b, c = _memories(api, "cycle a", "cycle b", "cycle c")
    assert _link(api, a, b, "supersedes").status == 201
    r = _link(api, b, a, "supersedes")
    assert r.status == 409, r.body
    assert r.body["error"]["details"]["cycle"] == [b, a, b]
    assert r.body["error"]["message"] == f"supersedes links would form a cycle: {b} supersedes {a} supersedes {b}"

    assert _link(api, b, c, "supersedes").status == 201
    r = _link(api, c, a, "supersedes")
    assert r.status == 409 and r.body["error"]["details"]["cycle"] == [c, a, b, c]
    # other relations may go round; an ended supersedes link is no longer part of a chain
    assert _link(api, c, a, "relates_to").status == 201
    batch = api.post("/v1/links/batch", {"items": [{"from_id": c, "to_id": a, "relation": "supersedes"}]})
    assert batch.body["results"][0]["error"]["code"] == "conflict"
    ab = api.get(f"/v1/links?memory_id={a}&relation=supersedes").body["items"][0]["id"]
    assert api.delete(f"/v1/links/{ab}").status == 200
    assert _link(api, c, a, "supersedes").status == 201


def test_links_are_listed_newest_first_a_page_at_a_time(api):
    hub, *others = _memories(api, "page hub", "page one", "page two", "page three", "page four")
    made = [
        _link(api, hub, others[0]).body["id"],
        _link(api, others[1], hub, "caused_by").body["id"],
        _link(api, hub, others[2], "caused_by").body["id"],
        _link(api, others[3], hub).body["id"],
    ]
    assert api.delete(f"/v1/links/{made[0]}").status == 200

    def pages(query: str) -> list[str]:
        seen, cursor = [], None
        while True:
            r = api.get(f"/v1/links?memory_id={hub}&limit=2{query}" + (f"&cursor={quote(cursor)}" if cursor else ""))
            assert r.status == 200, r.body
            seen += [x["id"] for x in r.body["items"]]
            cursor = r.body["next_cursor"]
            if cursor is None:
                return seen

    assert pages("") == made[:0:-1]  # live ones, newest first
    assert pages("&include_ended=true") == made[::-1]
    assert pages("&direction=out&include_ended=true") == [made[2], made[0]]
    assert pages("&direction=in&relation=caused_by") == [made[1]]


def test_trash_and_restore_of_a_supersedes_pair_at_once_both_land(api, tenant, stack):
    """Restoring the newer memory revives its link and closes the older one's validity, while
    trashing the older one waits for the tenant's turn holding the older one's row: a deadlock,
    which the database settles by undoing one and the service runs again."""
    import concurrent.futures
    import time
    from uuid import UUID

    import psycopg

    from engram.core.db import connection
    from engram.memories import service as memories

    older, newer = _memories(api, "pair: lunch is at noon", "pair: lunch is at one")
    assert _link(api, newer, older, "supersedes").status == 201
    assert api.delete(f"/v1/memories/{newer}").status == 200  # the older one is current again
    tenant_id = UUID(tenant.id)
    key = f"engram.memory_status:{tenant.id}"
    pids: dict[str, int] = {}

    with psycopg.connect(stack.dsn) as turn, psycopg.connect(stack.dsn, autocommit=True) as monitor:
        turn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))  # the turn, held

        def wait_until_waiting(name: str) -> None:
            while (
                name not in pids
                or not monitor.execute(
                    "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = %s", (pids[name],)
                ).fetchone()[0]
            ):
                time.sleep(0.005)

        def run(name: str, call):
            def go():
                pids[name] = connection().info.backend_pid
                return call()

            return go

        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            restore = pool.submit(run("restore", lambda: memories.restore_memory(tenant_id, UUID(newer))))
            wait_until_waiting("restore")  # first in line for the turn
            trash = pool.submit(run("trash", lambda: memories.delete_memory(tenant_id, UUID(older))))
            wait_until_waiting("trash")  # holds the older row, in line behind the restore
            turn.commit()
            assert str(restore.result().id) == newer and str(trash.result().id) == older

    assert api.get(f"/v1/memories/{newer}").status == 200 and api.get(f"/v1/memories/{older}").status == 404
    # the older one is in the trash, so the link is ended whichever of the two ran first
    assert api.get(f"/v1/links?memory_id={newer}").body["items"] == []

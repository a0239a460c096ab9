"""Critical facts come first in recall, resume and prime, whatever the query; a conflict key supersedes
the namespace's current memory with the same key at once, and history shows the chain."""

from __future__ import annotations

import json
from typing import Any


def _store(api: Any, content: str, **fields: Any) -> dict[str, Any]:
    r = api.post("/v1/memories", {"content": content, **fields})
    assert r.status in (200, 201), r.body  # 200: deduplicated
    body: dict[str, Any] = r.body
    return body


def test_a_critical_fact_leads_a_recall_about_something_else(api: Any, drain: Any) -> None:
    allergy = _store(api, "The user is allergic to penicillin.", namespace="health", critical=True)["memory"]
    assert allergy["critical"] is True
    for i in range(12):
        _store(api, f"Garden note {i}: the tomatoes on bed {i} need water every morning.", namespace="health")
    _store(api, "Unrelated critical fact in another namespace.", namespace="other", critical=True)
    drain()
    r = api.post("/v1/recall", {"query": "when do the tomatoes need water?", "namespace": "health", "limit": 3})
    assert r.status == 200
    ids = [h["memory_id"] for h in r.body["results"]]
    assert ids[0] == allergy["id"] and r.body["results"][0]["critical"] is True
    assert len(ids) == 3 and not any(h["critical"] for h in r.body["results"][1:])
    assert "another namespace" not in json.dumps(r.body)
    # asked to leave them out, the ranked results only
    plain = api.post(
        "/v1/recall", {"query": "when do the tomatoes need water?", "namespace": "health", "critical": False}
    )
    assert allergy["id"] not in [h["memory_id"] for h in plain.body["results"]]
    # compact form says so too
    compact = api.post("/v1/recall", {"query": "tomatoes", "namespace": "health", "format": "compact"})
    assert compact.body["results"][0]["critical"] is True


def test_critical_facts_stay_within_their_share_of_the_budget(api: Any, drain: Any) -> None:
    long_fact = "Never deploy on Fridays: " + "the on-call rota is thin and rollbacks need two people. " * 20
    _store(api, long_fact, namespace="ops", critical=True)
    for i in range(6):
        _store(api, f"Deploy log {i}: the service deployed cleanly on a Tuesday with version {i}.", namespace="ops")
    drain()
    r = api.post("/v1/recall", {"query": "deploy log version", "namespace": "ops", "budget_chars": 1000})
    first = r.body["results"][0]
    assert first["critical"] and first["chunk"]["truncated"] and len(first["chunk"]["text"]) == 250  # 25% of 1,000
    assert r.body["used_chars"] <= 1000 and len(r.body["results"]) > 1


def test_resume_and_prime_put_critical_facts_first(api: Any, drain: Any) -> None:
    fact = _store(api, "Production database writes need a second reviewer.", namespace="proj", critical=True)
    _store(api, "The release train leaves every second Wednesday.", namespace="proj")
    drain()
    resume = api.get("/v1/resume?namespace=proj")
    assert resume.status == 200
    assert [m["memory_id"] for m in resume.body["critical"]] == [fact["memory"]["id"]]
    assert resume.body["text"].startswith("=== Critical (1) ===")
    prime = api.post("/v1/prime", {"task": "plan the next release train", "namespace": "proj"})
    assert prime.body["results"][0]["memory_id"] == fact["memory"]["id"] and prime.body["results"][0]["critical"]


def test_a_conflict_key_supersedes_the_current_memory_at_once(api: Any, drain: Any) -> None:
    paris = _store(api, "The user lives in Paris.", namespace="u", conflict_key="user.city")
    assert paris["superseded"] == [] and paris["memory"]["conflict_key"] == "user.city"
    berlin = _store(api, "The user lives in Berlin.", namespace="u", conflict_key="user.city")
    assert berlin["superseded"] == [paris["memory"]["id"]]
    # the same key in another namespace is another slot
    assert _store(api, "The user lives in Rome.", namespace="v", conflict_key="user.city")["superseded"] == []
    drain()
    r = api.post("/v1/recall", {"query": "where does the user live?", "namespace": "u"})
    assert [h["memory_id"] for h in r.body["results"]] == [berlin["memory"]["id"]]
    old = api.get(f"/v1/memories/{paris['memory']['id']}").body
    assert old["valid_to"] is not None
    history = api.get(f"/v1/memories/{berlin['memory']['id']}/history").body
    assert [c["memory"]["id"] for c in history["supersedes"]] == [paris["memory"]["id"]]
    # back to Paris: the stored Paris memory is current again and replaces Berlin
    again = _store(api, "The user lives in Paris.", namespace="u", conflict_key="user.city")
    assert again["deduplicated"] and again["memory"]["id"] == paris["memory"]["id"]
    assert again["superseded"] == [berlin["memory"]["id"]] and again["memory"]["valid_to"] is None
    r = api.post("/v1/recall", {"query": "where does the user live?", "namespace": "u"})
    assert [h["memory_id"] for h in r.body["results"]] == [paris["memory"]["id"]]


def test_conflict_keys_in_a_batch_and_a_patch(api: Any) -> None:
    r = api.post(
        "/v1/memories/batch",
        {
            "items": [
                {"content": "Standup is at 9:00.", "namespace": "team", "conflict_key": "standup.time"},
                {"content": "Standup is at 9:30.", "namespace": "team", "conflict_key": "standup.time"},
            ]
        },
    )
    assert r.status == 200, r.body
    first, second = r.body["results"]
    assert second["superseded"] == [first["memory_id"]]
    third = _store(api, "Standup moved to 10:00.", namespace="team")
    patched = api.patch(f"/v1/memories/{third['memory']['id']}", {"conflict_key": "standup.time", "critical": True})
    assert patched.status == 200 and patched.body["critical"] and patched.body["conflict_key"] == "standup.time"
    assert api.get(f"/v1/memories/{second['memory_id']}").body["valid_to"] is not None


def test_a_bad_conflict_key_or_critical_is_refused_by_name_and_writes_nothing(api: Any) -> None:
    r = api.post("/v1/memories", {"content": "x", "conflict_key": "has space"})
    assert r.status == 422 and "conflict_key" in json.dumps(r.body)
    r = api.post("/v1/memories", {"content": "x", "critical": "yes"})
    assert r.status == 422 and "critical" in json.dumps(r.body)
    r = api.patch("/v1/memories/00000000-0000-0000-0000-000000000000", {"critical": None})
    assert r.status == 422 and "critical" in json.dumps(r.body)
    assert api.get("/v1/memories").body["items"] == []


def test_conflict_keys_never_cross_tenants(api: Any, make_tenant: Any, api_for: Any) -> None:
    other = api_for(make_tenant("other").key)
    mine = _store(api, "The user lives in Oslo.", conflict_key="user.city")
    theirs = _store(other, "The user lives in Lima.", conflict_key="user.city")
    assert theirs["superseded"] == []
    assert api.get(f"/v1/memories/{mine['memory']['id']}").body["valid_to"] is None

"""Task runs: start, append events (one ledger with conversations), redact, checkpoint, end, and the
context within a hard budget split in shares; tenants never see each other's tasks."""

from __future__ import annotations

import json
from typing import Any

from tests.support.owner_view import owner_connection


def _start(api: Any, **fields: Any) -> dict[str, Any]:
    r = api.post("/v1/tasks", {"goal": "Migrate the orders table to the new schema", "namespace": "proj", **fields})
    assert r.status == 201, r.body
    body: dict[str, Any] = r.body
    return body


def _events(api: Any, task_id: str, events: list[dict[str, Any]], **extra: Any) -> Any:
    return api.post(f"/v1/tasks/{task_id}/events", {"messages": events, **extra})


def test_a_task_from_start_to_context(api: Any, drain: Any) -> None:
    api.post(
        "/v1/memories",
        {"content": "Never run migrations during business hours.", "namespace": "proj", "critical": True},
    )
    schema = api.post(
        "/v1/memories", {"content": "The orders table has 40 million rows; batches of 10k work.", "namespace": "proj"}
    )
    # linked from another namespace: recall of `proj` does not return it, the graph walk does
    other = api.post("/v1/memories", {"content": "Batch size was tuned on the staging copy.", "namespace": "ops"})
    api.post(
        "/v1/links",
        {"from_id": other.body["memory"]["id"], "to_id": schema.body["memory"]["id"], "relation": "relates_to"},
    )
    task = _start(api, agent_id="migrator")
    assert task["status"] == "running" and task["event_count"] == 0
    first = _events(
        api,
        task["id"],
        [
            {"role": "user", "content": "Please migrate the orders table."},
            {"role": "agent", "content": "Plan: copy in batches of 10k, then swap."},
            {"role": "tool", "tool_name": "psql", "content": "copied batch 1 of 4000"},
        ],
    )
    assert first.status == 201 and first.body["seq_to"] == 3
    cp = api.post(
        f"/v1/tasks/{task['id']}/checkpoints",
        {
            "summary": "Copy started",
            "completed": ["plan"],
            "pending": ["copy", "swap"],
            "decisions": ["batches of 10k"],
            "artifacts": [{"name": "migration.sql", "uri": "git:abc123"}],
        },
    )
    assert cp.status == 201 and cp.body["seq_to"] == 3
    _events(
        api,
        task["id"],
        [{"role": "tool", "tool_name": "psql", "content": f"copied batch {i} of 4000"} for i in range(2, 40)],
    )
    drain()
    r = api.post(f"/v1/tasks/{task['id']}/context", {"query": "how big are the batches?", "budget_chars": 1500})
    assert r.status == 200, r.body
    ctx = r.body
    assert ctx["used_chars"] == len(ctx["text"]) <= 1500
    assert ctx["checkpoints"][0]["id"] == cp.body["id"]
    seqs = [e["seq"] for e in ctx["events"]]
    assert seqs == sorted(seqs) and seqs[-1] == 41 and seqs[0] > 4  # the newest kept, none before the checkpoint
    assert ctx["critical"][0]["text"].startswith("Never run migrations")
    assert ctx["text"].index("Critical facts") < ctx["text"].index("Checkpoints") < ctx["text"].index("Events since")
    assert any("40 million" in m["text"] for m in ctx["memories"])
    assert ctx["neighbours"] and ctx["neighbours"][0]["memory_id"] == other.body["memory"]["id"]
    for name, section in ctx["sections"].items():
        assert section["used_chars"] <= section["budget_chars"], name
    text = api.post(f"/v1/tasks/{task['id']}/context?format=text", {"budget_chars": 600})
    assert text.status == 200 and isinstance(text.body, str) and len(text.body) <= 600
    # events are searchable like conversation turns
    hits = api.post("/v1/recall", {"query": "copied batch 17", "namespace": "proj", "kinds": ["conversation"]}).body
    assert any(h["conversation_id"] == task["conversation_id"] for h in hits["results"])
    # ending it: no more events
    done = api.post(f"/v1/tasks/{task['id']}/end", {"status": "done", "outcome": "swapped"})
    assert done.status == 200 and done.body["status"] == "done" and done.body["ended_at"]
    # its closing event: how it ended and where it stood, for what learns from conversations
    closing = api.get(f"/v1/tasks/{task['id']}/events?from_seq=42").body["items"]
    assert [m["role"] for m in closing] == ["agent"] and "Outcome: swapped" in closing[0]["content"]
    assert "Pending: copy; swap" in closing[0]["content"]
    assert _events(api, task["id"], [{"role": "user", "content": "late"}]).status == 409
    assert api.post(f"/v1/tasks/{task['id']}/end", {}).status == 409


def test_events_are_idempotent_and_ordered(api: Any) -> None:
    task = _start(api)
    events = [{"role": "assistant", "content": "step one"}, {"role": "system", "content": "note"}]
    a = _events(api, task["id"], events, idempotency_key="k1")
    b = _events(api, task["id"], events, idempotency_key="k1")
    assert a.status == 201 and b.status == 200 and b.body["replayed"]
    listed = api.get(f"/v1/tasks/{task['id']}/events").body["items"]
    assert [(m["seq"], m["role"]) for m in listed] == [(1, "assistant"), (2, "system")]
    assert _events(api, task["id"], [{"role": "robot", "content": "x"}]).status == 422
    assert _events(api, task["id"], [{"role": "user", "content": "x"}] * 201).status == 422


def test_redaction_removes_the_content_from_every_copy(api: Any, drain: Any, stack: Any, tenant: Any) -> None:
    task = _start(api)
    _events(
        api,
        task["id"],
        [
            {"role": "user", "content": "The deploy key is hunter2-secret."},
            {"role": "assistant", "content": "Noted, deploying now."},
            {"role": "tool", "tool_name": "deploy", "content": "deployed"},
        ],
        idempotency_key="secret",
    )
    drain()
    r = api.post(f"/v1/tasks/{task['id']}/events/1/redact")
    assert r.status == 200 and r.body["content"] == "[redacted]" and r.body["redacted_at"]
    drain()
    with owner_connection(stack) as conn:
        found = conn.execute(
            "SELECT (SELECT count(*) FROM messages WHERE tenant_id = %(t)s AND content LIKE '%%hunter2%%')"
            " + (SELECT count(*) FROM chunks WHERE tenant_id = %(t)s"
            " AND (text LIKE '%%hunter2%%' OR context LIKE '%%hunter2%%'))",
            {"t": tenant.id},
        ).fetchone()
    assert found == (0,)
    listed = api.get(f"/v1/tasks/{task['id']}/events").body["items"]
    assert [m["seq"] for m in listed] == [1, 2, 3] and listed[0]["role"] == "user"
    replay = _events(
        api,
        task["id"],
        [
            {"role": "user", "content": "The deploy key is hunter2-secret."},
            {"role": "assistant", "content": "Noted, deploying now."},
            {"role": "tool", "tool_name": "deploy", "content": "deployed"},
        ],
        idempotency_key="secret",
    )
    assert "hunter2" not in json.dumps(replay.body)
    assert (
        api.post("/v1/recall", {"query": "hunter2 deploy key"}).body["results"][0]["chunk"]["text"].count("hunter2")
        == 0
    )
    assert api.post(f"/v1/tasks/{task['id']}/events/9/redact").status == 404


def test_bad_input_and_other_tenants(api: Any, make_tenant: Any, api_for: Any) -> None:
    assert api.post("/v1/tasks", {"goal": ""}).status == 422
    task = _start(api)
    r = api.post(f"/v1/tasks/{task['id']}/checkpoints", {"summary": "s", "seq_to": 5})
    assert r.status == 422 and r.body["error"]["details"]["field"] == "seq_to"
    r = api.post(f"/v1/tasks/{task['id']}/context", {"shares": {"checkpoint": 0.6, "events": 0.6}})
    assert r.status == 422 and "shares" in json.dumps(r.body)
    assert api.post(f"/v1/tasks/{task['id']}/context", {"budget_chars": 50}).status == 422
    other = api_for(make_tenant("other").key)
    assert other.get(f"/v1/tasks/{task['id']}").status == 404
    assert other.post(f"/v1/tasks/{task['id']}/context", {}).status == 404
    assert _events(other, task["id"], [{"role": "user", "content": "x"}]).status == 404
    assert other.get("/v1/tasks").body["items"] == []
    assert [t["id"] for t in api.get("/v1/tasks?namespace=proj").body["items"]] == [task["id"]]


def test_deleting_the_ledger_takes_the_task(api: Any) -> None:
    task = _start(api)
    api.post(f"/v1/tasks/{task['id']}/checkpoints", {"summary": "s"})
    assert api.delete(f"/v1/conversations/{task['conversation_id']}").status == 200
    assert api.get(f"/v1/tasks/{task['id']}").status == 404


def test_erasure_and_purge_take_tasks_with_their_ledger(api: Any) -> None:
    erased = _start(api, namespace="gone")
    api.post(f"/v1/tasks/{erased['id']}/checkpoints", {"summary": "s"})
    r = api.post("/v1/erasures", {"selector": {"conversation_id": erased["conversation_id"]}})
    assert r.status == 202 and r.body["status"] == "done", r.body
    assert api.get(f"/v1/tasks/{erased['id']}").status == 404
    purged = _start(api, namespace="purged")
    assert api.post("/v1/namespaces/purged/purge").status == 200
    assert api.get(f"/v1/tasks/{purged['id']}").status == 404


def test_redaction_erases_what_was_learned_from_the_turn(api: Any, stack: Any, tenant: Any) -> None:
    task = _start(api)
    appended = _events(api, task["id"], [{"role": "user", "content": "My badge PIN is 4417."}]).body
    learned = api.post("/v1/memories", {"content": "The user's badge PIN is 4417.", "namespace": "proj"}).body
    kept = api.post("/v1/memories", {"content": "The user has a badge.", "namespace": "proj"}).body
    with owner_connection(stack) as conn:  # as extraction records the turn a memory came from
        conn.execute(
            "INSERT INTO memory_evidence (tenant_id, memory_id, conversation_id, message_id) VALUES (%s, %s, %s, %s)",
            (tenant.id, learned["memory"]["id"], task["conversation_id"], appended["messages"][0]["id"]),
        )
    assert api.post(f"/v1/tasks/{task['id']}/events/1/redact").status == 200
    assert api.get(f"/v1/memories/{learned['memory']['id']}").status == 404
    assert api.get(f"/v1/memories/{kept['memory']['id']}").status == 200
    with owner_connection(stack) as conn:
        # The database is shared by the whole run: other tests' rows may hold "4417" in a random id.
        left = conn.execute(
            "SELECT count(*) FROM memories WHERE tenant_id = %s AND content LIKE '%%4417%%'", (tenant.id,)
        ).fetchone()
        assert left == (0,)
        audit = conn.execute("SELECT scope, selector FROM erasures WHERE tenant_id = %s", (tenant.id,)).fetchall()
    assert audit == [("subject", {"conversation_id": task["conversation_id"], "seq": 1, "redacted": True})]
    assert api.post(f"/v1/tasks/{task['id']}/events/0/redact").status == 422

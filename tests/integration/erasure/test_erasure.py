"""Erasure through the HTTP API on a real PostgreSQL: one memory from every copy (versions, chunks,
links, idempotent answers, consolidation before-images and undo, derived memories per `cascade`),
idempotence, scopes and tenants, and the trash emptied after its retention."""

from __future__ import annotations

import uuid
from typing import Any
from uuid import UUID

import pytest
from psycopg import sql

from tests.support.marker_search import hits, s3_hits
from tests.support.owner_view import owner_connection

NS = "erase"


def marker() -> str:
    return f"zq{uuid.uuid4().hex[:12]}x"


def _store(api: Any, content: str, **extra: Any) -> str:
    reply = api.post("/v1/memories", {"namespace": NS, "content": content, **extra})
    assert reply.status in (200, 201), reply.body
    return str(reply.body["memory"]["id"])


def test_erasing_a_memory_removes_every_copy_and_is_idempotent(api, tenant, stack, drain):
    mark = marker()
    memory_id = _store(api, f"Alice's locker code is {mark}.", metadata={"note": mark})
    second = _store(api, f"The gate code is {mark}-2.")  # erased below through its own id
    assert (
        api.patch(f"/v1/memories/{memory_id}", {"content": f"Alice's locker code is {mark} (changed)."}).status == 200
    )
    other = _store(api, "The cafeteria opens at eight.")
    assert api.post("/v1/links", {"from_id": other, "to_id": memory_id, "relation": "relates_to"}).status == 201
    drain()
    assert hits(stack, mark)  # the copies exist before

    reply = api.post(f"/v1/memories/{memory_id}/erase")
    assert reply.status == 200, reply.body
    erasure = reply.body
    assert erasure["scope"] == "memory" and erasure["status"] == "done" and not erasure["dry_run"]
    assert erasure["ids"]["memories"] == [memory_id]
    counts = erasure["counts"]
    assert counts["memories"] == 1 and counts["versions"] == 1 and counts["links"] == 1 and counts["chunks"] >= 1
    assert erasure["key_id"] and erasure["actor"] == "api"
    assert mark not in str(erasure)

    assert api.get(f"/v1/memories/{memory_id}").status == 404
    assert api.get(f"/v1/memories/{memory_id}/history").status == 404
    assert api.post(f"/v1/memories/{memory_id}/restore").status == 404
    again = api.post(f"/v1/memories/{memory_id}/erase")
    assert again.status == 200 and again.body["id"] == erasure["id"]  # idempotent: the same erasure
    assert api.get(f"/v1/erasures/{erasure['id']}").body == erasure
    assert api.get(f"/v1/memories/{other}").status == 200  # the other end of the link stays

    assert api.post(f"/v1/memories/{second}/erase").status == 200
    assert hits(stack, mark) == []


def test_an_idempotent_answer_holding_the_memory_is_erased_with_it(api, tenant, stack):
    mark = marker()
    body = {"namespace": NS, "content": f"Bob's badge is {mark}."}
    created = api.post("/v1/memories", body, headers={"idempotency-key": f"k-{mark}"})
    assert created.status == 201
    assert api.post("/v1/memories", body, headers={"idempotency-key": f"k-{mark}"}).body == created.body  # replayed
    memory_id = created.body["memory"]["id"]
    erased = api.post(f"/v1/memories/{memory_id}/erase").body
    assert erased["counts"]["idempotent_answers"] == 1
    assert hits(stack, mark) == []


def test_a_trashed_memory_is_erased_the_same_way(api, tenant, stack):
    mark = marker()
    memory_id = _store(api, f"Carol's flight is {mark}.")
    assert api.delete(f"/v1/memories/{memory_id}").status == 200
    reply = api.post(f"/v1/memories/{memory_id}/erase")
    assert reply.status == 200 and reply.body["counts"]["memories"] == 1
    assert api.get("/v1/trash").body["items"] == []
    assert hits(stack, mark) == []


def test_scopes_tenants_and_unknown_ids(api, tenant, make_tenant, api_for, stack):
    memory_id = _store(api, "Dana prefers tea.")
    reader = api_for(api.post("/v1/keys", {"scopes": ["read"]}).body["api_key"])
    assert reader.post(f"/v1/memories/{memory_id}/erase").status == 403
    other = api_for(make_tenant("other").key)
    assert other.post(f"/v1/memories/{memory_id}/erase").status == 404  # not yours: as if it did not exist
    assert other.get(f"/v1/erasures/{uuid.uuid4()}").status == 404
    assert api.post(f"/v1/memories/{uuid.uuid4()}/erase").status == 404
    bad = api.post(f"/v1/memories/{memory_id}/erase?cascade=some")
    assert bad.status == 422 and "cascade" in str(bad.body)
    assert api.get(f"/v1/memories/{memory_id}").status == 200  # nothing was written


def _derived(api: Any, source: str, text: str) -> str:
    derived = _store(api, text)
    reply = api.post("/v1/links", {"from_id": derived, "to_id": source, "relation": "derived_from"})
    assert reply.status == 201, reply.body
    return derived


@pytest.mark.parametrize("cascade", ["erase", "none"])
def test_cascade_decides_what_becomes_of_derived_memories(api, tenant, stack, cascade):
    mark = marker()
    source = _store(api, f"Erin's phone is {mark}.")
    summary = _derived(api, source, f"Contacts: Erin {mark}.")
    deeper = _derived(api, summary, f"Digest: Erin {mark}, and more.")
    path = f"/v1/memories/{source}/erase" + ("" if cascade == "erase" else "?cascade=none")
    erasure = api.post(path).body
    if cascade == "erase":  # the default: nothing derived keeps the words
        assert sorted(erasure["ids"]["derived"]) == sorted([summary, deeper])
        assert erasure["counts"]["memories"] == 3 and erasure["counts"]["derived"] == 2
        assert api.get(f"/v1/memories/{deeper}").status == 404
        assert hits(stack, mark) == []
    else:
        assert sorted(erasure["ids"]["derived_kept"]) == sorted([summary, deeper])
        assert erasure["counts"]["memories"] == 1
        assert api.get(f"/v1/memories/{summary}").status == 200
        assert api.get(f"/v1/memories/{source}").status == 404


def test_the_trash_is_erased_after_its_retention_by_the_schedule(api, tenant, stack):
    from engram_local.lambda_runtime import invoke

    mark = marker()
    old = _store(api, f"Frank's old address is {mark}.")
    recent = _store(api, "Frank's new address is on file.")
    for memory_id in (old, recent):
        assert api.delete(f"/v1/memories/{memory_id}").status == 200
    with owner_connection(stack) as conn:
        conn.execute("UPDATE memories SET deleted_at = now() - interval '31 days' WHERE id = %s", (old,))
    result = invoke("consolidation_dispatcher", {"source": "aws.scheduler"})
    assert result["trash_erased"] >= 1
    trash = [m["id"] for m in api.get("/v1/trash").body["items"]]
    assert trash == [recent]  # within its retention: still restorable
    assert hits(stack, mark) == []
    with owner_connection(stack) as conn:
        row = conn.execute(
            "SELECT scope, actor, erased_ids FROM erasures WHERE tenant_id = %s AND scope = 'trash'", (tenant.id,)
        ).fetchone()
    assert row is not None and row[1] == "schedule" and row[2]["memories"] == [old]


def test_undo_of_a_merge_names_the_erased_memory_and_restores_the_rest(api, tenant, stack, drain, settings_env):
    from engram.consolidation import service

    settings_env(ENGRAM_LLM_LEVEL="off")
    mark = marker()
    a = _store(api, f"The staging database is db-{mark} in eu-west-1.", importance=0.7)
    b = _store(api, f"the staging database is  db-{mark} in eu-west-1", importance=0.4)
    drain()
    reply = api.post("/v1/consolidate", {"namespace": NS, "steps": ["dedupe"]})
    run_id = reply.body["id"]
    assert service.run_cycle(stack.dsn, UUID(tenant.id), UUID(run_id), time_budget_s=600).status == "done"
    run = api.get(f"/v1/consolidation-runs/{run_id}").body
    (merge,) = [x for x in run["actions"]["items"] if x["action"] == "merge"]
    survivor, superseded = merge["details"]["survivor"], merge["details"]["superseded"]
    assert {survivor, superseded} == {a, b}

    erasure = api.post(f"/v1/memories/{superseded}/erase?cascade=none").body
    assert erasure["ids"]["consolidation_runs"] == [run_id]
    assert erasure["counts"]["consolidation_actions"] >= 1
    with owner_connection(stack) as conn:
        images = conn.execute(
            "SELECT before_image::text, reason, details::text FROM consolidation_actions WHERE run_id = %s", (run_id,)
        ).fetchall()
    assert all(superseded not in (img or "") or '"erased"' in (img or "") for img, _, _ in images)

    undone = api.post(f"/v1/consolidation-runs/{run_id}/undo")
    assert undone.status == 200, undone.body
    assert undone.body["erased_memories"] == [superseded]  # what undo could not bring back
    assert api.get(f"/v1/memories/{survivor}").status == 200
    assert api.get(f"/v1/memories/{superseded}").status == 404


def _export(api: Any, stack: Any) -> str:
    job = api.post("/v1/exports", {})
    assert job.status == 202, job.body
    stack.export_poller.drain()
    assert api.get(f"/v1/exports/{job.body['id']}").body["status"] == "ready"
    return str(job.body["id"])


def test_a_subject_is_erased_by_metadata_with_its_conversations_documents_and_exports(
    api, tenant, stack, drain, settings_env
):
    from tests.support.document_bodies import make_body

    settings_env(ENGRAM_DOCUMENT_TIER0_MAX_BYTES=str(16 * 1024), ENGRAM_DOCUMENT_TIER1_MAX_BYTES=str(64 * 1024))
    mark = marker()
    subject = {"user_id": f"u-{mark}"}
    mine = [_store(api, f"Fact {i} about the user: {mark} likes {w}.", metadata=subject) for i, w in enumerate("abc")]
    kept = _store(api, "Fact about someone else.", metadata={"user_id": "u-7"})
    doc = api.post("/v1/documents", {"content": make_body(150_000, mark), "namespace": NS, "metadata": subject})
    assert doc.status == 201 and doc.body["document"]["tier"] == 2, doc.body
    conversation = api.post("/v1/conversations", {"namespace": NS, "metadata": subject}).body["id"]
    said = [{"role": "user", "content": f"my code is {mark}"}, {"role": "assistant", "content": "noted"}]
    assert api.post(f"/v1/conversations/{conversation}/messages", {"messages": said}).status in (200, 201)
    drain()
    export_id = _export(api, stack)
    assert s3_hits(stack, mark) and hits(stack, mark)

    plan = api.post("/v1/erasures", {"selector": {"metadata": subject}, "dry_run": True})
    assert plan.status == 202, plan.body
    assert plan.body["dry_run"] and plan.body["counts"]["memories"] == 4 and plan.body["counts"]["conversations"] == 1
    assert api.get(f"/v1/memories/{mine[0]}").status == 200  # a plan erases nothing

    reply = api.post("/v1/erasures", {"selector": {"metadata": subject}})
    assert reply.status == 202, reply.body
    erasure = reply.body
    assert erasure["status"] == "done" and erasure["scope"] == "subject"
    assert sorted(erasure["ids"]["memories"]) == sorted([*mine, doc.body["memory"]["id"]])
    assert erasure["ids"]["conversations"] == [conversation] and erasure["ids"]["exports"] == [export_id]
    counts = erasure["counts"]
    assert counts["documents"] == 1 and counts["document_pages"] >= 2 and counts["messages"] == 2
    assert mark not in str(erasure) or erasure["selector"] == {"metadata": subject}  # the selector, not content
    assert api.get(f"/v1/erasures/{erasure['id']}").body == erasure

    assert api.get(f"/v1/conversations/{conversation}").status == 404
    assert api.get(f"/v1/memories/{kept}").status == 200
    assert api.get(f"/v1/exports/{export_id}").body["status"] == "failed"
    assert s3_hits(stack, mark) == []
    # Only the audit record names the subject (its selector); no other column holds the marker.
    assert hits(stack, mark) == ["erasures.selector"]


def test_a_selector_must_narrow_and_bulk_erasure_needs_admin(api, tenant, api_for):
    for selector, field in (({}, "selector"), ({"namespace": NS, "since": "2026-01-02", "until": "2026-01-01"}, "")):
        reply = api.post("/v1/erasures", {"selector": selector})
        assert reply.status == 422 and field in str(reply.body), reply.body
    writer = api_for(api.post("/v1/keys", {"scopes": ["read", "write"]}).body["api_key"])
    assert writer.post("/v1/erasures", {"selector": {"namespace": NS}}).status == 403


def test_a_conversation_alone_is_erased_by_its_id(api, tenant, stack):
    mark = marker()
    conversation = api.post("/v1/conversations", {"namespace": NS}).body["id"]
    api.post(f"/v1/conversations/{conversation}/messages", {"messages": [{"role": "user", "content": mark}]})
    memory_id = _store(api, "A memory in the same namespace stays.")
    erasure = api.post("/v1/erasures", {"selector": {"conversation_id": conversation}}).body
    assert erasure["counts"]["conversations"] == 1 and erasure["counts"]["memories"] == 0
    assert api.get(f"/v1/memories/{memory_id}").status == 200
    assert hits(stack, mark) == []


def _tenant_rows(stack: Any, tenant_id: str) -> dict[str, int]:
    """Rows naming the tenant in every table with a tenant_id column, the audit table left out."""
    counts = {}
    with owner_connection(stack) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.columns c WHERE table_schema = 'public'"
            " AND column_name = 'tenant_id' AND table_name IN (SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = 'public' AND table_type = 'BASE TABLE')"
        ).fetchall()
        for (table,) in tables:
            query = sql.SQL("SELECT count(*) FROM {} WHERE tenant_id = %s").format(sql.Identifier(table))
            row = conn.execute(query, (tenant_id,)).fetchone()
            counts[table] = row[0] if row else 0
        row = conn.execute("SELECT count(*) FROM tenants WHERE id = %s", (tenant_id,)).fetchone()
        counts["tenants"] = row[0] if row else 0
    return counts


@pytest.mark.parametrize("through", ["route", "cli"])
def test_a_tenant_is_erased_with_its_keys_and_objects_and_the_audit_record_stays(
    make_tenant, api_for, stack, drain, through
):
    from engram.ops import cli

    tenant = make_tenant(f"leaving-{through}")
    api = api_for(tenant.key)
    mark = marker()
    _store(api, f"Tenant secret {mark}.")
    conversation = api.post("/v1/conversations", {"namespace": NS}).body["id"]
    api.post(f"/v1/conversations/{conversation}/messages", {"messages": [{"role": "user", "content": mark}]})
    drain()
    _export(api, stack)
    assert s3_hits(stack, mark) and _tenant_rows(stack, tenant.id)["memories"] == 1

    if through == "route":
        assert api.post("/v1/tenant/erase", {"confirm": str(uuid.uuid4())}).status == 422
        reply = api.post("/v1/tenant/erase", {"confirm": tenant.id})
        assert reply.status == 200, reply.body
        erasure_id = reply.body["id"]
        assert reply.body["scope"] == "tenant" and reply.body["counts"]["memories"] == 1
        assert api.get("/v1/stats").status == 401  # its keys went with it
    else:
        assert cli.main(["erase-tenant", tenant.id]) == 2  # --yes is required
        assert _tenant_rows(stack, tenant.id)["memories"] == 1
        assert cli.main(["erase-tenant", tenant.id, "--yes"]) == 0
        assert cli.main(["erase-tenant", tenant.id, "--yes"]) == 2  # gone: not found
        erasure_id = None

    rows = _tenant_rows(stack, tenant.id)
    assert {t: n for t, n in rows.items() if n and t != "erasures"} == {}
    assert rows["erasures"] == 1
    assert s3_hits(stack, mark) == [] and hits(stack, mark) == []
    with owner_connection(stack) as conn:
        audit = conn.execute(
            "SELECT id::text, actor, selector FROM erasures WHERE tenant_id = %s AND scope = 'tenant'", (tenant.id,)
        ).fetchone()
    assert audit is not None and audit[1] == ("api" if through == "route" else "cli")
    assert audit[2]["rows"]["memories"] == 1 and audit[2]["objects"] >= 1
    assert erasure_id in (None, audit[0])


def test_a_dry_run_counts_everything_the_erasure_then_touches(api, tenant, stack, drain):
    from engram.consolidation import service as consolidation

    mark = marker()
    subject = {"user_id": f"u-{mark}"}
    topics = ("sourdough starter feeding", "rye flour hydration", "proofing basket care", "oven steam baking")
    mine = [
        _store(api, f"The user {mark} keeps notes on {topic}, step {n}.", metadata=subject, tags=["bread"])
        for n, topic in enumerate(topics)
    ]
    keyed = api.post(
        "/v1/memories",
        {"namespace": NS, "content": f"The user {mark} bakes on Sundays.", "metadata": subject},
        headers={"idempotency-key": f"k-{mark}"},
    )
    assert keyed.status == 201, keyed.body
    drain()
    run = api.post("/v1/consolidate", {"namespace": NS, "steps": ["decay", "topics"]}).body
    assert consolidation.run_cycle(stack.dsn, UUID(tenant.id), UUID(run["id"]), time_budget_s=600.0).status == "done"
    export_id = _export(api, stack)

    plan = api.post("/v1/erasures", {"selector": {"metadata": subject}, "dry_run": True})
    assert plan.status == 202, plan.body
    assert (
        api.get(f"/v1/memories/{mine[0]}").status == 200
        and api.get(f"/v1/exports/{export_id}").body["status"] == "ready"
    )  # a plan changes nothing
    done = api.post("/v1/erasures", {"selector": {"metadata": subject}}).body
    counts = done["counts"]
    assert counts["exports"] == 1 and counts["idempotent_answers"] == 1 and counts["consolidation_actions"] >= 1
    assert plan.body["counts"] == counts
    assert plan.body["ids"] == done["ids"]

"""Namespace activity: writes, appends and recalls mark a namespace for the next scheduled
consolidation, cheaply (a fresh row is not rewritten, and not locked), per tenant."""

from __future__ import annotations

import threading

import psycopg

from engram.core.activity import namespaces_to_consolidate, record_activity
from engram.core.db import anonymous_transaction, tenant_transaction


def _activity(dsn: str, tenant_id: str) -> dict[str, tuple]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT namespace, last_activity_at, dispatched_at FROM namespace_activity WHERE tenant_id = %s",
            (tenant_id,),
        ).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def _dispatched(dsn: str, tenant_id: str, namespace: str, ago: str = "0 seconds") -> None:
    """As the dispatcher leaves a row once a run covers it (optionally back-dated)."""
    with psycopg.connect(dsn) as conn:
        conn.execute(
            "UPDATE namespace_activity SET dispatched_at = now() - %s::interval,"
            " last_activity_at = now() - %s::interval - interval '1 second'"
            " WHERE tenant_id = %s AND namespace = %s",
            (ago, ago, tenant_id, namespace),
        )


def _pairs(tenant_id: str) -> set[str]:
    with anonymous_transaction() as conn:
        return {ns for t, ns in namespaces_to_consolidate(conn, 100_000) if str(t) == tenant_id}


def test_writes_batches_patches_and_appends_mark_their_namespaces(api, tenant, stack):
    mid = api.post("/v1/memories", {"content": "the lab opens at eight", "namespace": "lab"}).body["memory"]["id"]
    api.post(
        "/v1/memories/batch",
        {
            "items": [
                {"content": "a", "namespace": "b1"},
                {"content": "b", "namespace": "b2"},
                {"content": "x", "namespace": "bad namespace!"},
            ]
        },
    )
    conv = api.post("/v1/conversations", {"title": "t", "namespace": "chat"}).body["id"]
    assert _activity(stack.dsn, tenant.id).keys() == {"lab", "b1", "b2"}  # creating a conversation writes nothing
    api.post(f"/v1/conversations/{conv}/messages", {"messages": [{"role": "user", "content": "hi"}]})
    _dispatched(stack.dsn, tenant.id, "lab")
    assert _pairs(tenant.id) == {"b1", "b2", "chat"}
    api.patch(f"/v1/memories/{mid}", {"importance": 0.9})
    assert _pairs(tenant.id) == {"lab", "b1", "b2", "chat"}


def test_recall_marks_the_namespaces_it_returned_from(api, tenant, stack, drain):
    api.post("/v1/memories", {"content": "the ferry leaves from pier nine", "namespace": "travel"})
    drain()
    _dispatched(stack.dsn, tenant.id, "travel")
    assert _pairs(tenant.id) == set()
    assert api.post("/v1/recall", {"query": "ferry pier", "namespace": "travel"}).body["results"]
    assert _pairs(tenant.id) == {"travel"}


def test_a_fresh_row_is_left_alone_and_activity_after_a_dispatch_is_recorded(api, tenant, stack):
    api.post("/v1/memories", {"content": "first", "namespace": "fresh"})
    first = _activity(stack.dsn, tenant.id)["fresh"][0]
    api.post("/v1/memories", {"content": "second", "namespace": "fresh"})
    assert _activity(stack.dsn, tenant.id)["fresh"][0] == first  # within the minute: not rewritten
    _dispatched(stack.dsn, tenant.id, "fresh", ago="5 seconds")
    assert _pairs(tenant.id) == set()  # covered by the dispatched run: idle until used again
    api.post("/v1/memories", {"content": "third", "namespace": "fresh"})
    last, dispatched = _activity(stack.dsn, tenant.id)["fresh"]
    assert last > dispatched  # recorded although the row is less than a minute old
    assert _pairs(tenant.id) == {"fresh"}


def test_concurrent_requests_do_not_wait_on_a_fresh_row(tenant, stack):
    with tenant_transaction(tenant.id) as conn:
        record_activity(conn, ["busy"])
    holder_ready, release = threading.Event(), threading.Event()

    def hold() -> None:
        with psycopg.connect(stack.dsn) as conn:
            conn.execute("SELECT set_config('engram.tenant_id', %s, true)", (tenant.id,))
            conn.execute("SET ROLE engram_app")
            record_activity(conn, ["busy"])  # open transaction: would hold the row lock if it took one
            holder_ready.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holder_ready.wait(10)
        with psycopg.connect(stack.dsn) as conn:
            conn.execute("SELECT set_config('engram.tenant_id', %s, true)", (tenant.id,))
            conn.execute("SET ROLE engram_app")
            conn.execute("SET LOCAL lock_timeout = '500ms'")
            record_activity(conn, ["busy"])  # raises LockNotAvailable if the first one locked the row
    finally:
        release.set()
        holder.join()


def test_a_tenant_sees_only_its_own_activity(make_tenant, stack):
    a, b = make_tenant("act-a"), make_tenant("act-b")
    for t in (a, b):
        with tenant_transaction(t.id) as conn:
            record_activity(conn, ["shared-name"])
    with tenant_transaction(a.id) as conn:
        rows = conn.execute("SELECT tenant_id FROM namespace_activity").fetchall()
    assert {str(r["tenant_id"]) for r in rows} == {a.id}
    # The dispatcher's cross-tenant read (a definer function) sees both.
    assert _pairs(a.id) == {"shared-name"} and _pairs(b.id) == {"shared-name"}

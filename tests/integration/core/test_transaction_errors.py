"""What a tenant transaction answers when the database fails it: a real deadlock between two
connections (retried, or a 409), a statement timeout (503 "timed out"), a connection killed under
a transaction (503 "unavailable", reconnected after)."""

from __future__ import annotations

import concurrent.futures
import threading
from uuid import UUID

import psycopg
import pytest

from engram.core.db import TransactionRace, connection, in_tenant_transaction, tenant_transaction
from engram.core.errors import DependencyDown


def _two_memories(api) -> list[str]:
    ids = []
    for text in ("deadlock row one", "deadlock row two"):
        r = api.post("/v1/memories", {"content": text, "namespace": "db-errors"})
        assert r.status == 201, r.body
        ids.append(r.body["memory"]["id"])
    return ids


def _crossing_updates(rows: list[str]):
    """Two pieces of work that lock the same two rows in opposite orders, both holding their first
    row before either asks for its second: a certain deadlock. A second run (the retry of the one
    the database undid) first waits for the other to finish, so the retry cannot meet it again."""
    both_hold_one = threading.Barrier(2)
    finished = [threading.Event(), threading.Event()]
    attempts: list[int] = []

    def work(me: int, first: str, second: str):
        runs = 0

        def run(conn: psycopg.Connection) -> str:
            nonlocal runs
            runs += 1
            attempts.append(me)
            if runs == 1:
                conn.execute("UPDATE memories SET importance = importance WHERE id = %s", (first,))
                both_hold_one.wait()
            else:
                finished[1 - me].wait()
                conn.execute("UPDATE memories SET importance = importance WHERE id = %s", (first,))
            conn.execute("UPDATE memories SET importance = importance WHERE id = %s", (second,))
            return "committed"

        return run

    def done(me: int, call):
        def run():
            try:
                return call()
            finally:
                finished[me].set()

        return run

    return work(0, rows[0], rows[1]), work(1, rows[1], rows[0]), attempts, done


def _outcomes(*calls) -> list[object]:
    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        futures = [pool.submit(c) for c in calls]
        outcomes: list[object] = []
        for f in futures:
            try:
                outcomes.append(f.result())
            except Exception as exc:  # the test looks at what each one got
                outcomes.append(exc)
    return outcomes


def test_a_deadlock_is_retried_and_both_transactions_commit(api, tenant):
    first, second, attempts, done = _crossing_updates(_two_memories(api))
    outcomes = _outcomes(
        done(0, lambda: in_tenant_transaction(UUID(tenant.id), first)),
        done(1, lambda: in_tenant_transaction(UUID(tenant.id), second)),
    )
    assert outcomes == ["committed", "committed"]
    assert sorted(attempts) in ([0, 0, 1], [0, 1, 1])  # the one the database chose to undo ran again


def test_a_deadlock_not_retried_is_a_409_saying_nothing_was_written(api, tenant):
    first, second, _, _ = _crossing_updates(_two_memories(api))

    def once(work):
        def run():
            with tenant_transaction(UUID(tenant.id)) as conn:
                return work(conn)

        return run

    outcomes = _outcomes(once(first), once(second))
    assert outcomes.count("committed") == 1
    (race,) = [o for o in outcomes if isinstance(o, TransactionRace)]
    assert race.status == 409 and race.details == {"retryable": True, "sqlstate": "40P01"}
    assert (
        race.message
        == "the request was undone after a deadlock with a concurrent request; nothing was written, retry it"
    )


def test_a_statement_timeout_is_a_503_that_says_timed_out_and_keeps_the_connection(tenant):
    with pytest.raises(DependencyDown) as caught, tenant_transaction(UUID(tenant.id)) as conn:
        pid = conn.info.backend_pid
        conn.execute("SET LOCAL statement_timeout = '50ms'")
        conn.execute("SELECT pg_sleep(30)")
    assert caught.value.status == 503 and "timed out" in caught.value.message
    assert caught.value.details == {"dependency": "database"}
    with tenant_transaction(UUID(tenant.id)) as conn:
        assert conn.execute("SELECT pg_backend_pid() AS pid").fetchone()["pid"] == pid  # not a reconnect


def test_a_connection_killed_under_a_transaction_is_a_503_unavailable_and_the_next_one_reconnects(tenant, stack):
    with pytest.raises(DependencyDown) as caught, tenant_transaction(UUID(tenant.id)) as conn:
        pid = conn.info.backend_pid
        with psycopg.connect(stack.dsn, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        conn.execute("SELECT 1")
    assert caught.value.status == 503 and caught.value.message == "the database is unavailable"
    with tenant_transaction(UUID(tenant.id)) as conn:
        assert conn.execute("SELECT 1 AS one").fetchone()["one"] == 1
    assert connection().info.backend_pid != pid


def test_a_statement_error_that_is_no_connection_failure_is_not_reported_as_one(tenant):
    # a bug is a 500, not "database unavailable"
    with pytest.raises(psycopg.errors.DivisionByZero), tenant_transaction(UUID(tenant.id)) as conn:
        conn.execute("SELECT 1 / 0")


def test_a_lock_timeout_is_a_503_that_says_timed_out_waiting_for_a_lock(api, tenant, stack):
    (row, _) = _two_memories(api)
    with psycopg.connect(stack.dsn) as holder:
        holder.execute("SELECT 1 FROM memories WHERE id = %s FOR UPDATE", (row,))
        with pytest.raises(DependencyDown) as caught, tenant_transaction(UUID(tenant.id)) as conn:
            conn.execute("SET LOCAL lock_timeout = '50ms'")
            conn.execute("UPDATE memories SET importance = importance WHERE id = %s", (row,))
        holder.rollback()
    assert caught.value.status == 503 and caught.value.message == "the database timed out waiting for a lock"


def test_a_serialization_failure_is_a_race_too(api, tenant, stack):
    from engram.core.db import reset_connections

    (row, _) = _two_memories(api)
    session = connection()  # this thread's: its next transactions run at REPEATABLE READ
    session.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    session.commit()
    try:
        with pytest.raises(TransactionRace) as caught, tenant_transaction(UUID(tenant.id)) as conn:
            conn.execute("SELECT importance FROM memories WHERE id = %s", (row,))  # the snapshot is taken
            with psycopg.connect(stack.dsn, autocommit=True) as other:
                other.execute("UPDATE memories SET importance = 0.9 WHERE id = %s", (row,))
            conn.execute("UPDATE memories SET importance = 0.1 WHERE id = %s", (row,))
    finally:
        reset_connections()  # the next test gets a connection at the default level
    assert caught.value.details == {"retryable": True, "sqlstate": "40001"}
    assert caught.value.message == (
        "the request was undone after a conflict with a concurrent request; nothing was written, retry it"
    )

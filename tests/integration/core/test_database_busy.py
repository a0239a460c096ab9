"""A database with every connection taken answers as busy, quickly, not as unreachable after the resume wait."""

from __future__ import annotations

import time

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from engram.core.db import DATABASE_BUSY_WAIT_S, DatabaseBusy, is_too_many_clients, open_connection

ROLE = "engram_busy_probe"


@pytest.fixture
def one_connection_role(stack):
    """A login role limited to one connection: its second connection is refused with 53300, as a
    full server (max_connections) refuses every new one."""
    with psycopg.connect(stack.dsn, autocommit=True) as owner:
        owner.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(ROLE)))
        owner.execute(sql.SQL("CREATE ROLE {} LOGIN CONNECTION LIMIT 1").format(sql.Identifier(ROLE)))
    yield make_conninfo(stack.dsn, user=ROLE)
    with psycopg.connect(stack.dsn, autocommit=True) as owner:
        owner.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", (ROLE,))
        owner.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(ROLE)))


def test_a_full_database_answers_busy_within_seconds_not_after_the_resume_wait(one_connection_role):
    with psycopg.connect(one_connection_role) as held:
        assert held.execute("SELECT 1").fetchone() == (1,)
        started = time.monotonic()
        with pytest.raises(DatabaseBusy) as caught:
            open_connection(one_connection_role, wait_s=25)
        took = time.monotonic() - started
    error = caught.value
    assert error.status == 503
    assert error.code == "database_busy"
    assert error.retry_after_s is not None and error.retry_after_s <= 5
    assert error.details == {"dependency": "database", "reason": "too_many_connections"}
    # It retried for a moment (a slot frees when a request ends), then answered: not the 25 s wait.
    assert DATABASE_BUSY_WAIT_S <= took < DATABASE_BUSY_WAIT_S + 3


def test_a_slot_that_frees_during_the_short_retry_is_taken(one_connection_role):
    held = psycopg.connect(one_connection_role)
    try:
        import threading

        threading.Timer(0.5, held.close).start()
        conn = open_connection(one_connection_role, wait_s=25)
        conn.close()
    finally:
        held.close()


def test_unreachable_is_not_busy(stack):
    with pytest.raises(psycopg.OperationalError) as caught:
        psycopg.connect(make_conninfo(stack.dsn, port=1), connect_timeout=2)
    assert not is_too_many_clients(caught.value)

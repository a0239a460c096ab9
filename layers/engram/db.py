"""Connections and tenant-scoped transactions.

One connection per thread, reused across invocations (a Lambda container runs one request at a
time; the local server runs a thread per request). Every tenant transaction sets
`engram.tenant_id` locally, so row-level security confines it to that tenant whatever its
queries say.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

import psycopg
from psycopg.rows import dict_row

from engram.config import database_dsn, settings
from engram.errors import DependencyDown

_local = threading.local()


def _connect(dsn: str, role: str | None) -> psycopg.Connection:
    try:
        conn = psycopg.connect(dsn, row_factory=dict_row, autocommit=False, connect_timeout=10)
    except psycopg.OperationalError as exc:
        raise DependencyDown("the database is unreachable", {"dependency": "database"}) from exc
    if role:
        conn.execute(f'SET ROLE "{role}"')
    conn.execute("SET jit = off")  # short OLTP queries: JIT compile time dwarfs their run time
    conn.commit()
    # Vectors travel as text literals ('[0.1, ...]'::vector): no numpy/pgvector import on the
    # request path, which keeps cold starts short.
    return conn


def connection() -> psycopg.Connection:
    """This thread's request connection (running as the app role), reconnecting if it broke."""
    conn: psycopg.Connection | None = getattr(_local, "conn", None)
    if conn is None or conn.closed or conn.broken:
        s = settings()
        conn = _connect(database_dsn(), s.db_app_role or None)
        _local.conn = conn
    return conn


def reset_connections() -> None:
    """Forget this thread's connection (tests that switch databases)."""
    conn = getattr(_local, "conn", None)
    if conn is not None and not conn.closed:
        conn.close()
    _local.conn = None


@contextmanager
def tenant_transaction(tenant_id: UUID | str) -> Iterator[psycopg.Connection]:
    conn = connection()
    try:
        with conn.transaction():
            conn.execute("SELECT set_config('engram.tenant_id', %s, true)", (str(tenant_id),))
            yield conn
    except psycopg.OperationalError as exc:
        reset_connections()
        raise DependencyDown("the database connection failed", {"dependency": "database"}) from exc
    finally:
        if not conn.closed and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()


@contextmanager
def anonymous_transaction() -> Iterator[psycopg.Connection]:
    """No tenant set: only definer functions (authentication) can see anything."""
    conn = connection()
    try:
        with conn.transaction():
            yield conn
    except psycopg.OperationalError as exc:
        reset_connections()
        raise DependencyDown("the database connection failed", {"dependency": "database"}) from exc


@contextmanager
def owner_connection(dsn: str | None = None) -> Iterator[psycopg.Connection]:
    """A connection as the schema owner (bypasses RLS): migrations, tenant CLI, backfill."""
    with psycopg.connect(dsn or database_dsn(), row_factory=dict_row) as conn:
        yield conn

"""Connections and tenant-scoped transactions.

One connection per thread, reused across invocations (a Lambda container runs one request at a
time; the local server runs a thread per request). Every tenant transaction sets
`engram.tenant_id` locally, so row-level security confines it to that tenant whatever its
queries say.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar
from uuid import UUID

import psycopg
from aws_lambda_powertools import Logger
from psycopg import sql
from psycopg.rows import DictRow, dict_row

from engram.core.config import database_dsn, reader_dsn, refresh_database_dsn, settings
from engram.core.errors import RESUME_RETRY_AFTER_S, Conflict, DependencyDown, EngramError, Forbidden

logger = Logger()

# The one spelling of a connection in this library: every store and service annotates with it.
Conn = psycopg.Connection[DictRow]

# The namespaces this request's tenant transactions are confined to (an OAuth grant's); None: all.
_confined_to: ContextVar[tuple[str, ...] | None] = ContextVar("engram_confined_to", default=None)


def confine_to_namespaces(namespaces: Sequence[str] | None) -> None:
    """Confine every tenant transaction of this request (this context) to `namespaces`, by row-level
    security: reads by id, recalls without a filter and writes alike. None lifts it. The HTTP layer
    sets it from the caller on each request and lifts it when the request ends."""
    _confined_to.set(tuple(namespaces) if namespaces is not None else None)


def confined_namespaces() -> tuple[str, ...] | None:
    """The namespaces this request is confined to (confine_to_namespaces); None: every namespace."""
    return _confined_to.get()


def _text_array(items: Sequence[str]) -> str:
    """A PostgreSQL text[] literal: each item double-quoted, its quotes and backslashes escaped."""
    quoted = ('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"' for item in items)
    return "{" + ",".join(quoted) + "}"


class NamespaceForbidden(Forbidden):
    code = "namespace_forbidden"


_local = threading.local()

# What PostgreSQL (53300 too_many_connections: the server's max_connections, a role's or a database's
# CONNECTION LIMIT, the slots kept for superusers) and RDS Proxy (a client waiting longer than its
# borrow timeout) say when every connection is taken. libpq reports a refused connection's text, not
# its SQLSTATE, so these words are what tells "full" from "not there".
_TOO_MANY_CLIENTS = (
    "too many clients",
    "too many connections",
    "remaining connection slots are reserved",
    "timed-out waiting to acquire database connection",
)
# A full database frees a slot as soon as one request ends: retry within this much, then answer.
DATABASE_BUSY_WAIT_S = 2.0
DATABASE_BUSY_RETRY_AFTER_S = 2


class DatabaseBusy(DependencyDown):
    """Every database connection is taken (a burst of cold containers, a role's connection limit).
    Not "unreachable": the database is up, and waiting the full resume wait would only make the
    burst longer. Logged as DATABASE_BUSY_LOG so the CDK app can count and alarm on it."""

    code = "database_busy"


DATABASE_BUSY_LOG = "database refused the connection: too many clients"


def is_too_many_clients(exc: psycopg.OperationalError) -> bool:
    return exc.sqlstate == "53300" or any(words in str(exc).lower() for words in _TOO_MANY_CLIENTS)


def open_connection(
    dsn: str | None = None, wait_s: float | None = None, connect_timeout_s: int | None = None, **kwargs: Any
) -> Conn:
    """Connect, riding out a paused Aurora Serverless cluster (it resumes in ~15 s), a secret that
    could not be read, and a rotated password (the cached secret is re-read once). No attempt starts
    after `wait_s` nor runs past it by more than libpq's 2 s minimum, so a function whose timeout
    leaves room for the wait answers 503 rather than being killed (a 500 at the gateway)."""
    s = settings()
    started = time.monotonic()
    deadline = started + (s.db_connect_wait_s if wait_s is None else wait_s)
    timeout = s.db_connect_timeout_s if connect_timeout_s is None else connect_timeout_s
    refreshed = False
    while True:
        attempt_s = max(2, min(timeout, math.ceil(deadline - time.monotonic())))
        try:
            return psycopg.connect(dsn or database_dsn(), row_factory=dict_row, connect_timeout=attempt_s, **kwargs)
        except psycopg.OperationalError as exc:
            if dsn is None and not refreshed and "password authentication failed" in str(exc):
                refreshed = True
                refresh_database_dsn()
                continue
            if is_too_many_clients(exc):
                if time.monotonic() - started >= min(DATABASE_BUSY_WAIT_S, deadline - started):
                    logger.warning(DATABASE_BUSY_LOG, extra={"reason": str(exc).strip()[-200:]})
                    raise DatabaseBusy(
                        "every database connection is in use; retry shortly",
                        {"dependency": "database", "reason": "too_many_connections"},
                        retry_after_s=DATABASE_BUSY_RETRY_AFTER_S,
                    ) from exc
                time.sleep(random.uniform(0.1, 0.4))  # jitter: the burst's other containers retry too
                continue
            failure = database_down("the database is unreachable")
            failure.__cause__ = exc
        except DependencyDown as exc:  # its secret could not be read: Secrets Manager may answer the next time
            failure = exc
        left = deadline - time.monotonic()
        if left <= 0:
            raise failure
        time.sleep(min(1.0, left))


def database_down(message: str) -> DependencyDown:
    """A 503 naming the database, with Retry-After: a cluster that paused is resuming by now."""
    return DependencyDown(message, {"dependency": "database"}, retry_after_s=RESUME_RETRY_AFTER_S)


def connection(probe: bool = False) -> Conn:
    """This thread's request connection (running as the app role), reconnecting if it broke.
    `probe`: one short attempt (ENGRAM_DB_PROBE_TIMEOUT_S) instead of waiting for a resuming database."""
    conn: Conn | None = getattr(_local, "conn", None)
    if conn is None or conn.closed or conn.broken:
        s = settings()
        conn = app_connection(wait_s=0, connect_timeout_s=s.db_probe_timeout_s) if probe else app_connection()
        _local.conn = conn
    return conn


def app_connection(dsn: str | None = None, **open_kwargs: Any) -> Conn:
    """A new connection as the app role (row-level security applies), set up as the request
    connection is; the caller closes it (the consolidation worker holds session locks on its own)."""
    conn = open_connection(dsn, **open_kwargs)
    role = settings().db_app_role
    if role:
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
    conn.execute("SET jit = off")  # short OLTP queries: JIT compile time dwarfs their run time
    conn.commit()
    # Vectors travel as text literals ('[0.1, ...]'::vector): no numpy/pgvector import on the
    # request path, which keeps cold starts short.
    return conn


def reader_connection() -> Conn | None:
    """This thread's connection to the reader (ENGRAM_DATABASE_READER_URL / ENGRAM_DB_READER_HOST), or
    None when there is none or it cannot be reached at once: the caller reads from the writer then
    (a paused cluster resumes its writer first, and the writer's connection waits for it)."""
    try:
        dsn = reader_dsn()
        if dsn is None:
            return None
        conn: Conn | None = getattr(_local, "reader", None)
        if conn is not None and not (conn.closed or conn.broken):
            return conn
        conn = app_connection(dsn, wait_s=0, connect_timeout_s=settings().db_probe_timeout_s)
    except (DependencyDown, psycopg.OperationalError) as exc:
        logger.warning("reader unreachable: reading from the writer", extra={"reason": str(exc)[-200:]})
        return None
    _local.reader = conn
    return conn


def set_tenant(conn: Conn, tenant: UUID | str) -> None:
    """Confine the open transaction to one tenant (row-level security reads it)."""
    conn.execute("SELECT set_config('engram.tenant_id', %s, true)", (str(tenant),))


def reset_connections() -> None:
    """Forget this thread's connections (after a failure, or in tests that switch databases)."""
    for name in ("conn", "reader"):
        conn = getattr(_local, name, None)
        if conn is not None and not conn.closed:
            conn.close()
        setattr(_local, name, None)


# 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now: the server went away.
_SERVER_GONE = {"57P01", "57P02", "57P03"}
# A transaction chosen to lose a race: rolled back whole, it can run again from the start.
_RETRYABLE = {"40P01": "a deadlock with a concurrent request", "40001": "a conflict with a concurrent request"}


class TransactionRace(Conflict):
    """The database rolled the transaction back to settle a race with a concurrent one (deadlock,
    serialization failure): nothing of it was written, and running it again may well succeed."""


def is_connection_lost(exc: psycopg.OperationalError) -> bool:
    """The connection itself failed (class 08, the server shutting down or not accepting
    connections, or a broken connection with no SQLSTATE), as opposed to a statement failing."""
    state = exc.sqlstate
    return state is None or state.startswith("08") or state in _SERVER_GONE


def _database_error(exc: psycopg.OperationalError) -> EngramError | None:
    """The error a failed statement or commit answers with, or None for one we do not expect."""
    state = exc.sqlstate
    if is_connection_lost(exc):
        return database_down("the database is unavailable")
    if state in _RETRYABLE:
        return TransactionRace(
            f"the request was undone after {_RETRYABLE[state]}; nothing was written, retry it",
            {"retryable": True, "sqlstate": state},
        )
    if state == "57014":  # statement_timeout (or a cancel)
        return DependencyDown("the database timed out running the request", {"dependency": "database"})
    if state == "55P03":  # lock_timeout
        return DependencyDown("the database timed out waiting for a lock", {"dependency": "database"})
    return None


def _begin(tenant: str, snapshot: bool = False, probe: bool = False, on: Conn | None = None) -> Conn:
    """Open a transaction with the tenant set, on this thread's connection or `on`. A reused connection
    that died while the container was idle (server restart, idle_session_timeout) fails on this first
    statement, so it is safe to reconnect and try once more before giving up."""
    for attempt in (1, 2):
        conn = on or connection(probe)
        try:
            if snapshot:  # must come before any other statement of the transaction
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            set_tenant(conn, tenant)
            confined = _confined_to.get()
            if confined is not None and tenant:
                # The restrictive namespace policies apply to this role only (migration 0023).
                conn.execute("SELECT set_config('engram.namespaces', %s, true)", (_text_array(confined),))
                conn.execute("SET LOCAL ROLE engram_confined")
            return conn
        except psycopg.OperationalError as exc:
            if not is_connection_lost(exc):
                raise
            if on is not None:  # the caller's own connection: it decides where to go instead
                raise database_down("the database is unavailable") from exc
            reset_connections()
            if attempt == 2:
                raise database_down("the database is unavailable") from exc
    raise AssertionError("unreachable")


@contextmanager
def _transaction(tenant: str, snapshot: bool = False, probe: bool = False, on: Conn | None = None) -> Iterator[Conn]:
    conn = _begin(tenant, snapshot, probe, on)
    try:
        yield conn
        conn.commit()
    except psycopg.OperationalError as exc:
        if is_connection_lost(exc):
            reset_connections()
        elif not conn.closed:
            conn.rollback()
        error = _database_error(exc)
        if error is None:
            raise
        raise error from exc
    except psycopg.errors.InsufficientPrivilege as exc:
        if not conn.closed:
            conn.rollback()
        confined = _confined_to.get()
        if confined is None:
            raise
        # A write outside the grant's namespaces (a row-level security check failed).
        raise NamespaceForbidden(
            f"this grant is limited to the namespaces {list(confined)}", {"namespaces": list(confined)}
        ) from exc
    except BaseException:
        if not conn.closed:
            conn.rollback()
        raise


def tenant_transaction(tenant_id: UUID | str) -> AbstractContextManager[Conn]:
    """A transaction confined to one tenant by row-level security."""
    return _transaction(str(tenant_id))


def tenant_snapshot(tenant_id: UUID | str) -> AbstractContextManager[Conn]:
    """A read-only transaction of one tenant whose queries all see the same snapshot (an export reads
    many tables: a link must never name a memory written after the memories were read)."""
    return _transaction(str(tenant_id), snapshot=True)


# How long a read waits for the reader to replay what it must see (Aurora replicas lag by ~20 ms,
# rarely a second), before it reads from the writer instead.
READER_CATCH_UP_WAITS_S = (0.0, 0.05, 0.2, 0.5)


@contextmanager
def reader_snapshot(tenant_id: UUID | str, caught_up: Callable[[Conn], bool] | None = None) -> Iterator[Conn]:
    """A read-only snapshot of one tenant on the reader, for reads that tolerate replica lag (an
    export, counts); on the writer when there is no reader, it cannot be reached, or it has not
    replayed what `caught_up(conn)` looks for (a row the caller committed on the writer: the reader
    has then replayed everything committed before it) within READER_CATCH_UP_WAITS_S."""
    with ExitStack() as chosen:
        conn: Conn | None = None
        behind = False
        for wait_s in READER_CATCH_UP_WAITS_S:
            reader = reader_connection()
            if reader is None:
                break
            time.sleep(wait_s)
            # A snapshot that has not caught up ends here (a new transaction takes a newer one); one
            # that has is handed to `chosen`, and a failure in `caught_up` rolls it back.
            with ExitStack() as attempt:
                try:
                    candidate = attempt.enter_context(_transaction(str(tenant_id), snapshot=True, on=reader))
                except DependencyDown:  # the reader went away while idle: the writer it is
                    reader.close()
                    break
                if caught_up is None or caught_up(candidate):
                    chosen.push(attempt.pop_all())
                    conn = candidate
                    break
            behind = True
        if conn is None:
            if behind:  # how often this happens is the replica lag an operator should know of
                logger.warning(
                    "reader behind: reading from the writer", extra={"waited_s": sum(READER_CATCH_UP_WAITS_S)}
                )
            conn = chosen.enter_context(tenant_snapshot(tenant_id))
        yield conn


def anonymous_transaction(probe: bool = False) -> AbstractContextManager[Conn]:
    """No tenant set: only definer functions (authentication) can see anything. `probe`: connect
    with one short attempt (the authorizer, GET /v1/health) instead of waiting for a resuming database."""
    return _transaction("", probe=probe)


def check_database() -> None:
    """The database answers a statement, or DependencyDown: GET /v1/health's one question, asked
    with one short attempt (a load balancer or a person asking wants an answer in ~2 s, not the 25 s
    a route waits for a resuming database; the attempt wakes a paused one)."""
    with anonymous_transaction(probe=True) as conn:
        conn.execute("SELECT 1")


Result = TypeVar("Result")


def in_tenant_transaction(tenant_id: UUID | str, work: Callable[[Conn], Result], *, retries: int = 2) -> Result:
    """`work(conn)` in a tenant transaction, run again from the start (up to `retries` times) when
    the database rolls it back to settle a race (TransactionRace). Only for work whose every effect
    is in that transaction: nothing sent, enqueued or kept in memory before the commit."""
    for attempt in range(retries + 1):
        try:
            with tenant_transaction(tenant_id) as conn:
                return work(conn)
        except TransactionRace:
            if attempt == retries:
                raise
            # a moment's jitter: the winner of the race gets to finish before this runs into it again
            time.sleep(random.uniform(0.005, 0.05) * (attempt + 1))
    raise AssertionError("unreachable")


@contextmanager
def owner_connection(dsn: str | None = None) -> Iterator[Conn]:
    """A connection as the schema owner (bypasses RLS): migrations, tenant CLI, backfill."""
    with open_connection(dsn) as conn:
        yield conn

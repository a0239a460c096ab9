"""A burst of cold Lambdas against a database with production's connection limit, before and after the
connection budget (infra/connections.py).

The model: N invocations arrive at once (a resume burst: dev's 50 requests/s for the 25 s a paused
Aurora took), spread over the functions by a traffic mix. Each cold container opens one connection with
the real code (engram.core.db), runs a short request as the request role, and keeps its connection
while warm, as a Lambda container does. The database is the bench's embedded PostgreSQL; Aurora's
max_connections for the environment (infra/connections.py's estimate) is imposed as the CONNECTION
LIMIT of the role the containers log in as, scaled by --scale with N (the laptop runs 2 cores and a
server capped at 200 connections, not a thousand containers).

- before: no reserved concurrency (every invocation gets a container) and main's connection loop:
  a refused connection is retried for the whole 25 s wait, then answered 503 "unreachable";
- after: each function's reserved concurrency from the environment's plan (an invocation past it is
  throttled at once, as Lambda does), and a refused connection answers 503 database_busy after 2 s.

Prints, for both: requests answered, throttled and failed, the peak of connections the database held,
the slowest failure, and the p50/p99 of the answered.

    .venv/bin/python -m bench.perf.connection_burst [--env dev] [--burst 1250] [--scale 0.1]
"""

from __future__ import annotations

import argparse
import math
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg.rows import dict_row

from bench.harness import local_stack, percentile
from engram.core.db import Conn

ROLE = "engram_burst"
# The share of a burst's invocations each function takes (a request hits the authorizer once per key
# and cache period, so it takes a share of its own).
MIX = {"authorizer": 0.25, "recall": 0.3, "memories": 0.25, "conversations": 0.1, "topics": 0.05, "admin": 0.05}
WORK_S = 0.05  # a request's own database time
BEFORE_WAIT_S = 25.0  # main's ENGRAM_DB_CONNECT_WAIT_S for routes


@dataclass
class Outcome:
    answered: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    slowest_failure_s: float = 0.0
    peak_connections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, kind: str, took: float) -> None:
        with self.lock:
            self.failures[kind] += 1
            self.slowest_failure_s = max(self.slowest_failure_s, took)


def before_connect(dsn: str) -> Conn:
    """main's loop before the budget: every refusal looked like a database that is not there yet."""
    deadline = time.monotonic() + BEFORE_WAIT_S
    while True:
        try:
            return psycopg.connect(dsn, connect_timeout=2, row_factory=dict_row)
        except psycopg.OperationalError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(1.0)


def invoke(dsn: str, outcome: Outcome, after: bool, warm: list[Conn]) -> None:
    from engram.core.db import DatabaseBusy, app_connection

    started = time.monotonic()
    try:
        if after:
            conn = app_connection(dsn, wait_s=BEFORE_WAIT_S)
        else:
            conn = before_connect(dsn)
            conn.execute("SET ROLE engram_app")
        conn.execute("SELECT pg_sleep(%s)", (WORK_S,))
        conn.commit()
    except DatabaseBusy:
        outcome.fail("503 database_busy", time.monotonic() - started)
        return
    except psycopg.OperationalError:
        outcome.fail("503 unreachable (after the whole wait)", time.monotonic() - started)
        return
    with outcome.lock:
        outcome.answered.append(time.monotonic() - started)
        warm.append(conn)  # a warm container keeps its connection


def run(admin_dsn: str, dsn: str, plan: dict[str, int], burst: int, after: bool) -> Outcome:
    outcome = Outcome()
    warm: list[Conn] = []
    stop = threading.Event()

    def watch() -> None:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            while not stop.is_set():
                (count,) = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = %s", (ROLE,)).fetchone()  # type: ignore[misc]
                outcome.peak_connections = max(outcome.peak_connections, int(count))
                time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    threads = []
    for function, share in MIX.items():
        arriving = round(burst * share)
        admitted = min(arriving, plan[function]) if after else arriving
        for _ in range(arriving - admitted):  # Lambda throttles past the reservation, at once
            outcome.fail("throttled (reserved concurrency)", 0.0)
        threads += [
            threading.Thread(target=invoke, args=(dsn, outcome, after, warm), daemon=True) for _ in range(admitted)
        ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    watcher.join()
    for conn in warm:
        conn.close()
    return outcome


def report(name: str, outcome: Outcome, burst: int) -> None:
    answered = outcome.answered
    p50 = percentile(answered, 50) * 1000 if answered else float("nan")
    p99 = percentile(answered, 99) * 1000 if answered else float("nan")
    arrived = len(answered) + sum(outcome.failures.values())  # the mix's shares, rounded, of `burst`
    print(f"\n{name}: {arrived} invocations (of {burst} asked)")
    print(f"  answered {len(answered)}  p50 {p50:.0f} ms  p99 {p99:.0f} ms")
    for kind, count in sorted(outcome.failures.items()):
        print(f"  {kind}: {count}")
    print(f"  slowest failure {outcome.slowest_failure_s:.1f} s; peak connections {outcome.peak_connections}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="dev", choices=["dev", "staging", "prod"])
    parser.add_argument("--burst", type=int, default=1250, help="concurrent cold invocations, at production scale")
    parser.add_argument("--scale", type=float, default=0.1, help="the model's size against production's")
    args = parser.parse_args()

    from aws_cdk import App

    from infra.config import load_config
    from infra.connections import OPERATOR_CONNECTIONS, connection_plan, reserved_concurrency

    config = load_config(App().node, args.env)
    production = connection_plan(config, MIX)
    limit = max(1, math.floor((production.max_connections - OPERATOR_CONNECTIONS) * args.scale))
    plan = {f: max(1, math.floor(reserved_concurrency(config, f) * args.scale)) for f in MIX}
    burst = round(args.burst * args.scale)
    print(
        f"{args.env}: max_connections ~{production.max_connections} (less {OPERATOR_CONNECTIONS} for operators), "
        f"burst {args.burst}; scaled by {args.scale}: a limit of {limit} connections, {burst} invocations, "
        f"reserved {plan}"
    )
    with local_stack(durable=False, prefix="engram-burst-") as stack:
        with psycopg.connect(stack.dsn, autocommit=True) as owner:
            owner.execute(
                sql.SQL("CREATE ROLE {} LOGIN NOINHERIT CONNECTION LIMIT {}").format(
                    sql.Identifier(ROLE), sql.Literal(limit)
                )
            )
            owner.execute(sql.SQL("GRANT engram_app TO {}").format(sql.Identifier(ROLE)))
        dsn = make_conninfo(stack.dsn, user=ROLE)
        report("before (no reservations, 25 s wait on every refusal)", run(stack.dsn, dsn, plan, burst, False), burst)
        report("after (reserved concurrency, database_busy after 2 s)", run(stack.dsn, dsn, plan, burst, True), burst)


if __name__ == "__main__":
    main()

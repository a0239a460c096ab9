"""The database connection budget: every function's reserved concurrency, summed, stays under what
Aurora accepts, so no burst of cold Lambdas can exhaust `max_connections`.

Each warm container holds one connection (engram.core.db keeps it across invocations; the
consolidation worker holds a second for its run's session lock), so the most connections a function
can open is its reserved concurrency times that. Reserved concurrency is also the most containers
Lambda runs for it: past it, invocations are throttled (API Gateway answers a bare 500 for a throttled
function, which an HTTP API cannot remap; a queue's message waits its turn) instead of piling onto the
database, and the throttle alarm says which function ran out.

Aurora Serverless v2 derives `max_connections` from the memory of the cluster's maximum capacity,
and caps it at 2,000 when the minimum capacity is 0 or 0.5 ACU (a DB instance that may shrink that far
could not hold more). `estimated_max_connections` is a lower estimate of that default; after a deploy,
`SHOW max_connections` on the writer tells the exact figure (docs/operations.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from infra.config import EnvConfig
from infra.profiles import profile_for

# max_connections per ACU of maximum capacity: AWS documents 189 for a 0.5-1 ACU cluster; the default is
# LEAST(DBInstanceClassMemory / 9531392, 5000), linear in memory, so this scales down and never over.
CONNECTIONS_PER_ACU = 189
ENGINE_CAP = 5000
PAUSABLE_CAP = 2000  # minimum capacity 0 or 0.5 ACU
# Connections nobody's reserved concurrency accounts for: PostgreSQL's superuser slots (3) and RDS's
# own (2), the secret rotation functions (one per secret, rarely at once), an operator's psql or CLI.
OPERATOR_CONNECTIONS = 16
# Lambda refuses a reservation that leaves less than this of the account's concurrency unreserved.
UNRESERVED_MINIMUM = 100
SCHEDULED_CONCURRENCY = 2  # the dispatcher: one tick at a time, plus an operator's manual run
MIGRATE_CONCURRENCY = 2  # the deploy's run, plus an operator's create_tenant


def estimated_max_connections(min_acu: float, max_acu: float) -> int:
    """A lower estimate of Aurora PostgreSQL Serverless v2's default max_connections."""
    derived = min(ENGINE_CAP, math.floor(CONNECTIONS_PER_ACU * max_acu))
    return min(derived, PAUSABLE_CAP) if min_acu <= 0.5 else derived


def reserved_concurrency(config: EnvConfig, function: str) -> int:
    """The concurrency reserved for (and so the most containers of) one function."""
    if function in config.function_concurrency:
        return config.function_concurrency[function]
    profile = profile_for(function)
    if profile.consumes:
        # An SQS event source runs at most worker_max_concurrency at once; reserving exactly that keeps
        # the mapping from being throttled by other functions and the workers from taking more.
        return config.worker_max_concurrency
    if profile.scheduled:
        return SCHEDULED_CONCURRENCY
    if function == "migrate":
        return MIGRATE_CONCURRENCY
    return config.route_concurrency


@dataclass(frozen=True)
class FunctionConnections:
    function: str
    concurrency: int
    per_container: int
    on_reader: int = 0  # connections one warm container holds on the reader

    @property
    def connections(self) -> int:
        return self.concurrency * self.per_container

    @property
    def reader_connections(self) -> int:
        return self.concurrency * self.on_reader


@dataclass(frozen=True)
class ConnectionPlan:
    env: str
    functions: tuple[FunctionConnections, ...]
    max_connections: int
    proxy: bool
    account_concurrency: int
    readers: int = 0  # reader instances taking the reads that tolerate lag (none behind a proxy)

    @property
    def lambda_connections(self) -> int:
        return sum(f.connections for f in self.functions)

    @property
    def total_connections(self) -> int:
        return self.lambda_connections + OPERATOR_CONNECTIONS

    @property
    def reader_total(self) -> int:
        """Connections each reader instance may see: the cluster reader endpoint spreads them, so one
        reader must hold them all when it is the only one up."""
        return sum(f.reader_connections for f in self.functions) + OPERATOR_CONNECTIONS

    @property
    def reserved(self) -> int:
        return sum(f.concurrency for f in self.functions)

    def problems(self) -> list[str]:
        found = []
        # Behind RDS Proxy the proxy's own pool (max_connections_percent) is the cap: Lambdas are its
        # clients, queued past its pool, so their sum may exceed max_connections.
        if not self.proxy and self.total_connections > self.max_connections:
            found.append(
                f"reserved concurrency opens up to {self.lambda_connections} database connections "
                f"(+{OPERATOR_CONNECTIONS} for operators), above the ~{self.max_connections} Aurora accepts at "
                "db_max_acu: lower route_concurrency / function_concurrency, or raise db_max_acu"
            )
        if self.readers and self.reader_total > self.max_connections:
            found.append(
                f"reads on the reader open up to {self.reader_total} connections on a reader, above the "
                f"~{self.max_connections} it accepts: lower the concurrency of the functions that read there"
            )
        if self.reserved > self.account_concurrency - UNRESERVED_MINIMUM:
            found.append(
                f"reserved concurrency sums to {self.reserved}, above the account's {self.account_concurrency} "
                f"minus the {UNRESERVED_MINIMUM} Lambda keeps unreserved: lower it, or raise the account's "
                "concurrency quota and account_concurrency with it"
            )
        for f in self.functions:
            profile = profile_for(f.function)
            if profile.consumes and f.concurrency < 2:
                found.append(f"{f.function}: an SQS event source needs at least 2 concurrent executions")
        return found

    def table(self) -> str:
        """The plan as text (`python -m infra.connections`)."""
        rows = [f"{'function':<26} {'reserved':>8} {'conn/ctr':>8} {'connections':>11}"]
        for f in sorted(self.functions, key=lambda f: f.function):
            rows.append(f"{f.function:<26} {f.concurrency:>8} {f.per_container:>8} {f.connections:>11}")
        rows.append(f"{'operators':<26} {'':>8} {'':>8} {OPERATOR_CONNECTIONS:>11}")
        cap = "behind RDS Proxy" if self.proxy else f"max_connections ~{self.max_connections}"
        rows.append(
            f"{self.env}: {self.total_connections} connections at most ({cap}); "
            f"{self.reserved} of the account's {self.account_concurrency} concurrency reserved"
        )
        if self.readers:
            rows.append(f"reader: {self.reader_total} connections at most on each of {self.readers} (same cap)")
        return "\n".join(rows)


def connection_plan(config: EnvConfig, functions: Iterable[str]) -> ConnectionPlan:
    rows = []
    for name in sorted(set(functions)):
        profile = profile_for(name)
        readers = config.db_readers > 0 and not config.db_rds_proxy
        rows.append(
            FunctionConnections(
                name,
                reserved_concurrency(config, name),
                profile.connections if profile.database else 0,
                on_reader=1 if readers and profile.database and profile.reads_on_reader else 0,
            )
        )
    return ConnectionPlan(
        env=config.env,
        functions=tuple(rows),
        max_connections=estimated_max_connections(config.db_min_acu, config.db_max_acu),
        proxy=config.db_rds_proxy,
        account_concurrency=config.account_concurrency,
        readers=0 if config.db_rds_proxy else config.db_readers,
    )


if __name__ == "__main__":  # python -m infra.connections: each environment's plan
    import sys

    from aws_cdk import App

    from infra.config import ENVIRONMENTS, load_config
    from infra.stack import default_routes

    routes, events = default_routes()
    names = {r.function for r in routes} | set(events)
    for env in sys.argv[1:] or ENVIRONMENTS:
        print(connection_plan(load_config(App().node, env), names).table(), end="\n\n")

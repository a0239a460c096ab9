"""What every bench shares: the local stack in a throwaway folder, a tenant and its key, requests through
the local API Gateway stand-in (authorizer and route Lambdas run for real, in process), the dev server on
a free port, waiting for the embed pipeline, recall settings changed for one row of a table, a clock on
chosen functions of a module, and percentiles.

engram_local is imported inside the functions: a script's `--help` stays instant, and the settings are
read after the script has set its environment.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

if TYPE_CHECKING:
    from engram_local.stack import LocalStack

__all__ = [
    "DevServer",
    "RecallConfig",
    "Tenant",
    "applied",
    "call",
    "clocked",
    "dev_server",
    "local_stack",
    "new_tenant",
    "p50_p95",
    "percentile",
    "wait_for_vectors",
]


@contextmanager
def local_stack(
    *, start_poller: bool = False, durable: bool = True, prefix: str = "engram-bench-"
) -> Iterator[LocalStack]:
    """Embedded PostgreSQL 16 + pgvector and moto S3/SQS in a temporary folder, removed afterwards.
    Without the pollers a bench drains the queues itself (`stack.embed_poller.drain()`), so it knows
    when the work is done; `durable=False` turns fsync off, for benches that do not time writes."""
    from engram_local.stack import LocalStack

    with tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True) as tmp:
        stack = LocalStack(data_dir=Path(tmp) / "pg", start_poller=start_poller, durable=durable).start()
        try:
            yield stack
        finally:
            stack.stop()


@dataclass(frozen=True)
class Tenant:
    tenant_id: UUID
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.key}", "content-type": "application/json"}


def new_tenant(stack: LocalStack, name: str = "bench", scopes: list[str] | None = None) -> Tenant:
    """A tenant and its first key (every scope unless `scopes` says otherwise)."""
    from engram.ops.operations import create_tenant_with_key

    made = create_tenant_with_key(name, scopes, dsn=stack.dsn)
    return Tenant(UUID(made["tenant_id"]), made["api_key"])


@dataclass(frozen=True)
class DevServer:
    url: str
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.key}", "content-type": "application/json"}


@contextmanager
def dev_server(stack: LocalStack) -> Iterator[DevServer]:
    """`make dev`'s HTTP server on a free loopback port, in a thread, with the dev tenant's key (and, as
    make dev, the gateway's cache of authorizer verdicts: dev_authorizer_cache_s)."""
    from engram.core.config import settings
    from engram_local.postgres import free_port
    from engram_local.serve import dev_key, make_server

    port = free_port()
    server = make_server("127.0.0.1", port, settings().dev_authorizer_cache_s)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield DevServer(f"http://127.0.0.1:{port}", dev_key(stack.dsn))
    finally:
        server.shutdown()
        server.server_close()


def call(key: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One request with the tenant's key through the gateway stand-in: (status, parsed JSON body)."""
    from engram_local import gateway

    resp = gateway.handle(
        method,
        path,
        {"authorization": f"Bearer {key}", "content-type": "application/json"},
        b"" if body is None else json.dumps(body, default=str).encode(),
    )
    return resp.status, json.loads(resp.body)


def wait_for_vectors(stack: LocalStack) -> None:
    """Drain the embed queue until every chunk has its vector. A drain stops when the queue answers
    empty, but a job that failed on a loaded machine is invisible until its visibility timeout: asking
    then would score the first rows with vectors missing (keyword only for those turns)."""
    import psycopg

    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        while True:
            stack.embed_poller.drain()
            row = conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone()
            if row is None or row[0] == 0:
                return
            time.sleep(1)


@dataclass
class RecallConfig:
    """One row of a recall-quality table: what differs from the defaults while its questions are asked."""

    env: dict[str, str] = field(default_factory=dict)  # ENGRAM_* settings
    ranking: dict[str, Any] = field(default_factory=dict)  # engram.recall.ranking (or .store) constants
    request: dict[str, Any] = field(default_factory=dict)  # extra POST /v1/recall fields


@contextmanager
def applied(config: RecallConfig) -> Iterator[None]:
    """The row's settings and constants in force inside the block, the defaults back after it."""
    from engram.recall import ranking, store
    from engram_local.stack import LocalStack

    saved_env = {k: os.environ.get(k) for k in config.env}
    modules = {name: ranking if hasattr(ranking, name) else store for name in config.ranking}
    saved = {name: getattr(mod, name) for name, mod in modules.items()}
    os.environ.update(config.env)
    for name, value in config.ranking.items():
        setattr(modules[name], name, value)
    LocalStack.refresh_settings()
    try:
        yield
    finally:
        for k, old in saved_env.items():
            if old is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = old
        for name, value in saved.items():
            setattr(modules[name], name, value)
        LocalStack.refresh_settings()


@contextmanager
def clocked(module: Any, names: Sequence[str]) -> Iterator[dict[str, float]]:
    """While inside, the module's functions `names` run with a clock: the wall ms spent in each, summed
    over its calls, in the dict yielded (clear it to start a new count). The originals are put back
    after. A caller that imported one of them by name keeps the original (rebind it there too)."""
    spent: dict[str, float] = defaultdict(float)
    originals = {name: getattr(module, name) for name in names}

    def timed(name: str, original: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[name] += (time.perf_counter() - started) * 1000

        return run

    for name, original in originals.items():
        setattr(module, name, timed(name, original))
    try:
        yield spent
    finally:
        for name, original in originals.items():
            setattr(module, name, original)


def percentile(samples: Sequence[float], q: float) -> float:
    """The nearest-rank percentile: the smallest sample with at least q% of the samples at or below it
    (p95 of 200 samples is the 190th), so a figure is always a measured value."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(len(ordered) * q / 100) - 1))]


def p50_p95(samples: Sequence[float]) -> tuple[float, float]:
    return statistics.median(samples), percentile(samples, 95)


# The columns a synthetic memory and its one chunk are COPYed with (bench/perf/recall_latency.py, tenant_scale.py).
MEMORY_COLUMNS = "id, tenant_id, namespace, kind, content, content_hash, importance, tags, created_at"
CHUNK_COLUMNS = (
    "tenant_id, memory_id, namespace, kind, tags, occurred_at, position, text, embedding, embedding_dim, model_id,"
    " embedded_at"
)


def copy_memories_and_chunks(conn: Any, memories: Sequence[Sequence[Any]], chunks: Sequence[Sequence[Any]]) -> None:
    """COPY memory rows (MEMORY_COLUMNS) and chunk rows (CHUNK_COLUMNS) on an open connection, uncommitted."""
    for table, columns, rows in (("memories", MEMORY_COLUMNS, memories), ("chunks", CHUNK_COLUMNS, chunks)):
        with conn.cursor().copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

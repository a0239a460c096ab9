"""Recall latency at 10k and 100k memories (384-d), beside the bare pgvector top-k on the same data.

    .venv/bin/python -m bench.perf.recall_latency [--sizes 10000 100000] [--queries 200]
    .venv/bin/python -m bench.perf.recall_latency --sizes 1000000 --queries 100 --index-after-load

Data is synthetic (clustered unit vectors, text from a made-up vocabulary) loaded with COPY so
100k rows take seconds, not the hours real embedding would. Query vectors are precomputed, so
both sides measure the database path only:
  - bare:   SELECT id FROM chunks WHERE embedding_dim = 384 ORDER BY embedding::halfvec(384) <=> q
            LIMIT 10 (the same partial HNSW index recall uses)
  - recall: engram.recall.service.recall(): tenant transaction + RLS, filters, vector AND keyword
            candidates, fusion, best chunk per memory, budget shaping (touch=False).
The figure is the p50/p95 ratio recall/bare (aim: at most 2x). A third line, the two bare
retrievals a hybrid search cannot avoid (vector top-40 + keyword top-40, no tenant, no joins),
shows how much of the gap is hybrid search itself and how much is ours: recall against it at p50 and
p95 (aim: at most 3x at 100k), and the filtered recall against the unfiltered one (aim: at most 1x).
That floor's keyword side takes the first 40 rows holding any query word, unranked. A fourth line
ranks them (ts_rank over every row a query word matches, the top 40), the least a ranked keyword list
costs in PostgreSQL without an extension: recall against it too. The floors' statements are never
prepared, as recall's candidate statement is not, so each is planned for its words.
Each question is asked a second time at once: its first ask against that one shows what reading the
pages the database's cache did not hold cost (PostgreSQL's shared_buffers; engram_local.postgres sizes it).
Last, the CPU a recall costs this process and its PostgreSQL backend (from /proc): on a shared
machine the wall clock moves with other jobs, the CPU much less.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, LiteralString
from uuid import UUID, uuid4

import numpy as np

from bench.harness import copy_memories_and_chunks, local_stack, new_tenant, p50_p95
from engram.indexing.vectors import hnsw_index_name, vector_literal
from engram.recall.models import RecallRequest
from engram.recall.service import recall

if TYPE_CHECKING:
    import psycopg

DIM = 384
LOAD_BATCH = 20_000
SYLLABLES = ["ka", "lo", "mi", "ran", "tes", "vo", "qui", "del", "ar", "zen", "po", "lu", "shi", "ber", "nax"]


class PrecomputedQueries:
    """Stands in for the embedder so the bench times the database, not the model."""

    model_id = "all-minilm-l6-v2-int8"
    dimension = DIM

    def __init__(self) -> None:
        self.next: list[float] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.next for _ in texts]


def vocabulary(rng: random.Random, n: int = 5000) -> list[str]:
    return list({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(n * 2)})[:n]


def load(
    dsn: str,
    tenant_id: UUID,
    n: int,
    rng: random.Random,
    centers: np.ndarray,
    words: list[str],
    index_after: bool = False,
    analyse: bool = True,
) -> None:
    """n memories of one chunk each, COPYed in batches (1M rows' values are gigabytes as Python objects).
    `index_after`: the HNSW and text indexes are dropped first and built once the rows are in, as a bulk
    import would: built row by row, 1M rows take over an hour here. `analyse` False: the tables are left
    as the load leaves them, before autovacuum's next pass."""
    import psycopg

    nrng = np.random.default_rng(rng.randint(0, 2**31))
    with psycopg.connect(dsn) as conn:
        rebuild = _drop_search_indexes(conn) if index_after else []
        for first in range(0, n, LOAD_BATCH):
            mem_rows, chunk_rows = [], []
            for i in range(first, min(first + LOAD_BATCH, n)):
                mid = uuid4()
                text = " ".join(rng.choice(words) for _ in range(rng.randint(12, 40)))
                ns, tags = f"ns{i % 10}", [f"tag{i % 7}"]
                created = f"2026-{(i % 11) + 1:02d}-{(i % 27) + 1:02d}T12:00:00Z"
                vec = centers[i % len(centers)] + nrng.normal(0, 0.35, DIM)
                vec /= np.linalg.norm(vec)
                mem_rows.append((mid, tenant_id, ns, "semantic", text, uuid4().bytes, 0.5, tags, created))
                literal, model = vector_literal(vec), PrecomputedQueries.model_id
                chunk = (tenant_id, mid, ns, "semantic", tags, created, 0, text, literal, DIM, model, created)
                chunk_rows.append(chunk)
            copy_memories_and_chunks(conn, mem_rows, chunk_rows)
        conn.commit()
    with psycopg.connect(dsn, autocommit=True) as conn:
        if rebuild:  # the graph of 1M 384-d rows is ~1.5 GB: built in memory, on both cores
            conn.execute("SET maintenance_work_mem = '4GB'")
            conn.execute("SET max_parallel_maintenance_workers = 2")
            for definition in rebuild:
                conn.execute(definition)
        if analyse:  # the steady state autovacuum reaches: statistics fresh, GIN pending list merged
            conn.execute("VACUUM ANALYZE memories")
            conn.execute("VACUUM ANALYZE chunks")


def _drop_search_indexes(conn: psycopg.Connection[Any]) -> list[str]:
    """Drop chunks' HNSW and text indexes; their definitions, to build them again."""
    from psycopg import sql

    names = [hnsw_index_name(DIM), "chunks_tsv"]
    found = conn.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chunks' AND indexname = ANY(%s)", (names,)
    ).fetchall()
    for name, _ in found:
        conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))
    conn.commit()
    return [definition for _, definition in found]


BARE_TOP_10 = (
    "SELECT id FROM chunks WHERE embedding_dim = 384"
    " ORDER BY embedding::halfvec(384) <=> %s::vector::halfvec(384) LIMIT 10"
)
# The floor of any hybrid search: both retrievals, no tenant, no joins, no fusion.
BARE_HYBRID = (
    "(SELECT id FROM chunks WHERE embedding_dim = 384"
    " ORDER BY embedding::halfvec(384) <=> %s::vector::halfvec(384) LIMIT 40)"
    " UNION ALL (SELECT id FROM chunks WHERE tsv @@ replace(plainto_tsquery('english', %s)::text,"
    " ' & ', ' | ')::tsquery LIMIT 40)"
)
# The same, its keyword side ranked: every match read, the best 40 kept.
RANKED_HYBRID = (
    "(SELECT id FROM chunks WHERE embedding_dim = 384"
    " ORDER BY embedding::halfvec(384) <=> %s::vector::halfvec(384) LIMIT 40)"
    " UNION ALL (SELECT id FROM chunks, (SELECT replace(plainto_tsquery('english', %s)::text,"
    " ' & ', ' | ')::tsquery AS q) w WHERE tsv @@ w.q ORDER BY ts_rank(tsv, w.q) DESC LIMIT 40)"
)


def _time_each(conn: psycopg.Connection[Any], statement: LiteralString, rows: Sequence[Sequence[str]]) -> list[float]:
    """Milliseconds each run of the statement took, one run per row of parameters. Never prepared, as
    recall's candidate statement is not: from its sixth run psycopg would prepare it, and PostgreSQL's
    generic plan, blind to the query's words, doubled the ranked floor at 100k (13.1 against 7.1 ms)."""
    took = []
    for params in rows:
        t = time.perf_counter()
        conn.execute(statement, params, prepare=False).fetchall()
        took.append((time.perf_counter() - t) * 1000)
    return took


def run(size: int, queries: int, seed: int, index_after: bool = False) -> None:
    import psycopg

    rng = random.Random(seed)
    with local_stack(durable=False) as stack:  # it times reads: no fsync while loading
        tenant = new_tenant(stack).tenant_id
        centers = np.random.default_rng(seed).normal(size=(200, DIM))
        words = vocabulary(rng)
        t0 = time.perf_counter()
        load(stack.dsn, tenant, size, rng, centers, words, index_after)
        loaded = time.perf_counter() - t0
        with psycopg.connect(stack.dsn) as conn:  # the HNSW index is built as the rows arrive
            conn.execute("SET hnsw.ef_search = 100")
            qs = []
            for _ in range(queries):
                v = centers[rng.randrange(len(centers))] + np.random.default_rng(rng.randint(0, 9999)).normal(
                    0, 0.35, DIM
                )
                qs.append((vector_literal(v / np.linalg.norm(v)), " ".join(rng.sample(words, 3))))
            bare = _time_each(conn, BARE_TOP_10, [(vec,) for vec, _ in qs])
            hybrid = _time_each(conn, BARE_HYBRID, qs)
            ranked = _time_each(conn, RANKED_HYBRID, qs)
        embedder = PrecomputedQueries()
        full: list[float] = []
        filtered: list[float] = []
        again: list[float] = []
        recall(tenant, RecallRequest(query="warm up", limit=10, touch=False), None)  # opens the connection
        cpu = ProcessCpu.of_recall_connection()
        for i, (vec, text) in enumerate(qs):
            embedder.next = [float(x) for x in vec.strip("[]").split(",")]
            t = time.perf_counter()
            recall(tenant, RecallRequest(query=text, limit=10, touch=False), embedder)
            full.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            recall(
                tenant,
                RecallRequest(query=text, limit=10, touch=False, namespace=f"ns{i % 10}", tags=[f"tag{i % 7}"]),
                embedder,
            )
            filtered.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()  # at once again: the pages its first ask read are in the cache now
            recall(tenant, RecallRequest(query=text, limit=10, touch=False), embedder)
            again.append((time.perf_counter() - t) * 1000)
        client_ms, server_ms = cpu.per_call(3 * len(qs))
    b50, b95 = p50_p95(bare)
    h50, h95 = p50_p95(hybrid)
    r50, r95 = p50_p95(ranked)
    f50, f95 = p50_p95(full)
    g50, g95 = p50_p95(filtered)
    a50, _ = p50_p95(again)
    print(
        f"{size:>7} memories (load {loaded:.0f}s)  bare top-10 p50 {b50:6.2f} ms p95 {b95:6.2f} ms | "
        f"recall p50 {f50:6.2f} ms p95 {f95:6.2f} ms (ratio {f50 / b50:.2f}x / {f95 / b95:.2f}x) | "
        f"recall+namespace+tag filter p50 {g50:6.2f} ms p95 {g95:6.2f} ms ({g50 / f50:.2f}x / {g95 / f95:.2f}x "
        f"unfiltered) | bare hybrid (both top-40s, no tenant) p50 {h50:6.2f} ms p95 {h95:6.2f} ms: "
        f"recall {f50 / h50:.2f}x / {f95 / h95:.2f}x of it (p50 / p95) | "
        f"its keyword side ranked (ts_rank, top 40 of every match) p50 {r50:6.2f} ms p95 {r95:6.2f} ms: "
        f"recall {f50 / r50:.2f}x / {f95 / r95:.2f}x of it | "
        f"asked again at once p50 {a50:6.2f} ms: the first ask {f50 / a50:.2f}x of it | "
        f"CPU per recall: this process {client_ms:.2f} ms, its PostgreSQL backend {server_ms:.2f} ms"
    )


class ProcessCpu:
    """The CPU this process and recall's PostgreSQL backend spent since it was made: on a shared machine
    the wall clock moves with other jobs, the CPU a recall costs much less (/proc, Linux)."""

    def __init__(self, backend_pid: int) -> None:
        self.backend_pid = backend_pid
        self.client, self.server = time.process_time(), self._backend()

    @classmethod
    def of_recall_connection(cls) -> ProcessCpu:
        from engram.core.db import connection

        conn = connection()
        pid = conn.info.backend_pid
        return cls(pid)

    def _backend(self) -> float:
        with open(f"/proc/{self.backend_pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def per_call(self, calls: int) -> tuple[float, float]:
        return (
            (time.process_time() - self.client) * 1000 / calls,
            (self._backend() - self.server) * 1000 / calls,
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--index-after-load",
        action="store_true",
        help="drop the HNSW and text indexes, COPY, then build them (a bulk import; 1M rows in minutes, not hours)",
    )
    args = parser.parse_args()
    for size in args.sizes:
        run(size, args.queries, args.seed, args.index_after_load)


if __name__ == "__main__":
    main()

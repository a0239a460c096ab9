"""The temporal graph at 100k memories / 500k links: traversal latency by depth, link creation
throughput, and what graph context costs recall.

    .venv/bin/python -m bench.perf.graph [--memories 100000] [--links 500000] [--walks 200]

Rows are loaded set-based (COPY), not through the API, so loading takes seconds. Links are random
(each memory links to five others on average, any of the eight relations, random strengths), so
the graph is one large component full of cycles: a walk of depth 3 or more from any memory is
cut by its node limit, which is the bound that keeps the deep walks cheap. Links are loaded with
triggers off (session_replication_role = replica): the generated triples are distinct by
construction, and the per-row overlap check is what the link-creation figure measures instead.

Measured, each through engram.graph.service in a tenant transaction with row-level security:
  - traverse(): GET /v1/memories/{id}/links, depth 1, 3 and 5, both directions, limit 100;
  - create_link() one per transaction and create_link_batch() 100 per transaction;
  - recall (keyword mode, touch off) plain, and with expand depth 1 and 2, interleaved;
  - conflicting_memories() for 10 results: the lookup every recall with memory results pays.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from uuid import UUID, uuid4

from bench.harness import local_stack, new_tenant, p50_p95
from engram.core.db import tenant_transaction
from engram.core.models import RELATIONS as KNOWN_RELATIONS
from engram.graph import service as graph
from engram.graph.models import LinkCreate
from engram.recall.models import RecallExpand, RecallRequest
from engram.recall.service import recall

RELATIONS = list(KNOWN_RELATIONS)
SYLLABLES = ["ka", "lo", "mi", "ran", "tes", "vo", "qui", "del", "ar", "zen", "po", "lu", "shi", "ber", "nax"]
WORDS = sorted({a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES})[::3]  # 1,125 words


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def load(dsn: str, tenant: UUID, n_memories: int, n_links: int, rng: random.Random) -> list[UUID]:
    import psycopg

    ids = [uuid4() for _ in range(n_memories)]
    with psycopg.connect(dsn) as conn:
        with conn.cursor().copy(
            "COPY memories (id, tenant_id, namespace, content, content_hash, created_at) FROM STDIN"
        ) as copy:
            for i, mid in enumerate(ids):
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
                copy.write_row((mid, tenant, f"ns{i % 10}", text, mid.bytes, "2026-02-01T12:00:00Z"))
        # one chunk per memory, no vectors: recall runs in keyword mode
        conn.execute(
            "INSERT INTO chunks (tenant_id, memory_id, namespace, kind, occurred_at, position, text)"
            " SELECT tenant_id, id, namespace, kind, created_at, 0, content FROM memories"
            " WHERE tenant_id = %s",
            (tenant,),
        )
        conn.execute("SET session_replication_role = replica")
        seen: set[tuple[int, int, int]] = set()
        with conn.cursor().copy(
            "COPY links (tenant_id, from_id, to_id, relation, strength, valid_from) FROM STDIN"
        ) as copy:
            while len(seen) < n_links:
                a, b, r = rng.randrange(n_memories), rng.randrange(n_memories), rng.randrange(len(RELATIONS))
                if a == b or (a, b, r) in seen:
                    continue
                seen.add((a, b, r))
                copy.write_row((tenant, ids[a], ids[b], RELATIONS[r], round(rng.random(), 3), "2026-01-01T00:00:00Z"))
        conn.execute("SET session_replication_role = DEFAULT")
        conn.commit()
        conn.execute("ANALYZE memories")
        conn.execute("ANALYZE chunks")
        conn.execute("ANALYZE links")
    return ids


def run(n_memories: int, n_links: int, walks: int, seed: int) -> None:

    rng = random.Random(seed)
    with local_stack(prefix="engram-bench-graph-") as stack:
        tenant = new_tenant(stack).tenant_id
        t0 = time.perf_counter()
        ids = load(stack.dsn, tenant, n_memories, n_links, rng)
        print(f"loaded {n_memories:,} memories and {n_links:,} links in {time.perf_counter() - t0:.0f} s")

        for depth in (1, 3, 5):
            sizes: list[int] = []
            times: list[float] = []
            for start in [rng.choice(ids) for _ in range(walks)]:
                t = time.perf_counter()
                sizes.append(len(graph.traverse(tenant, start, depth=depth, limit=100).nodes))
                times.append((time.perf_counter() - t) * 1000)
            p50, p95 = p50_p95(times)
            print(
                f"traverse depth {depth} (both ways, limit 100): p50 {p50:6.2f} ms  p95 {p95:6.2f} ms"
                f"  ({statistics.mean(sizes):.0f} memories per walk)"
            )

        singles = timed(
            lambda: graph.create_link(
                tenant,
                LinkCreate(
                    from_id=rng.choice(ids),
                    to_id=rng.choice(ids),
                    relation="relates_to",
                    valid_from=datetime.now(UTC),
                ),
            ),
            200,
        )
        p50, p95 = p50_p95(singles)
        print(
            f"create one link per request: p50 {p50:.2f} ms  p95 {p95:.2f} ms"
            f"  ({1000 / statistics.mean(singles):.0f} links/s)"
        )
        batches = []
        for _ in range(20):
            items = [
                {"from_id": str(rng.choice(ids)), "to_id": str(rng.choice(ids)), "relation": "part_of"}
                for _ in range(100)
            ]
            t = time.perf_counter()
            result = graph.create_link_batch(tenant, items)
            batches.append(time.perf_counter() - t)
            assert result.failed <= 2, result  # a random pair may repeat, or be a self-link
        print(
            f"create links in batches of 100: {2000 / sum(batches):,.0f} links/s"
            f" ({statistics.median(batches) * 1000:.0f} ms per batch)"
        )

        queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(walks)]
        plain: list[float] = []
        one: list[float] = []
        two: list[float] = []
        for q in queries:  # interleaved, so load on the machine hits all three alike
            for out, expand in ((plain, None), (one, RecallExpand(depth=1)), (two, RecallExpand(depth=2))):
                t = time.perf_counter()
                recall(tenant, RecallRequest(query=q, mode="keyword", limit=10, touch=False, expand=expand), None)
                out.append((time.perf_counter() - t) * 1000)
        for name, xs in (("plain", plain), ("expand depth 1", one), ("expand depth 2", two)):
            p50, p95 = p50_p95(xs)
            print(f"recall (keyword, 10 results) {name}: p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")

        at = datetime.now(UTC)
        sample = [rng.sample(ids, 10) for _ in range(walks)]
        lookups: list[float] = []
        with tenant_transaction(tenant) as conn:
            for ten in sample:
                t = time.perf_counter()
                graph.conflicting_memories(conn, tenant, ten, at)
                lookups.append((time.perf_counter() - t) * 1000)
        p50, p95 = p50_p95(lookups)
        print(f"contradiction lookup for 10 results (in every recall): p50 {p50:.2f} ms  p95 {p95:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--links", type=int, default=500_000)
    parser.add_argument("--walks", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    run(args.memories, args.links, args.walks, args.seed)


if __name__ == "__main__":
    main()

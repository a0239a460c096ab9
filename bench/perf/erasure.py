"""Erasure cost: erasing one memory (p50/p95) in a tenant of 100k memories, and one subject of 10k
memories (selected by a metadata key/value) in one job.

    .venv/bin/python -m bench.perf.erasure [--memories 100000] [--subject 10000] [--singles 200]

Rows are loaded set-based (COPY), not through the API: memories (a tenth of them with an earlier
version), one chunk each (no vectors), one random relates_to link each (triggers off while loading).
No consolidation runs, topic trees, exports or idempotency keys exist, so the figures are the cost of
the rows every erasure touches; each of those adds a query bounded by its own size (the actions that
name the memory, the tenant's live keys, the tree images that hold it).

Measured through engram.erasure.service (a tenant transaction with row-level security, as the route):
  - erase_memory(): random memories outside the subject, cascade erase;
  - create_erasure(): selector {"metadata": {"user_id": "u-42"}}, dry run first, then the erasure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from uuid import UUID, uuid4

from bench.harness import local_stack, new_tenant, p50_p95

SUBJECT = {"user_id": "u-42"}


def load(dsn: str, tenant: UUID, n: int, subject: int, rng: random.Random) -> tuple[list[UUID], list[UUID]]:
    import psycopg

    ids = [uuid4() for _ in range(n)]
    words = ["alpha", "beacon", "copper", "delta", "ember", "falcon", "glacier", "harbor", "lantern", "meadow"]
    with psycopg.connect(dsn) as conn:
        with conn.cursor().copy(
            "COPY memories (id, tenant_id, namespace, content, content_hash, metadata, version) FROM STDIN"
        ) as copy:
            for i, mid in enumerate(ids):
                text = f"note {i}: " + " ".join(rng.choice(words) for _ in range(rng.randint(8, 30)))
                meta = json.dumps(SUBJECT if i < subject else {"user_id": f"v-{i % 997}"})
                copy.write_row((mid, tenant, f"ns{i % 10}", text, mid.bytes, meta, 2 if i % 10 == 0 else 1))
        conn.execute(
            "INSERT INTO chunks (tenant_id, memory_id, namespace, kind, occurred_at, position, text)"
            " SELECT tenant_id, id, namespace, kind, created_at, 0, content FROM memories WHERE tenant_id = %s",
            (tenant,),
        )
        conn.execute(
            "INSERT INTO memory_versions (tenant_id, memory_id, version, content, kind, importance, tags, metadata)"
            " SELECT tenant_id, id, 1, content || ' (before)', kind, importance, tags, metadata FROM memories"
            " WHERE tenant_id = %s AND version = 2",
            (tenant,),
        )
        conn.execute("SET session_replication_role = replica")
        with conn.cursor().copy("COPY links (tenant_id, from_id, to_id, relation) FROM STDIN") as copy:
            for i, mid in enumerate(ids):
                other = ids[(i + 1 + rng.randrange(n - 1)) % n]
                copy.write_row((tenant, mid, other, "relates_to"))
        conn.execute("SET session_replication_role = DEFAULT")
        conn.execute("ANALYZE")
        conn.commit()
    return ids[:subject], ids[subject:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--subject", type=int, default=10_000)
    parser.add_argument("--singles", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")  # one log line per erasure otherwise

    from engram.erasure import service as erasure
    from engram.erasure.models import ErasureCreate

    rng = random.Random(23)
    with local_stack() as stack:
        tenant = new_tenant(stack).tenant_id
        t = time.perf_counter()
        subject_ids, others = load(stack.dsn, tenant, args.memories, args.subject, rng)
        print(f"loaded {args.memories} memories ({args.subject} of the subject) in {time.perf_counter() - t:.1f} s")

        times = []
        for memory_id in rng.sample(others, args.singles):
            t = time.perf_counter()
            erasure.erase_memory(tenant, memory_id)
            times.append((time.perf_counter() - t) * 1000)
        p50, p95 = p50_p95(times)
        print(
            f"erase one memory (at {args.memories} memories, {args.singles} runs): p50 {p50:.1f} ms, p95 {p95:.1f} ms"
        )

        for dry_run in (True, False):
            req = ErasureCreate.model_validate({"selector": {"metadata": SUBJECT}, "dry_run": dry_run})
            t = time.perf_counter()
            job = erasure.create_erasure(tenant, req)
            seconds = time.perf_counter() - t
            c = job.counts
            print(
                f"subject erasure{' (dry run)' if dry_run else ''}: {c.memories} memories, {c.versions} versions,"
                f" {c.chunks} chunks, {c.links} links in {seconds:.2f} s"
            )
        assert job.counts.memories == len(subject_ids)


if __name__ == "__main__":
    main()

"""Recall under contention: many clients recalling the same hot memories, touch on, beside stores.

32 threads (a Lambda-sized pool of concurrent requests) recall overlapping result sets in different
word orders for --seconds, every fourth request a store into the same namespace; then the same load
with touch off. Prints errors and recall p50 / p95 for both, and their ratio (aim: 0 errors, touch-on
p95 within 1.5x of touch-off). In process through the service (tenant transactions, row-level
security, the real SQL), on the local stack's PostgreSQL; query vectors from the local embedder.

    .venv/bin/python -m bench.perf.recall_contention [--clients 32] [--seconds 60]
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from typing import TYPE_CHECKING
from uuid import UUID

from bench.harness import local_stack, new_tenant, p50_p95

if TYPE_CHECKING:
    from engram.adapters.embeddings.base import Embedder

WORDS = ["harbour", "lantern", "orchard", "granite", "meadow", "compass", "falcon", "willow", "cobalt", "ember"]


def load(clients: int, seconds: float, touch: bool, tenant: UUID, embedder: Embedder) -> tuple[list[float], int, int]:
    from engram.memories.models import MemoryCreate
    from engram.memories.service import create_memory
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall

    latencies: list[float] = []
    errors = 0
    stores = 0
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(seed: int) -> None:
        nonlocal errors, stores
        rng = random.Random(seed)
        n = 0
        while time.monotonic() < stop:
            n += 1
            try:
                if n % 4 == 0:
                    create_memory(
                        tenant,
                        MemoryCreate(
                            content=f"Client {seed} note {n}: the {' and the '.join(rng.sample(WORDS, 3))}.",
                            namespace="hot",
                        ),
                        None,
                    )
                    with lock:
                        stores += 1
                    continue
                words = rng.sample(WORDS, 4)
                started = time.perf_counter()
                recall(tenant, RecallRequest(query=" ".join(words), namespace="hot", limit=20, touch=touch), embedder)
                with lock:
                    latencies.append((time.perf_counter() - started) * 1000)
            except Exception:  # every failure is counted
                with lock:
                    errors += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors, stores


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.memories.models import MemoryCreate
    from engram.memories.service import create_memory

    with local_stack(durable=False, prefix="engram-contention-") as stack:
        tenant = new_tenant(stack, "bench-contention").tenant_id
        rng = random.Random(7)
        for n in range(200):
            create_memory(
                tenant,
                MemoryCreate(content=f"Note {n}: the {' and the '.join(rng.sample(WORDS, 3))}.", namespace="hot"),
                None,
            )
        stack.embed_poller.drain()
        embedder = embedder_from_env()
        rows = {}
        for touch in (True, False):
            latencies, errors, stores = load(args.clients, args.seconds, touch, tenant, embedder)
            p50, p95 = p50_p95(latencies)
            rows[touch] = p95
            print(
                f"touch {'on ' if touch else 'off'}: {len(latencies)} recalls, {stores} stores, {errors} errors;"
                f" recall p50 {p50:.1f} ms, p95 {p95:.1f} ms",
                flush=True,
            )
        print(f"p95 touch on / touch off: {rows[True] / rows[False]:.2f}x")


if __name__ == "__main__":
    main()

"""What namespace-activity tracking (engram.core.activity.record_activity) costs on the hot paths,
measured A/B in one run: the same requests with tracking on and with it replaced by a no-op,
in alternating blocks so machine noise falls on both arms alike.

    .venv/bin/python -m bench.perf.activity_overhead [--memories 1000] [--rounds 10] [--block 40]

- write: one POST /v1/memories through the gateway stand-in (authorizer + memories handler +
  Postgres + SQS send), into one namespace (the row is fresh: the statement finds it and skips);
- recall: engram.recall.service.recall() on --memories embedded memories (touch=False);
- statement: record_activity alone in a tenant transaction vs an empty tenant transaction.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

from bench.harness import local_stack, new_tenant, p50_p95

WORDS = (  # noqa: SIM905 -- one sentence of words reads better than forty quoted ones
    "deploy database invoice customer rollback latency budget meeting holiday cluster migration runbook "
    "allergy recipe tutor insurance dentist renovation revenue sleep coffee hike rain"
).split()


def load(headers: dict[str, str], n: int, rng: random.Random) -> None:
    from engram_local import gateway

    for i in range(0, n, 100):
        items = [
            {"content": f"Note {i + j}: " + " ".join(rng.choice(WORDS) for _ in range(30)), "namespace": "bench"}
            for j in range(min(100, n - i))
        ]
        resp = gateway.handle("POST", "/v1/memories/batch", headers, json.dumps({"items": items}).encode())
        assert resp.status == 200, resp.body[:300]


def set_tracking(on: bool) -> None:
    """Tracking on: the real record_activity; off: a no-op in the modules that call it."""
    from engram.core import activity
    from engram.memories import service as memories
    from engram.recall import service as recall_service

    def noop(conn: Any, namespaces: Any) -> None:
        return None

    for module in (memories, recall_service):
        module.record_activity = activity.record_activity if on else noop  # type: ignore[attr-defined]


def workloads(tenant: str, headers: dict[str, str], rng: random.Random) -> dict[str, Callable[[bool], None]]:
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.core.activity import record_activity
    from engram.core.db import tenant_transaction
    from engram.recall.models import RecallRequest
    from engram.recall.service import recall
    from engram_local import gateway

    embedder = embedder_from_env()
    queries = [" ".join(rng.choice(WORDS) for _ in range(4)) for _ in range(50)]
    for q in queries[:5]:  # warm up the model and the plans
        recall(UUID(tenant), RecallRequest(query=q, limit=10, touch=False), embedder)
    counter = itertools.count()

    def write(on: bool) -> None:
        body = json.dumps({"content": f"single write {next(counter)} {rng.choice(WORDS)}", "namespace": "bench"})
        assert gateway.handle("POST", "/v1/memories", headers, body.encode()).status == 201

    def recall_once(on: bool) -> None:
        recall(UUID(tenant), RecallRequest(query=rng.choice(queries), limit=10, touch=False), embedder)

    def statement(on: bool) -> None:
        with tenant_transaction(tenant) as conn:
            if on:
                record_activity(conn, ["bench"])
            else:
                conn.execute("SELECT 1")

    return {"single write (gateway)": write, "recall": recall_once, "statement vs empty transaction": statement}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--block", type=int, default=40)
    args = parser.parse_args()

    rng = random.Random(5)
    with local_stack() as stack:
        tenant = new_tenant(stack)
        headers = tenant.headers
        load(headers, args.memories, rng)
        stack.embed_poller.drain()
        work = workloads(str(tenant.tenant_id), headers, rng)
        samples: dict[str, dict[bool, list[float]]] = {name: {True: [], False: []} for name in work}
        for r in range(args.rounds):
            for on in (True, False) if r % 2 == 0 else (False, True):
                set_tracking(on)
                for name, fn in work.items():
                    for _ in range(args.block):
                        t0 = time.perf_counter()
                        fn(on)
                        samples[name][on].append((time.perf_counter() - t0) * 1000)
        set_tracking(True)
    print(f"{args.memories} memories, {args.rounds} alternating rounds of {args.block} per arm")
    for name, arms in samples.items():
        (on50, on95), (off50, off95) = p50_p95(arms[True]), p50_p95(arms[False])
        print(
            f"{name:32s} tracking on p50 {on50:6.2f} ms p95 {on95:6.2f} | off p50 {off50:6.2f} ms p95 {off95:6.2f}"
            f" | p50 {on50 - off50:+5.2f} ms ({on50 / off50:.3f}x)"
        )


if __name__ == "__main__":
    main()

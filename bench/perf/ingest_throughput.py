"""Ingest and embedding throughput, each beside its bare baseline in the same run.

    .venv/bin/python -m bench.perf.ingest_throughput [--memories 2000]

- ingest: POST /v1/memories/batch (100 per request) through the gateway stand-in, authorizer and
  the memories Lambda handler, into the real Postgres; embedding jobs sent to (moto) SQS. Then the
  latency of 200 single-memory writes, the same way.
- embed worker: the embed_worker handler draining those jobs (SQS batches of 10 messages x 32 chunks)
  beside the bare local embedder on the same texts, batches of 32 (aim: worker >= 0.8x bare).
"""

from __future__ import annotations

import argparse
import json
import random
import time

from bench.harness import local_stack, new_tenant, p50_p95

WORDS = (  # noqa: SIM905 -- one sentence of words reads better than forty quoted ones
    "deploy database invoice customer rollback latency budget meeting holiday cluster migration runbook "
    "allergy recipe tutor insurance dentist renovation revenue sleep coffee hike rain"
).split()


def texts(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [f"Note {i}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(25, 60))) for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=2000)
    args = parser.parse_args()

    from engram.adapters.embeddings.factory import embedder_from_env
    from engram_local import gateway

    corpus = texts(args.memories)
    with local_stack() as stack:
        headers = new_tenant(stack).headers

        gateway.handle("GET", "/v1/health", {}, b"")  # load the handlers before timing
        t0 = time.perf_counter()
        for i in range(0, len(corpus), 100):
            body = json.dumps({"items": [{"content": c, "namespace": "bench"} for c in corpus[i : i + 100]]})
            resp = gateway.handle("POST", "/v1/memories/batch", headers, body.encode())
            assert resp.status == 200, resp.body[:300]
        ingest_s = time.perf_counter() - t0
        embedder = embedder_from_env()
        embedder.embed(["warm up the model"])
        t0 = time.perf_counter()
        embedded = stack.embed_poller.drain()
        worker_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(0, len(corpus), 32):
            embedder.embed(corpus[i : i + 32])
        bare_s = time.perf_counter() - t0
        singles: list[float] = []
        for i in range(200):  # one memory per request: what an agent's write costs end to end
            body = json.dumps({"content": f"single write {i}: {corpus[i][:200]}", "namespace": "single"})
            t = time.perf_counter()
            resp = gateway.handle("POST", "/v1/memories", headers, body.encode())
            singles.append((time.perf_counter() - t) * 1000)
            assert resp.status == 201, resp.body[:300]

    n = len(corpus)
    print(
        f"ingest through the handler: {n} memories in {ingest_s:.2f} s = {n / ingest_s:,.0f} memories/s "
        f"({ingest_s / (n / 100) * 1000:.0f} ms per batch of 100)"
    )
    p50, p95 = p50_p95(singles)
    print(f"single POST /v1/memories (authorizer + handler + Postgres + SQS send): p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    print(
        f"embed worker: {n / worker_s:,.0f} chunks/s ({embedded} SQS messages) | bare embedder: "
        f"{n / bare_s:,.0f} texts/s | ratio {bare_s / worker_s:.2f}x"
    )


if __name__ == "__main__":
    main()

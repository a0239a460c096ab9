"""Export and import throughput: a tenant's memories, links and conversations out to S3 as JSONL and
back into another tenant, through the real handlers and workers.

    .venv/bin/python -m bench.perf.portability [--memories 10000]

Runs the local stack (embedded PostgreSQL 16 + pgvector, moto S3/SQS). Loads one tenant through the
API (memories in batches of 100, one link per 5 memories, one conversation of 20 messages per 200
memories), then times:
  - export: POST /v1/exports -> export-jobs -> export_worker (one snapshot read through server-side
    cursors, lines to a temp file, upload to S3), from the message's delivery to the job being ready;
    with the worker's peak RSS growth (the file is streamed, never held);
  - import into a fresh tenant: PUT to the presigned URL (reported apart) -> ObjectCreated -> SQS ->
    import_worker (download, validate every line, write everything in one transaction, enqueue the
    new chunks), from the event's delivery to the job being done. Embedding is the embed worker's job
    (bench/perf/embed_throughput.py) and is not included;
  - the same file imported again into that tenant: every record found already (deduplicated).
The import's time leaves out sending the embed jobs (timed apart): the local SQS stand-in takes
~0.5 s a call where SQS takes milliseconds.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import os
import resource
import time
import urllib.request
from collections.abc import Callable
from typing import Any

from bench.harness import local_stack, new_tenant

SUBJECTS = ["ledger", "backup", "deploy", "billing", "search", "auth", "queue", "cache", "mobile", "pricing"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    args = parser.parse_args()
    os.environ.setdefault("ENGRAM_LLM_LEVEL", "off")
    from engram_local import gateway

    with local_stack(prefix="engram-bench-portability-") as stack:

        def client(name: str) -> Callable[..., dict[str, Any]]:
            key = new_tenant(stack, name).key
            headers = {"content-type": "application/json", "authorization": f"Bearer {key}"}

            def call(method: str, path: str, body: object = None) -> dict[str, Any]:
                resp = gateway.handle(method, path, headers, json.dumps(body).encode() if body is not None else b"")
                assert resp.status < 300, resp.body[:300]
                answer: dict[str, Any] = json.loads(resp.body)
                return answer

            return call

        source = client("bench-source")
        n = args.memories
        t = time.perf_counter()
        ids: list[str] = []
        for start in range(0, n, 100):
            items = [
                {
                    "content": f"Note {i} on the {SUBJECTS[i % 10]} service: replica {i % 7} of shard {i // 10} "
                    f"answered in {i % 97} ms after the change of week {i % 52}.",
                    "namespace": f"team-{i % 4}",
                    "tags": [SUBJECTS[i % 10], f"week-{i % 52}"],
                    "importance": round((i % 10) / 10, 1),
                }
                for i in range(start, min(n, start + 100))
            ]
            ids += [r["memory_id"] for r in source("POST", "/v1/memories/batch", {"items": items})["results"]]
        pairs = [(ids[i], ids[i + 4]) for i in range(0, n - 4, 5)]  # i and i + 4 share a namespace (i % 4)
        for start in range(0, len(pairs), 100):
            links = [{"from_id": a, "to_id": b, "relation": "relates_to"} for a, b in pairs[start : start + 100]]
            source("POST", "/v1/links/batch", {"items": links})
        conversations = max(1, n // 200)
        for c in range(conversations):
            conv = source("POST", "/v1/conversations", {"title": f"Standup {c}", "namespace": f"team-{c % 4}"})
            turns = [
                {
                    "role": "user" if k % 2 == 0 else "assistant",
                    "content": f"Standup {c}, turn {k}: {SUBJECTS[k % 10]}.",
                }
                for k in range(20)
            ]
            source("POST", f"/v1/conversations/{conv['id']}/messages", {"messages": turns})
        load_s = time.perf_counter() - t

        def rss_mb() -> float:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        job = source("POST", "/v1/exports", {})
        rss_before = rss_mb()
        t = time.perf_counter()
        stack.export_poller.drain()
        export_s = time.perf_counter() - t
        rss_growth = rss_mb() - rss_before
        job = source("GET", f"/v1/exports/{job['id']}")
        assert job["status"] == "ready", job
        with urllib.request.urlopen(job["download_url"], timeout=300) as resp:
            data = resp.read()

        # Time the import's embed-job sends apart: the local SQS (moto) takes far longer per call than SQS.
        # The module that sends the import's embed jobs (service.py before the export / plan / import split).
        importer = "engram.portability.importing"
        sender = importlib.import_module(
            importer if importlib.util.find_spec(importer) else "engram.portability.service"
        )

        sends = {"s": 0.0}
        enqueue = sender.enqueue_embedding

        def timed_enqueue(*a, **kw):
            t = time.perf_counter()
            try:
                return enqueue(*a, **kw)
            finally:
                sends["s"] += time.perf_counter() - t

        setattr(sender, "enqueue_embedding", timed_enqueue)  # noqa: B010 -- the module is chosen at run time

        target = client("bench-target")
        rows = []
        for label in ("import into a fresh tenant", "the same file again (all deduplicated)"):
            ticket = target(
                "POST", "/v1/imports", {"size_bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            )
            t = time.perf_counter()
            req = urllib.request.Request(ticket["upload_url"], data=data, method="PUT", headers=ticket["headers"])
            urllib.request.urlopen(req, timeout=300).read()
            put_s = time.perf_counter() - t
            sends["s"] = 0.0
            t = time.perf_counter()
            stack.import_poller.drain()
            import_s = time.perf_counter() - t - sends["s"]
            done = target("GET", f"/v1/imports/{ticket['id']}")
            assert done["status"] == "done", done
            rows.append((label, put_s, import_s, sends["s"], done["report"]))

        counts = job["counts"]
        print(
            f"Loaded {n} memories, {counts['links']} links, {counts['conversations']} conversations"
            f" ({counts['messages']} messages) through the API in {load_s:.1f} s"
        )
        print()
        print("| step | time | memories/s | file | notes |")
        print("|---|---|---|---|---|")
        print(
            f"| export (job delivered -> ready) | {export_s:.2f} s | {n / export_s:,.0f} | {len(data) / 1e6:.1f} MB |"
            f" worker peak RSS growth {rss_growth:.0f} MB |"
        )
        for label, put_s, import_s, send_s, report in rows:
            imported, dedup = report["imported"], report["deduplicated"]
            print(
                f"| {label} (event -> done, without {send_s:.1f} s of embed-job sends to moto) | {import_s:.2f} s |"
                f" {n / import_s:,.0f} | PUT {put_s:.2f} s |"
                f" imported {imported['memories']} memories, {imported['links']} links,"
                f" {imported['messages']} messages;"
                f" deduplicated {dedup['memories']} memories, {dedup['links']} links,"
                f" {dedup['conversations']} conversations |"
            )


if __name__ == "__main__":
    main()

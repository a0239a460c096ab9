"""Document ingest throughput (5 MiB -> Tier 1, 40 MiB -> Tier 2) and span extraction on a 40 MiB body.

    .venv/bin/python -m bench.perf.document_ingest [--runs 3]

Runs the local stack (embedded PostgreSQL 16 + pgvector, moto S3/SQS) and the real handlers:
  - ingest: POST /v1/documents/uploads -> PUT to the presigned URL -> S3 ObjectCreated -> SQS ->
    document_ingest (HEAD, GET, sha256, UTF-8, classify, synopsis, chunk, one INSERT of all chunks,
    embedding jobs enqueued). Timed from the event delivery to the upload being ready; the PUT is
    reported apart. Embedding itself is the worker's job and is not included.
  - query: POST /v1/memories/{id}/query on the 40 MiB Tier-2 body (read from `documents`), with a
    question only, a substring filter and a regex filter; median of --runs, LLM off.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
import urllib.request
import uuid
from typing import Any

from bench.harness import local_stack, new_tenant

MIB = 1024 * 1024
WORDS = [
    "river",
    "stone",
    "lantern",
    "harbor",
    "signal",
    "copper",
    "meadow",
    "ledger",
    "orbit",
    "canvas",
    "timber",
    "falcon",
    "quartz",
    "ember",
    "glacier",
    "violet",
    "anchor",
    "summit",
    "willow",
    "beacon",
]


def body_of(size: int, marker: str) -> bytes:
    parts, i = [f"# Bench document {uuid.uuid4()}\n\n"], 0
    while sum(len(p) for p in parts) < 256 * 1024:
        if i % 40 == 0:
            parts.append(f"\n## Section {i // 40}\n\n")
        w = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(9)]
        parts.append(f"The {w[0]} {w[1]} keeps the {w[2]} near the {w[3]} {w[4]}; {w[5]} {w[6]} {w[7]} {w[8]}. ")
        parts.append("\n\n" if i % 6 == 5 else "")
        i += 1
    block = "".join(parts)
    text = block * (size // len(block) + 1)
    at = int(size * 0.8)
    text = text[:at] + f"\n\n{marker}\n\n" + text[at:]
    return text[:size].encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("ENGRAM_LLM_LEVEL", "off")
    from engram_local import gateway

    with local_stack(prefix="engram-bench-docs-") as stack:
        key = new_tenant(stack).key
        headers = {"content-type": "application/json", "authorization": f"Bearer {key}"}

        def call(method: str, path: str, body: object = None) -> dict:
            resp = gateway.handle(method, path, headers, json.dumps(body).encode() if body is not None else b"")
            assert resp.status < 300, resp.body[:300]
            return json.loads(resp.body)

        rows = []
        doc_40 = None
        for size in (5 * MIB, 40 * MIB):
            body = body_of(size, "Deep fact: the harbour pilot's call sign is KESTREL-NINE.")
            ticket = call(
                "POST", "/v1/documents/uploads", {"size_bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
            )
            t = time.perf_counter()
            req = urllib.request.Request(ticket["url"], data=body, method="PUT", headers=ticket["headers"])
            urllib.request.urlopen(req, timeout=300).read()
            put_s = time.perf_counter() - t
            t = time.perf_counter()
            stack.upload_poller.drain()
            ingest_s = time.perf_counter() - t
            status = call("GET", f"/v1/documents/uploads/{ticket['upload_id']}")
            assert status["status"] == "ready", status
            with __import__("psycopg").connect(stack.dsn) as conn:
                chunks = conn.execute(
                    "SELECT count(*) FROM chunks WHERE memory_id = %s", (status["memory_id"],)
                ).fetchone()[0]
            rows.append((size, status["document_tier"], chunks, put_s, ingest_s))
            if size == 40 * MIB:
                doc_40 = status["memory_id"]

        print("| body | tier | chunks | PUT to S3 (moto) | ingest (event -> ready) | MB/s | chunks/s |")
        print("|---|---|---|---|---|---|---|")
        for size, tier, chunks, put_s, ingest_s in rows:
            print(
                f"| {size // MIB} MiB | {tier} | {chunks} | {put_s:.2f} s | {ingest_s:.2f} s |"
                f" {size / 1e6 / ingest_s:.1f} | {chunks / ingest_s:.0f} |"
            )

        queries: dict[str, dict[str, Any]] = {
            "question only": {"question": "What is the harbour pilot's call sign?"},
            "substring filter": {"question": "call sign", "filter": {"substrings": ["call sign"]}},
            "regex filter": {"question": "call sign", "filter": {"regex": r"KESTREL-\w+"}},
        }
        print()
        print("| 40 MiB Tier-2 query | median | min | top span has the answer |")
        print("|---|---|---|---|")
        for name, q in queries.items():
            times, found = [], False
            for _ in range(args.runs):
                t = time.perf_counter()
                out = call("POST", f"/v1/memories/{doc_40}/query", {**q, "token_budget": 256})
                times.append(time.perf_counter() - t)
                found = "KESTREL-NINE" in out["spans"][0]["text"]
            print(f"| {name} | {statistics.median(times) * 1000:.0f} ms | {min(times) * 1000:.0f} ms | {found} |")


if __name__ == "__main__":
    main()

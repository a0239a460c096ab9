"""Bytes per recall result, format full vs compact, on the conversation bench's chats.

    .venv/bin/python -m bench.perf.recall_response_size [--variant train] [--limit 10]

Ingests bench/quality/conversation_data.py's multi-session chats through the real API (as
bench/quality/conversation_recall.py does), asks every labelled question with each format and reports
the JSON bytes of a response per result, the characters of evidence text per result, and the
share of the bytes that are that text: what a caller's context pays for the envelope.
"""

from __future__ import annotations

import argparse
import json

from bench.harness import call, local_stack, new_tenant
from bench.quality.conversation_data import datasets
from bench.quality.conversation_recall import ingest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="train")
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args()

    with local_stack(durable=False) as stack:
        key = new_tenant(stack, "bench-size", ["read", "write"]).key
        sets = datasets(args.variant)
        for i, ds in enumerate(sets):
            ingest(key, ds, f"user{i}")
        stack.embed_poller.drain()
        totals = {fmt: [0, 0, 0] for fmt in ("full", "compact")}  # bytes, results, text chars
        for i, ds in enumerate(sets):
            for q in ds.questions:
                for fmt, acc in totals.items():
                    body = {
                        "query": q.text,
                        "namespace": f"user{i}",
                        "limit": args.limit,
                        "touch": False,
                        "format": fmt,
                    }
                    status, out = call(key, "POST", "/v1/recall", body)
                    assert status == 200, out
                    acc[0] += len(json.dumps(out, separators=(",", ":")).encode())
                    acc[1] += len(out["results"])
                    acc[2] += sum(len((h.get("chunk") or h)["text"]) for h in out["results"])
        for fmt, (size, n, text) in totals.items():
            print(
                f"{fmt:>8}: {size / n:7.0f} bytes per result, {text / n:5.0f} chars of text per result, "
                f"text {text / size:.0%} of the response ({n} results)"
            )
        print(f"compact / full bytes: {totals['compact'][0] / totals['full'][0]:.2f}")


if __name__ == "__main__":
    main()

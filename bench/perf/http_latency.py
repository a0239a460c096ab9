"""What a client of `make dev` sees: request latency over real HTTP through the local server.

    .venv/bin/python -m bench.perf.http_latency [--requests 200]

Starts the local stack and the dev server on a free port, then times single-memory writes and
recalls from a client on the same machine (the embed worker runs in the background, as in
`make dev`). Prints p50/p95.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.request
from typing import Any

from bench.harness import dev_server, local_stack, p50_p95


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    with local_stack(start_poller=True) as stack, dev_server(stack) as server:

        def call(path: str, body: dict[str, Any]) -> float:
            req = urllib.request.Request(
                server.url + path, data=json.dumps(body).encode(), method="POST", headers=server.headers
            )
            t = time.perf_counter()
            with urllib.request.urlopen(req, timeout=30) as resp:
                resp.read()
            return (time.perf_counter() - t) * 1000

        writes = [
            call("/v1/memories", {"content": f"http latency probe {i}: the build cache lives in s3"})
            for i in range(args.requests)
        ]
        time.sleep(2)  # let the embed worker catch up, so recall runs with vectors
        recalls = [call("/v1/recall", {"query": f"where is the build cache {i % 10}"}) for i in range(args.requests)]

    (w50, w95), (r50, r95) = p50_p95(writes), p50_p95(recalls)
    print(f"POST /v1/memories over HTTP: p50 {w50:.1f} ms, p95 {w95:.1f} ms")
    print(
        f"POST /v1/recall over HTTP:   p50 {r50:.1f} ms, p95 {r95:.1f} ms "
        f"({args.requests} memories, query embedded in process)"
    )


if __name__ == "__main__":
    main()

"""What a client of `make dev` sees: request latency over real HTTP through the local server.

    .venv/bin/python bench/http_latency.py [--requests 200]

Starts the local stack and the dev server on a free port, then times single-memory writes and
recalls from a client on the same machine (the embed worker runs in the background, as in
`make dev`). Prints p50/p95.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    from engram_local.postgres import free_port
    from engram_local.serve import dev_key, make_server
    from engram_local.stack import LocalStack

    with tempfile.TemporaryDirectory(prefix="engram-bench-") as tmp:
        stack = LocalStack(data_dir=Path(tmp) / "pg").start()
        port = free_port()
        server = make_server("127.0.0.1", port)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        key = dev_key(stack.dsn)
        try:

            def call(path: str, body: dict) -> float:
                req = urllib.request.Request(
                    f"http://127.0.0.1:{port}{path}",
                    data=json.dumps(body).encode(),
                    method="POST",
                    headers={"authorization": f"Bearer {key}", "content-type": "application/json"},
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
            recalls = [
                call("/v1/recall", {"query": f"where is the build cache {i % 10}"}) for i in range(args.requests)
            ]
        finally:
            server.shutdown()
            server.server_close()
            stack.stop()

    def pct(xs: list[float], q: float) -> float:
        return sorted(xs)[int(len(xs) * q) - 1]

    print(f"POST /v1/memories over HTTP: p50 {statistics.median(writes):.1f} ms, p95 {pct(writes, 0.95):.1f} ms")
    print(
        f"POST /v1/recall over HTTP:   p50 {statistics.median(recalls):.1f} ms, p95 {pct(recalls, 0.95):.1f} ms "
        f"({args.requests} memories, query embedded in process)"
    )


if __name__ == "__main__":
    main()

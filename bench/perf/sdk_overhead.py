"""What the Python SDK (clients/python) costs on top of plain HTTP.

    .venv/bin/python -m bench.perf.sdk_overhead [--requests 500] [--upload-mib 20]

Starts the local stack and the dev server on a free port, then measures:
- `import engram_client` in a fresh interpreter (median of 5);
- the client side of a call (building the request, retry bookkeeping, reading the answer into typed
  models) for get_memory and a recall of 100 results, the server's recorded answers replayed in
  process, against a bare httpx call with json.loads (over the network the server's time would
  drown the difference on a shared machine);
- `upload_document` of a generated Markdown file: hash, presigned PUT to the local S3, ingest, ready.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import dev_server, local_stack


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import engram_client; print(time.perf_counter() - t)"
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout) for _ in range(5)
    ]
    return statistics.median(runs)


def client_cost(name: str, answer: bytes, n: int) -> tuple[float, float]:
    """Seconds per call spent in the client (p50), SDK vs bare httpx, with the server's recorded
    answer replayed by an in-process transport: no network or server time in either figure."""
    import httpx

    from engram_client import Engram

    replay = httpx.MockTransport(lambda _: httpx.Response(200, content=answer))
    with httpx.Client(transport=replay) as http, Engram("http://local", "egk_x", http_client=http) as engram:
        sdk_call = {
            "get_memory": lambda: engram.get_memory("00000000-0000-4000-8000-000000000000"),
            "recall, 100 results": lambda: engram.recall("where is the build cache", limit=100),
        }[name]

        def bare_call() -> object:
            return http.post("http://local/v1/x", headers={"authorization": "Bearer egk_x"}, json={"q": 1}).json()

        timings: dict[str, list[float]] = {"sdk": [], "bare": []}
        for _ in range(n):
            for label, call in (("sdk", sdk_call), ("bare", bare_call)):
                t = time.perf_counter()
                call()
                timings[label].append(time.perf_counter() - t)
    return statistics.median(timings["sdk"]), statistics.median(timings["bare"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--upload-mib", type=int, default=20)
    args = parser.parse_args()

    import json

    import httpx

    from engram_client import Engram

    print(f"import engram_client: {import_seconds() * 1000:.0f} ms (fresh interpreter, median of 5)")
    with local_stack(start_poller=True) as stack, dev_server(stack) as server, tempfile.TemporaryDirectory() as tmp:
        url, key = server.url, server.key
        with httpx.Client(timeout=30) as http, Engram(url, key, http_client=http) as engram:
            batch = [{"content": f"sdk probe {i}: the build cache lives in bucket {i % 7}"} for i in range(100)]
            engram.store_memories(batch)  # type: ignore[arg-type]  # dicts of NewMemory's shape
            auth = {"authorization": f"Bearer {key}"}
            memory = http.get(f"{url}/v1/memories?limit=1", headers=auth).content
            memory_id = json.loads(memory)["items"][0]["id"]
            answers = {
                "get_memory": http.get(f"{url}/v1/memories/{memory_id}", headers=auth).content,
                "recall, 100 results": http.post(
                    f"{url}/v1/recall", headers=auth, json={"query": "where is the build cache", "limit": 100}
                ).content,
            }
        for name, answer in answers.items():
            sdk, bare = client_cost(name, answer, args.requests)
            print(
                f"{name} ({len(answer) / 1024:.1f} KiB answer), client side only: SDK {sdk * 1e3:.3f} ms,"
                f" bare httpx + json.loads {bare * 1e3:.3f} ms (p50 of {args.requests})"
            )
        with httpx.Client(timeout=30) as http, Engram(url, key, http_client=http) as engram:
            doc = Path(tmp) / "big.md"
            line = "Rule {}: every change is reviewed, tested and written down before it ships.\n"
            with doc.open("w") as f:
                i = 0
                while f.tell() < args.upload_mib << 20:
                    f.write(line.format(i))
                    i += 1
            marks: dict[str, float] = {}

            def progress(p: object) -> None:
                marks.setdefault(getattr(p, "stage", ""), time.perf_counter())

            t = time.perf_counter()
            status = engram.upload_document(doc, progress=progress, poll_interval=0.05)
            total = time.perf_counter() - t
            size = doc.stat().st_size / (1 << 20)
            put_done = marks.get("processing", marks.get("ready", t)) - t
            print(
                f"upload_document {size:.0f} MiB (tier {status.document_tier}): {total:.2f} s to ready,"
                f" of which hash + PUT {put_done:.2f} s ({size / put_done:.0f} MiB/s to the local S3)"
            )


if __name__ == "__main__":
    main()

"""Load on the local server: many concurrent clients mixing writes, recalls and conversation appends.

    .venv/bin/python -m bench.perf.load [--clients 50] [--seconds 120] [--max-requests 200000]
    .venv/bin/python -m bench.perf.load --url http://127.0.0.1:8080 --key egk_...   # a running `make dev`

Without --url it starts `make dev`'s server (python -m engram_local.serve) on free ports with a
fresh, durable database in a temporary folder, and stops it afterwards. Loopback only. Each client
opens a new connection per request (what stresses the listen backlog), and is bounded by time and
by a total request count. Prints, per route, requests, errors (non-2xx answers and failed
connections), connection resets and p50/p95 latency; exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.harness import percentile

ROOT = Path(__file__).resolve().parents[2]
ROUTES = ("POST /v1/memories", "POST /v1/recall", "POST /v1/conversations/{id}/messages")
WEIGHTS = (4, 4, 2)
WORDS = (
    "ferry",
    "backup",
    "quota",
    "deploy",
    "freeze",
    "cinnamon",
    "standup",
    "ledger",
    "invoice",
    "rollback",
    "latency",
    "cache",
    "tenant",
    "budget",
    "review",
    "retro",
    "schema",
    "index",
)


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency_ms: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.resets: dict[str, int] = defaultdict(int)
        self.samples: list[str] = []
        self.total = 0

    def take(self, limit: int) -> bool:
        with self.lock:
            if self.total >= limit:
                return False
            self.total += 1
            return True

    def record(self, route: str, ms: float, error: str | None = None, reset: bool = False) -> None:
        with self.lock:
            self.latency_ms[route].append(ms)
            if error:
                self.errors[route] += 1
                self.resets[route] += int(reset)
                if len(self.samples) < 10:
                    self.samples.append(f"{route}: {error}")


def call(host: str, port: int, key: str, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.request(
            "POST",
            path,
            body=json.dumps(body).encode(),
            headers={"authorization": f"Bearer {key}", "content-type": "application/json"},
        )
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def client(n: int, host: str, port: int, key: str, deadline: float, limit: int, tally: Tally) -> None:
    rng = random.Random(n)
    namespace = f"load-{n}"
    status, raw = call(host, port, key, "/v1/conversations", {"namespace": namespace, "title": f"load client {n}"})
    if status != 201:
        tally.record("POST /v1/conversations", 0.0, f"{status} {raw[:200]!r}")
        return
    conversation = json.loads(raw)["id"]
    i = 0
    while time.monotonic() < deadline and tally.take(limit):
        i += 1
        route = rng.choices(ROUTES, WEIGHTS)[0]
        body: dict[str, Any]
        words = " ".join(rng.choices(WORDS, k=12))
        if route == "POST /v1/memories":
            path, body = "/v1/memories", {"content": f"client {n} note {i}: {words}", "namespace": namespace}
        elif route == "POST /v1/recall":
            path, body = "/v1/recall", {"query": " ".join(rng.choices(WORDS, k=3)), "namespace": namespace}
        else:
            path = f"/v1/conversations/{conversation}/messages"
            body = {
                "messages": [
                    {"role": "user", "content": f"turn {i}: {words}"},
                    {"role": "assistant", "content": f"noted, {rng.choice(WORDS)}"},
                ]
            }
        t = time.perf_counter()
        try:
            status, raw = call(host, port, key, path, body)
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected) as exc:
            tally.record(route, (time.perf_counter() - t) * 1000, f"{type(exc).__name__}: {exc}", reset=True)
            continue
        except OSError as exc:
            tally.record(route, (time.perf_counter() - t) * 1000, f"{type(exc).__name__}: {exc}")
            continue
        ms = (time.perf_counter() - t) * 1000
        tally.record(route, ms, None if 200 <= status < 300 else f"{status} {raw[:200]!r}")


def start_dev_server() -> tuple[subprocess.Popen[str], str, str, Path]:
    from engram_local.postgres import free_port

    base = Path(tempfile.mkdtemp(prefix="engram-load-"))
    base.chmod(0o755)  # as root, the postgres user must reach the data folder
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "AWS_"))}
    env.update(PORT=str(port), ENGRAM_DEV_PG_PORT=str(free_port()), ENGRAM_DEV_DATA_DIR=str(base / "dev"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "engram_local.serve"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    key = ""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("API key:"):
            key = line.split(":", 1)[1].strip()
        if line.startswith("CLI:"):
            break
    if not key:
        raise SystemExit("the dev server did not start")
    threading.Thread(target=lambda: [None for _ in proc.stdout or []], daemon=True).start()  # keep its pipe drained
    return proc, f"http://127.0.0.1:{port}", key, base


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--url", help="a running local server (loopback only)")
    parser.add_argument("--key", help="its API key (with --url)")
    args = parser.parse_args()

    proc = base_dir = None
    if args.url:
        url, key = args.url, args.key or ""
        if urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit("bench/perf/load.py only targets a server on this machine")
    else:
        proc, url, key, base_dir = start_dev_server()
    host, port = urlsplit(url).hostname or "127.0.0.1", urlsplit(url).port or 80
    tally = Tally()
    try:
        started = time.monotonic()
        deadline = started + args.seconds
        threads = [
            threading.Thread(target=client, args=(n, host, port, key, deadline, args.max_requests, tally))
            for n in range(args.clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
        if base_dir is not None:
            shutil.rmtree(base_dir, ignore_errors=True)

    done = sum(len(v) for v in tally.latency_ms.values())
    errors, resets = sum(tally.errors.values()), sum(tally.resets.values())
    print(
        f"{args.clients} clients, {elapsed:.0f} s, {done} requests ({done / elapsed:.0f}/s): "
        f"{errors} errors, {resets} connection resets"
    )
    print(f"{'route':<42} {'requests':>8} {'errors':>7} {'resets':>7} {'p50 ms':>8} {'p95 ms':>8}")
    for route in sorted(tally.latency_ms):
        xs = tally.latency_ms[route]
        print(
            f"{route:<42} {len(xs):>8} {tally.errors[route]:>7} {tally.resets[route]:>7}"
            f" {percentile(xs, 50):>8.1f} {percentile(xs, 95):>8.1f}"
        )
    for sample in tally.samples:
        print("  e.g.", sample)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

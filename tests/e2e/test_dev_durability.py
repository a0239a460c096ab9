"""`make dev` as a user runs it, killed with SIGKILL in the middle of a batch ingest.

Every write the server acknowledged is there after a restart and gets its vectors; the database
runs with fsync on; the restart prints the same API key; SIGTERM stops the database too.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from datetime import UTC

import psycopg

from engram_local.postgres import shared_buffers_mb
from tests.support.dev_process import DevProcess, gone, postmaster_pid, wait_for_vectors
from tests.support.server_http import request


class BatchIngest:
    """Batches of 50 until the server is gone; collects the ids it acknowledged."""

    def __init__(self, base: str, key: str, acknowledged: list[str], enough: threading.Event) -> None:
        self.base, self.key, self.acknowledged, self.enough = base, key, acknowledged, enough
        self.lock = threading.Lock()

    def run(self, worker: int) -> None:
        for batch in range(1000):
            items = [
                {
                    "content": f"durability worker {worker} batch {batch} item {i}: the ferry leaves at {i}:15",
                    "namespace": "durability",
                }
                for i in range(50)
            ]
            try:
                status, _, raw = request(self.base, "POST", "/v1/memories/batch", {"items": items}, self.key)
            except OSError:
                return  # the server is gone
            if status not in (200, 201):
                continue
            ids = [r["memory_id"] for r in json.loads(raw)["results"] if r["status"] == "created"]
            with self.lock:
                self.acknowledged.extend(ids)
                if len(self.acknowledged) >= 600:
                    self.enough.set()


def test_sigkill_during_batch_ingest_loses_no_acknowledged_write(dev_env):
    env, pgdata = dev_env
    base = f"http://127.0.0.1:{env['PORT']}"
    dev = DevProcess(env)
    key = dev.said("API key:")
    assert dev.said("Database files:").startswith(str(pgdata))
    with psycopg.connect(f"postgresql://postgres@127.0.0.1:{env['ENGRAM_DEV_PG_PORT']}/engram") as conn:
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            assert conn.execute(f"SHOW {setting}").fetchone()[0] == "on", setting
        cache = conn.execute("SELECT pg_size_bytes(current_setting('shared_buffers'))").fetchone()[0]
        assert cache == shared_buffers_mb() * 1024 * 1024
        # Instants come back in datetime.UTC, as from Aurora (timezone UTC), not in a ZoneInfo of Etc/UTC.
        assert conn.execute("SELECT now()").fetchone()[0].tzinfo is UTC

    acknowledged: list[str] = []
    enough = threading.Event()
    ingest = BatchIngest(base, key, acknowledged, enough)
    workers = [threading.Thread(target=ingest.run, args=(w,)) for w in range(4)]
    for t in workers:
        t.start()
    assert enough.wait(120), "the batch ingest never got going"
    postmaster = postmaster_pid(pgdata)
    dev.proc.send_signal(signal.SIGKILL)  # mid-ingest: other batches are in flight
    os.kill(postmaster, signal.SIGKILL)  # and the database with it, as a power cut would
    for t in workers:
        t.join()
    dev.proc.wait()
    deadline = time.monotonic() + 30
    while not gone(postmaster) and time.monotonic() < deadline:
        time.sleep(0.1)

    restarted = DevProcess(env)
    try:
        assert restarted.said("API key:") == key  # the same dev key across restarts
        status, _, raw = request(base, "GET", "/v1/stats", None, key)
        assert status == 200
        stats = json.loads(raw)
        memories = {ns["namespace"]: ns["memories"] for ns in stats["namespaces"]}["durability"]
        assert memories >= len(acknowledged)
        for memory_id in acknowledged[:: max(1, len(acknowledged) // 50)] + acknowledged[-20:]:
            assert request(base, "GET", f"/v1/memories/{memory_id}", None, key)[0] == 200, memory_id
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{env['ENGRAM_DEV_PG_PORT']}/engram") as conn:
            found = conn.execute(
                "SELECT count(*) FROM memories WHERE id = ANY(%s::uuid[])", (acknowledged,)
            ).fetchone()[0]
        assert found == len(acknowledged)
        pending = wait_for_vectors(base, key)
        assert pending == 0, f"{pending} chunks never got a vector after the restart"
    finally:
        restarted.proc.send_signal(signal.SIGTERM)
        code = restarted.proc.wait(60)
    assert code == 0
    assert not (pgdata / "postmaster.pid").exists()  # SIGTERM stopped the database cleanly

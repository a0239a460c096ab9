"""`make dev` as a user runs it, killed with SIGKILL in the middle of a batch ingest.

Every write the server acknowledged is there after a restart and gets its vectors; the database
runs with fsync on; the restart prints the same API key; SIGTERM stops the database too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from engram_local.postgres import free_port
from tests.e2e.test_dev_server_protocol import request

PROJECT_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 240  # the first start runs initdb with its files synced, and loads the embedder


class DevProcess:
    """`make dev`'s server (or `cmd`) in its own process group, as a terminal or `timeout` runs it;
    waits for the banner unless `wait` is False."""

    def __init__(self, env: dict[str, str], cmd: list[str] | None = None, wait: bool = True) -> None:
        self.proc = subprocess.Popen(
            cmd or [sys.executable, "-m", "engram_local.serve"],
            env=env,
            cwd=PROJECT_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if wait and not self.ready.wait(START_TIMEOUT_S):
            self.proc.kill()
            pytest.fail("make dev never printed its API key:\n" + "".join(self.lines[-40:]))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            if line.startswith("CLI:"):  # the last line of the banner
                self.ready.set()
        self.ready.set()

    def said(self, prefix: str) -> str:
        found = [line for line in self.lines if line.startswith(prefix)]
        assert found, f"no line starting {prefix!r} in:\n{''.join(self.lines)}"
        return found[0][len(prefix) :].strip()


@pytest.fixture
def dev_env() -> Any:
    # Not under pytest's tmp_path: as root, Postgres runs as the postgres user, which must reach it.
    base = Path(tempfile.mkdtemp(prefix="engram-durability-"))
    base.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "AWS_"))}
    env.update(PORT=str(free_port()), ENGRAM_DEV_PG_PORT=str(free_port()), ENGRAM_DEV_DATA_DIR=str(base / "dev"))
    yield env, base / "dev" / "pgdata"
    subprocess.run(["rm", "-rf", str(base)], check=False)


def _postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().split()[0])


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


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


def _wait_for_vectors(base: str, key: str, timeout_s: float = 180) -> int:
    deadline = time.monotonic() + timeout_s
    while True:
        pending = json.loads(request(base, "GET", "/v1/stats", None, key)[2])["embeddings_pending"]
        if pending == 0 or time.monotonic() > deadline:
            return int(pending)
        time.sleep(1)


def test_sigkill_during_batch_ingest_loses_no_acknowledged_write(dev_env):
    env, pgdata = dev_env
    base = f"http://127.0.0.1:{env['PORT']}"
    dev = DevProcess(env)
    key = dev.said("API key:")
    assert dev.said("Database files:").startswith(str(pgdata))
    with psycopg.connect(f"postgresql://postgres@127.0.0.1:{env['ENGRAM_DEV_PG_PORT']}/engram") as conn:
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            assert conn.execute(f"SHOW {setting}").fetchone()[0] == "on", setting

    acknowledged: list[str] = []
    enough = threading.Event()
    ingest = BatchIngest(base, key, acknowledged, enough)
    workers = [threading.Thread(target=ingest.run, args=(w,)) for w in range(4)]
    for t in workers:
        t.start()
    assert enough.wait(120), "the batch ingest never got going"
    postmaster = _postmaster_pid(pgdata)
    dev.proc.send_signal(signal.SIGKILL)  # mid-ingest: other batches are in flight
    os.kill(postmaster, signal.SIGKILL)  # and the database with it, as a power cut would
    for t in workers:
        t.join()
    dev.proc.wait()
    deadline = time.monotonic() + 30
    while not _gone(postmaster) and time.monotonic() < deadline:
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
        pending = _wait_for_vectors(base, key)
        assert pending == 0, f"{pending} chunks never got a vector after the restart"
    finally:
        restarted.proc.send_signal(signal.SIGTERM)
        code = restarted.proc.wait(60)
    assert code == 0
    assert not (pgdata / "postmaster.pid").exists()  # SIGTERM stopped the database cleanly

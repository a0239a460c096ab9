"""`make dev`'s server as a user runs it, in its own process group: started and read line by line, its
embedded PostgreSQL's postmaster found and watched, its vectors waited for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.server_http import request

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


def postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().split()[0])


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_for_vectors(base: str, key: str, timeout_s: float = 180) -> int:
    deadline = time.monotonic() + timeout_s
    while True:
        pending = json.loads(request(base, "GET", "/v1/stats", None, key)[2])["embeddings_pending"]
        if pending == 0 or time.monotonic() > deadline:
            return int(pending)
        time.sleep(1)

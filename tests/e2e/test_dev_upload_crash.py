"""`make dev` killed with SIGKILL after its local S3 acknowledged an upload's PUT and before the ingest
took it: the object was on disk, so the restart puts it back, its ObjectCreated notification goes out
again, and the document becomes `ready` (not, 30 minutes later, `failed: expired: no object arrived`)."""

from __future__ import annotations

import hashlib
import json
import signal
import time
import urllib.request
from pathlib import Path

from tests.support.dev_process import DevProcess, wait_for_vectors
from tests.support.server_http import request

BODY = ("# Runbook\n\n" + "The night ferry leaves pier 7 at 23:40; the backup ferry waits at pier 2.\n" * 400).encode()


def _put(url: str, body: bytes, headers: dict[str, str]) -> int:
    with urllib.request.urlopen(urllib.request.Request(url, data=body, method="PUT", headers=headers), timeout=60) as r:
        return int(r.status)


def _kept(objects: Path) -> list[str]:
    return sorted(p.name for p in objects.iterdir()) if objects.exists() else []


def test_sigkill_between_the_put_and_the_ingest_loses_no_upload(dev_env):
    env, pgdata = dev_env
    objects = pgdata.parent / "s3"
    env.update(ENGRAM_CONSOLIDATION_INTERVAL_S="0")
    base = f"http://127.0.0.1:{env['PORT']}"
    dev = DevProcess({**env, "ENGRAM_DEV_PAUSE_UPLOAD_INGEST": "1"})  # the PUT lands, the ingest waits
    key = dev.said("API key:")
    assert dev.said("Uploaded objects:").startswith(str(objects))
    ticket_req = {"size_bytes": len(BODY), "sha256": hashlib.sha256(BODY).hexdigest(), "content_type": "text/markdown"}
    status, _, raw = request(base, "POST", "/v1/documents/uploads", ticket_req, key)
    assert status == 201, raw
    ticket = json.loads(raw)
    assert _put(ticket["url"], BODY, ticket["headers"]) == 200  # acknowledged by the local S3
    upload = f"/v1/documents/uploads/{ticket['upload_id']}"
    time.sleep(2)  # time enough for a poller that was not paused
    assert json.loads(request(base, "GET", upload, None, key)[2])["status"] == "pending"
    assert len(_kept(objects)) == 1
    dev.proc.send_signal(signal.SIGKILL)
    dev.proc.wait()

    restarted = DevProcess(env)
    try:
        assert restarted.said("Re-sent").startswith("1 uploaded object")
        deadline = time.monotonic() + 120
        while (state := json.loads(request(base, "GET", upload, None, key)[2]))["status"] == "pending":
            assert time.monotonic() < deadline, "the upload is still pending after the restart"
            time.sleep(0.5)
        assert state["status"] == "ready", state
        status, _, raw = request(base, "GET", f"/v1/memories/{state['memory_id']}", None, key)
        assert status == 200 and b"pier 7" in raw
        assert _kept(objects) == []  # settled: the ingest deleted the object, and its copy with it
        assert wait_for_vectors(base, key) == 0  # its chunks embedded: recall finds it by meaning too
    finally:
        restarted.proc.send_signal(signal.SIGTERM)
        code = restarted.proc.wait(60)
        assert code == 0, "".join(restarted.lines[-30:])
    third = DevProcess(env)  # nothing left to re-send
    try:
        assert not [line for line in third.lines if line.startswith("Re-sent")]
    finally:
        third.proc.send_signal(signal.SIGTERM)
        third.proc.wait(60)

"""Export and import over real HTTP against the local server, with the export and import workers fed
by their queues as `make dev` runs them: a file out of one tenant, through S3, into another."""

from __future__ import annotations

import hashlib
import time
import urllib.request

import pytest

from engram_local.aws import SqsPoller, complete_s3_notification
from tests.support.server_http import call


@pytest.fixture(scope="module")
def workers(stack):
    pollers = [
        SqsPoller(stack.export_queue_url, "export_worker", batch_size=1),
        SqsPoller(stack.import_events_queue_url, "import_worker", batch_size=1, shape_body=complete_s3_notification),
    ]
    threads = [p.start() for p in pollers]
    yield
    for poller, thread in zip(pollers, threads, strict=True):
        poller.stop()
        thread.join(timeout=30)


def wait_for(server: str, path: str, key: str, status: str) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        code, body = call(server, "GET", path, key=key)
        assert code == 200, body
        if body["status"] not in ("queued", "running", "pending"):
            assert body["status"] == status, body
            return body
        time.sleep(0.3)
    pytest.fail(f"{path} never settled")


def test_a_file_goes_out_of_one_tenant_and_into_another(server, stack, workers, make_tenant):
    source, target = make_tenant("e2e-export").key, make_tenant("e2e-import").key
    notes = ["The staging database moved to eu-west-1.", "Deploys freeze on Fridays after 15:00."]
    for text in notes:
        assert call(server, "POST", "/v1/memories", {"content": text, "namespace": "e2e-port"}, source)[0] == 201
    code, job = call(server, "POST", "/v1/exports", {"namespace": "e2e-port"}, source)
    assert code == 202, job
    ready = wait_for(server, f"/v1/exports/{job['id']}", source, "ready")
    assert ready["counts"]["memories"] == 2
    with urllib.request.urlopen(ready["download_url"], timeout=60) as resp:
        data = resp.read()

    code, ticket = call(
        server, "POST", "/v1/imports", {"size_bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}, target
    )
    assert code == 201, ticket
    put = urllib.request.Request(ticket["upload_url"], data=data, method="PUT", headers=ticket["headers"])
    with urllib.request.urlopen(put, timeout=60) as resp:
        assert resp.status == 200
    done = wait_for(server, f"/v1/imports/{ticket['id']}", target, "done")
    assert done["report"]["imported"]["memories"] == 2 and done["report"]["mapped_ids"] == 2
    code, page = call(server, "GET", "/v1/memories?namespace=e2e-port", key=target)
    assert sorted(m["content"] for m in page["items"]) == sorted(notes)

"""Export files through the API: an export job drained and downloaded, an import uploaded to its
presigned URL and drained, and export files written by hand line by line."""

from __future__ import annotations

import hashlib
import json
import urllib.request
import uuid
from typing import Any


def _http(method: str, url: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> bytes:
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    with urllib.request.urlopen(req, timeout=120) as resp:
        return bytes(resp.read())


def export_file(api: Any, stack: Any, namespace: str | None = None) -> tuple[dict[str, Any], bytes]:
    r = api.post("/v1/exports", {} if namespace is None else {"namespace": namespace})
    assert r.status == 202, r.body
    assert r.body["status"] == "queued" and r.body["download_url"] is None
    stack.export_poller.drain()
    job = api.get(f"/v1/exports/{r.body['id']}")
    assert job.status == 200 and job.body["status"] == "ready", job.body
    data = _http("GET", job.body["download_url"])
    assert len(data) == job.body["bytes"]
    return job.body, data


def import_file(api: Any, stack: Any, data: bytes, **options: Any) -> dict[str, Any]:
    ticket = api.post("/v1/imports", {"size_bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), **options})
    assert ticket.status == 201, ticket.body
    assert ticket.body["status"] == "pending"
    _http("PUT", ticket.body["upload_url"], data, ticket.body["headers"])
    stack.import_poller.drain()
    job = api.get(f"/v1/imports/{ticket.body['id']}")
    assert job.status == 200, job.body
    return dict(job.body)


HEADER = {"type": "header", "format": "engram-export", "version": 1, "exported_at": "2026-11-01T00:00:00Z"}


def memory_line(content: str, namespace: str, **fields: Any) -> dict[str, Any]:
    """A memory line of an export file, with a fresh id."""
    line = {"type": "memory", "id": str(uuid.uuid4()), "content": content, "namespace": namespace}
    return {**line, "created_at": "2026-11-01T00:00:00Z", **fields}


def export_bytes(*lines: dict[str, Any]) -> bytes:
    """An export file: the header, then these lines."""
    return "".join(json.dumps(x) + "\n" for x in (HEADER, *lines)).encode()

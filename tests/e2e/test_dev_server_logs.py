"""Concurrent requests on the dev server stay apart: each reads its own event, a 500's request_id
leads to its log lines, and each line names the function that wrote it."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import threading
from typing import Any

import pytest

from tests.support.server_http import request


@pytest.fixture
def log_lines(stack):
    """The JSON lines the route functions' and the embed worker's Powertools loggers write, as
    they would reach CloudWatch (their service name is whatever it was when they were imported)."""
    from engram_http.errors import logger as route_logger
    from engram_local.lambda_runtime import load_function

    sink = io.StringIO()
    attached = []
    worker_logger = load_function("embed_worker").logger
    for powertools in {route_logger.name: route_logger, worker_logger.name: worker_logger}.values():
        handler = logging.StreamHandler(sink)
        handler.setFormatter(powertools.registered_formatter)
        target = logging.getLogger(powertools.name)
        target.addHandler(handler)
        attached.append((target, handler))
    try:
        yield lambda: [json.loads(line) for line in sink.getvalue().splitlines() if line.startswith("{")]
    finally:
        for target, handler in attached:
            target.removeHandler(handler)


def test_a_request_never_reads_another_requests_event(server, make_tenant, monkeypatch):
    from engram_http.routes import recall

    first, second = make_tenant("first"), make_tenant("second")
    status, _, raw = request(server, "POST", "/v1/memories", {"content": "zanzibar ledger entry"}, first.key)
    assert status == 201
    memory_id = json.loads(raw)["memory"]["id"]
    recall_inside, other_done = threading.Event(), threading.Event()
    real_principal = recall.principal

    def slow_principal(*args: Any, **kwargs: Any) -> Any:
        recall_inside.set()
        other_done.wait(2)  # long enough for the other request, if it is let in meanwhile
        return real_principal(*args, **kwargs)

    monkeypatch.setattr(recall, "principal", slow_principal)
    answers: dict[str, Any] = {}

    def recall_first() -> None:
        answers["recall"] = request(server, "POST", "/v1/recall", {"query": "zanzibar", "mode": "keyword"}, first.key)

    thread = threading.Thread(target=recall_first)
    thread.start()
    assert recall_inside.wait(20)
    answers["list"] = request(server, "GET", "/v1/memories?limit=1", None, second.key)
    other_done.set()
    thread.join()
    status, _, body = answers["recall"]
    assert status == 200, body  # its own body, and its own caller: not the GET's tenant
    assert [r["memory_id"] for r in json.loads(body)["results"]] == [memory_id]
    assert answers["list"][0] == 200


def test_a_500s_request_id_is_on_its_log_lines_and_each_line_names_its_function(server, tenant, log_lines, monkeypatch):
    from engram_http.routes import memories
    from engram_local.lambda_runtime import invoke, load_function

    route_inside, worker_started = threading.Event(), threading.Event()

    def crash(*_: Any, **__: Any) -> Any:
        route_inside.set()
        worker_started.wait(20)  # the embed worker has begun its invocation on another thread
        raise RuntimeError("injected failure")

    def embed_ahead(event: dict[str, Any]) -> None:
        route_inside.wait(20)
        worker_started.set()
        load_function("embed_worker").logger.info("embed worker line")

    monkeypatch.setattr(memories, "principal", crash)
    monkeypatch.setattr(load_function("embed_worker"), "embed_ahead", embed_ahead)

    def run_worker() -> None:
        with contextlib.suppress(Exception):  # an empty batch is refused after embed_ahead; only its log counts
            invoke("embed_worker", {"Records": []})

    worker = threading.Thread(target=run_worker)
    worker.start()
    status, _, raw = request(server, "GET", "/v1/memories", None, tenant.key)
    worker.join()
    body = json.loads(raw)
    assert status == 500 and body["error"]["code"] == "internal_error"
    request_id = body["error"]["details"]["request_id"]
    lines = log_lines()
    found = [line for line in lines if line.get("correlation_id") == request_id]
    assert found, f"no log line carries the request_id {request_id} the client got"
    assert {line["function_name"] for line in found} == {"memories"}
    assert any("injected failure" in line.get("exception", "") for line in found)
    worker_lines = [line for line in lines if line["message"] == "embed worker line"]
    assert worker_lines and worker_lines[0]["function_name"] == "embed_worker"
    assert "correlation_id" not in worker_lines[0]


def test_eight_tenants_inside_one_function_at_once_each_get_their_own(server, make_tenant, monkeypatch):
    from engram_http.routes import memories

    tenants = [make_tenant(f"side-by-side-{i}") for i in range(8)]
    own = {}
    for t in tenants:
        status, _, raw = request(server, "POST", "/v1/memories", {"content": f"only for {t.id}"}, t.key)
        assert status == 201
        own[t.key] = json.loads(raw)["memory"]["id"]
    all_inside = threading.Barrier(len(tenants), timeout=20)
    real_principal = memories.principal

    def principal_once_all_are_inside(*args: Any, **kwargs: Any) -> Any:
        all_inside.wait()  # eight invocations of the memories function in flight together
        return real_principal(*args, **kwargs)

    monkeypatch.setattr(memories, "principal", principal_once_all_are_inside)
    answers: dict[str, Any] = {}

    def list_own(key: str) -> None:
        answers[key] = request(server, "GET", "/v1/memories?limit=5", None, key)

    threads = [threading.Thread(target=list_own, args=(t.key,)) for t in tenants]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key, (status, _, raw) in answers.items():
        assert status == 200, raw
        assert [m["id"] for m in json.loads(raw)["items"]] == [own[key]]

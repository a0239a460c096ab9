"""Recall's `rerank` against a local stand-in for the Bedrock agent runtime's Rerank API.

The real boto3 client runs end to end (endpoint, SigV4 signing, retries, error parsing); only the
server is fake. It scores each document by a rule the test sets, so the order it must produce is known.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

NOTES = [
    "The production database runs PostgreSQL 16 on Aurora Serverless.",
    "Database backups are taken every night and kept for 35 days.",
    "Maria prefers her coffee black with no sugar.",
    "The database connection pool holds at most 20 connections per Lambda.",
    "Our cat Biscuit is afraid of the vacuum cleaner.",
]
MODEL = "amazon.rerank-v1:0"


@dataclass
class FakeRerank:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    score: Callable[[str], float] = lambda text: 1.0 / len(text)  # shortest first: not the fused order
    failure: tuple[int, str] | None = None  # (status, error type) every call answers with
    answers: int | None = None  # score only the first N documents (None: all)


@pytest.fixture
def fake_rerank() -> Iterator[FakeRerank]:
    state: dict[str, FakeRerank] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            fake = state["fake"]
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            fake.requests.append({"path": self.path, **body})
            fake.headers.append(dict(self.headers))
            if fake.failure is not None:
                status, error_type = fake.failure
                return self._reply(status, {"message": f"fake {error_type}"}, error_type)
            texts = [s["inlineDocumentSource"]["textDocument"]["text"] for s in body["sources"]]
            scored = sorted(enumerate(texts), key=lambda it: -fake.score(it[1]))
            results = [{"index": i, "relevanceScore": fake.score(t)} for i, t in scored][: fake.answers]
            self._reply(200, {"results": results})

        def _reply(self, status: int, payload: dict[str, Any], error_type: str | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if error_type:
                self.send_header("x-amzn-ErrorType", f"{error_type}:http://internal.amazon.com/coral/")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state["fake"] = FakeRerank(url=f"http://127.0.0.1:{server.server_address[1]}")
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield state["fake"]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def settings_env(monkeypatch: pytest.MonkeyPatch, stack: Any, tmp_path: Any) -> Iterator[Callable[..., None]]:
    from engram_local.stack import LocalStack

    def setenv(**values: str) -> None:
        for key, value in values.items():
            monkeypatch.setenv(key, value)
        LocalStack.refresh_settings()

    # Fake credentials, never a developer's profile: the real client signs every request.
    setenv(
        AWS_ACCESS_KEY_ID="AKIDFAKEFAKEFAKE",
        AWS_SECRET_ACCESS_KEY="fake-secret",
        AWS_SESSION_TOKEN="fake-token",
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE=str(tmp_path / "no-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no-credentials"),
        AWS_REGION="us-east-1",
    )
    yield setenv
    monkeypatch.undo()
    LocalStack.refresh_settings()


@pytest.fixture
def reranker(settings_env: Callable[..., None], fake_rerank: FakeRerank) -> FakeRerank:
    settings_env(ENGRAM_RERANK_MODEL=MODEL, ENGRAM_BEDROCK_AGENT_ENDPOINT_URL=fake_rerank.url)
    return fake_rerank


@pytest.fixture
def notes(api: Any, drain: Callable[[], None]) -> dict[str, str]:
    ids = {}
    for text in NOTES:
        r = api.post("/v1/memories", {"content": text, "namespace": "kb"})
        assert r.status == 201
        ids[r.body["memory"]["id"]] = text
    drain()
    return ids


def recall(api: Any, **body: Any) -> dict[str, Any]:
    r = api.post("/v1/recall", {"namespace": "kb", "query": "database", "touch": False, "limit": 5, **body})
    assert r.status == 200, r.body
    return r.body


def test_rerank_orders_by_the_rerankers_relevance(api: Any, notes: dict[str, str], reranker: FakeRerank) -> None:
    fused = recall(api, diversify=False)
    body = recall(api, rerank=True, explain=True, diversify=False)
    assert body["degraded"] == []
    texts = [notes[h["memory_id"]] for h in body["results"]]
    assert texts == sorted(texts, key=len)  # the fake's order: shortest first
    assert texts != [notes[h["memory_id"]] for h in fused["results"]]
    for hit in body["results"]:
        assert hit["explain"]["rerank"] == pytest.approx(1.0 / len(notes[hit["memory_id"]]))
        assert hit["score"] == round(hit["explain"]["rerank"], 6)  # the score is what ordered them
        assert hit["explain"]["fused"] > 0

    [request] = reranker.requests
    assert request["path"] == "/rerank"
    assert request["queries"] == [{"type": "TEXT", "textQuery": {"text": "database"}}]
    config = request["rerankingConfiguration"]
    assert config["type"] == "BEDROCK_RERANKING_MODEL"
    model = config["bedrockRerankingConfiguration"]["modelConfiguration"]["modelArn"]
    assert model == f"arn:aws:bedrock:us-east-1::foundation-model/{MODEL}"
    assert len(request["sources"]) == len(NOTES)  # every fused candidate (fewer than rerank_candidates)
    assert "/us-east-1/bedrock/aws4_request" in reranker.headers[0]["Authorization"]


def test_rerank_candidates_bounds_what_is_sent(
    api: Any, notes: dict[str, str], reranker: FakeRerank, settings_env: Callable[..., None]
) -> None:
    settings_env(ENGRAM_RERANK_CANDIDATES="3")
    body = recall(api, rerank=True, limit=2, diversify=False)
    assert len(reranker.requests[0]["sources"]) == 3
    assert len(body["results"]) == 2
    body = recall(api, rerank=True, limit=4, diversify=False)
    assert len(reranker.requests[1]["sources"]) == 4  # never fewer than the results asked for


def test_rerank_with_diversify_keeps_the_rerankers_best_first(
    api: Any, notes: dict[str, str], reranker: FakeRerank
) -> None:
    reranker.score = lambda text: 0.9 if "Biscuit" in text else 0.01
    body = recall(api, rerank=True)
    assert "Biscuit" in notes[body["results"][0]["memory_id"]]


def test_rerank_sees_only_the_tenants_own_memories(
    api: Any, notes: dict[str, str], reranker: FakeRerank, make_tenant: Any, api_for: Any, drain: Any
) -> None:
    other = api_for(make_tenant("other").key)
    made = other.post("/v1/memories", {"content": "The database of the other tenant is SECRET", "namespace": "kb"})
    assert made.status == 201
    drain()
    body = recall(api, rerank=True)
    assert set(h["memory_id"] for h in body["results"]) <= set(notes)
    sent = [s["inlineDocumentSource"]["textDocument"]["text"] for s in reranker.requests[0]["sources"]]
    assert sent and not any("SECRET" in t for t in sent)


@pytest.mark.parametrize(("status", "error_type"), [(503, "ServiceUnavailableException"), (429, "ThrottlingException")])
def test_a_failing_reranker_degrades_to_the_fused_order(
    api: Any, notes: dict[str, str], reranker: FakeRerank, status: int, error_type: str
) -> None:
    fused = recall(api)
    reranker.failure = (status, error_type)
    body = recall(api, rerank=True, explain=True)
    assert body["degraded"] == [f"rerank_unavailable: {error_type}"]
    assert [h["memory_id"] for h in body["results"]] == [h["memory_id"] for h in fused["results"]]
    assert all(h["explain"]["rerank"] is None for h in body["results"])
    assert len(reranker.requests) == 2  # botocore retried once, then recall gave up on it


def test_an_incomplete_rerank_answer_degrades(api: Any, notes: dict[str, str], reranker: FakeRerank) -> None:
    fused = recall(api)
    reranker.answers = 2  # a score missing for the others: no order can be trusted
    body = recall(api, rerank=True)
    assert body["degraded"] == [f"rerank_unavailable: the reranker scored 2 of {len(NOTES)} texts"]
    assert [h["memory_id"] for h in body["results"]] == [h["memory_id"] for h in fused["results"]]


def test_a_model_arn_is_sent_as_it_is(
    api: Any, notes: dict[str, str], reranker: FakeRerank, settings_env: Callable[..., None]
) -> None:
    arn = "arn:aws:bedrock:eu-central-1::foundation-model/cohere.rerank-v3-5:0"
    settings_env(ENGRAM_RERANK_MODEL=arn)
    assert recall(api, rerank=True)["degraded"] == []
    config = reranker.requests[0]["rerankingConfiguration"]["bedrockRerankingConfiguration"]
    assert config["modelConfiguration"]["modelArn"] == arn


def test_without_a_configured_reranker_rerank_degrades(
    api: Any, notes: dict[str, str], settings_env: Callable[..., None]
) -> None:
    fused = recall(api)
    body = recall(api, rerank=True)
    assert body["degraded"] == ["rerank_unavailable: no reranker configured (ENGRAM_RERANK_MODEL)"]
    assert [h["memory_id"] for h in body["results"]] == [h["memory_id"] for h in fused["results"]]


def test_the_recall_module_loads_neither_boto3_nor_anthropic() -> None:
    # Cold starts: the clients are imported on a recall that asks for rerank or rewrite_query, never before.
    layers = str(Path(__file__).parents[2] / "layers")
    code = "import sys, engram.recall.service; print(sorted({'boto3', 'anthropic'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": layers}, capture_output=True)
    assert out.stdout.decode().strip() == "[]", out.stderr.decode()

"""Recall's `rerank` against a local stand-in for the Bedrock agent runtime's Rerank API.

The real boto3 client runs end to end (endpoint, SigV4 signing, retries, error parsing); only the
server is fake. It scores each document by a rule the test sets, so the order it must produce is known.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engram_local.json_stand_in import JsonStandIn, Reply, Request

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
    """Bedrock's Rerank API on a JsonStandIn: scores each document by `score`, or fails as told."""

    score: Callable[[str], float] = lambda text: 1.0 / len(text)  # shortest first: not the fused order
    failure: tuple[int, str] | None = None  # (status, error type) every call answers with
    answers: int | None = None  # score only the first N documents (None: all)
    stand_in: JsonStandIn = field(init=False)

    def __post_init__(self) -> None:
        self.stand_in = JsonStandIn(self.respond)

    @property
    def url(self) -> str:
        return self.stand_in.url

    @property
    def requests(self) -> list[dict[str, Any]]:
        return [{"path": r.path, **r.body} for r in self.stand_in.requests]

    @property
    def headers(self) -> list[dict[str, str]]:
        return [r.headers for r in self.stand_in.requests]

    def respond(self, request: Request) -> Reply | dict[str, Any]:
        if self.failure is not None:
            status, error_type = self.failure
            # How the real service names the error for the rest-json protocol.
            header = {"x-amzn-ErrorType": f"{error_type}:http://internal.amazon.com/coral/"}
            return Reply(status, {"message": f"fake {error_type}"}, header)
        texts = [s["inlineDocumentSource"]["textDocument"]["text"] for s in request.body["sources"]]
        scored = sorted(enumerate(texts), key=lambda it: -self.score(it[1]))
        return {"results": [{"index": i, "relevanceScore": self.score(t)} for i, t in scored][: self.answers]}


@pytest.fixture
def fake_rerank() -> Iterator[FakeRerank]:
    fake = FakeRerank()
    try:
        yield fake
    finally:
        fake.stand_in.close()


@pytest.fixture
def aws_env(settings_env: Callable[..., None], tmp_path: Any) -> Callable[..., None]:
    """conftest's settings_env, with fake credentials, never a developer's profile: the real client
    signs every request."""
    settings_env(
        AWS_ACCESS_KEY_ID="AKIDFAKEFAKEFAKE",
        AWS_SECRET_ACCESS_KEY="fake-secret",
        AWS_SESSION_TOKEN="fake-token",
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE=str(tmp_path / "no-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no-credentials"),
        AWS_REGION="us-east-1",
    )
    return settings_env


@pytest.fixture
def reranker(aws_env: Callable[..., None], fake_rerank: FakeRerank) -> FakeRerank:
    aws_env(ENGRAM_RERANK_MODEL=MODEL, ENGRAM_BEDROCK_AGENT_ENDPOINT_URL=fake_rerank.url)
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
    api: Any, notes: dict[str, str], reranker: FakeRerank, aws_env: Callable[..., None]
) -> None:
    aws_env(ENGRAM_RERANK_CANDIDATES="3")
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
    api: Any, notes: dict[str, str], reranker: FakeRerank, aws_env: Callable[..., None]
) -> None:
    arn = "arn:aws:bedrock:eu-central-1::foundation-model/cohere.rerank-v3-5:0"
    aws_env(ENGRAM_RERANK_MODEL=arn)
    assert recall(api, rerank=True)["degraded"] == []
    config = reranker.requests[0]["rerankingConfiguration"]["bedrockRerankingConfiguration"]
    assert config["modelConfiguration"]["modelArn"] == arn


def test_without_a_configured_reranker_rerank_degrades(
    api: Any, notes: dict[str, str], aws_env: Callable[..., None]
) -> None:
    fused = recall(api)
    body = recall(api, rerank=True)
    assert body["degraded"] == ["rerank_unavailable: no reranker configured (ENGRAM_RERANK_MODEL)"]
    assert [h["memory_id"] for h in body["results"]] == [h["memory_id"] for h in fused["results"]]


def test_the_recall_module_loads_neither_boto3_nor_anthropic() -> None:
    # Cold starts: the clients are imported on a recall that asks for rerank or rewrite_query, never before.
    layers = str(Path(__file__).parents[3] / "layers")
    code = "import sys, engram.recall.service; print(sorted({'boto3', 'anthropic'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": layers}, capture_output=True)
    assert out.stdout.decode().strip() == "[]", out.stderr.decode()

"""BedrockTitanEmbedder against a local HTTP stand-in for the Bedrock runtime endpoint.

The real boto3 client runs end to end (endpoint resolution, SigV4 signing, retries, error
parsing); only the server is fake. moto's bedrock-runtime returns `{}`, so it cannot test this.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

import pytest

pytest.importorskip("boto3")

from engram.adapters.embeddings.base import EmbedderUnavailable
from engram.adapters.embeddings.bedrock import BedrockTitanEmbedder
from engram.core import config

MODEL = "amazon.titan-embed-text-v2:0"


def fake_vector(text: str, dimension: int) -> list[float]:
    """Deterministic unit vector per text, so tests can check which text each result belongs to."""
    seed = hashlib.sha256(text.encode()).digest()
    raw = [((seed[i % 32] + 31 * i) % 97) - 48.0 for i in range(dimension)]
    norm = math.sqrt(sum(v * v for v in raw))
    return [v / norm for v in raw]


@dataclass
class FakeBedrock:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    # Behaviour of the next responses: "ok", or (status, error type) to fail with.
    mode: Any = "ok"
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def fake_bedrock() -> Iterator[FakeBedrock]:
    state: dict[str, FakeBedrock] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            fake = state["fake"]
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            with fake.lock:
                fake.requests.append({"path": unquote(self.path), "headers": dict(self.headers), "body": body})
            parts = unquote(self.path).strip("/").split("/")
            if len(parts) != 3 or parts[0] != "model" or parts[2] != "invoke":
                return self._reply(404, {"message": "no such route"}, "ResourceNotFoundException")
            if fake.mode != "ok":
                status, error_type = fake.mode
                return self._reply(status, {"message": f"fake {error_type}"}, error_type)
            vector = fake_vector(body["inputText"], body.get("dimensions", 1024))
            self._reply(200, {"embedding": vector, "inputTextTokenCount": len(body["inputText"].split())})

        def _reply(self, status: int, payload: dict[str, Any], error_type: str | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if error_type:
                # How the real service names the error for the rest-json protocol.
                self.send_header("x-amzn-ErrorType", f"{error_type}:http://internal.amazon.com/coral/")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["fake"] = FakeBedrock(url=f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state["fake"]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def fake_aws_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDFAKEFAKEFAKE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "fake-token")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    # Never read a developer's real profile.
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def make(fake: FakeBedrock, dimension: int = 1024, **kw: Any) -> BedrockTitanEmbedder:
    return BedrockTitanEmbedder(dimension, region="us-east-1", endpoint_url=fake.url, **kw)


def test_embeds_through_the_real_boto3_client(fake_bedrock: FakeBedrock) -> None:
    embedder = make(fake_bedrock)
    [vector] = embedder.embed(["I live in Lisbon"])
    assert embedder.model_id == "amazon.titan-embed-text-v2:0/1024"
    assert embedder.dimension == 1024
    assert len(vector) == 1024
    assert abs(math.sqrt(sum(v * v for v in vector)) - 1) < 1e-9
    assert vector == pytest.approx(fake_vector("I live in Lisbon", 1024))

    [request] = fake_bedrock.requests
    assert request["path"] == f"/model/{MODEL}/invoke"
    assert request["body"] == {"inputText": "I live in Lisbon", "dimensions": 1024, "normalize": True}
    assert request["headers"]["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDFAKEFAKEFAKE/")
    assert "/us-east-1/bedrock/aws4_request" in request["headers"]["Authorization"]


@pytest.mark.parametrize("dimension", [512, 256])
def test_configurable_dimension(fake_bedrock: FakeBedrock, dimension: int) -> None:
    embedder = make(fake_bedrock, dimension)
    assert embedder.model_id == f"{MODEL}/{dimension}"
    assert len(embedder.embed(["x"])[0]) == dimension
    assert fake_bedrock.requests[0]["body"]["dimensions"] == dimension


def test_rejects_unsupported_dimension() -> None:
    with pytest.raises(ValueError):
        BedrockTitanEmbedder(384)


def test_batch_fans_out_and_keeps_order(fake_bedrock: FakeBedrock) -> None:
    texts = [f"memory number {i}" for i in range(25)]
    vectors = make(fake_bedrock, 256, max_workers=4).embed(texts)
    assert len(fake_bedrock.requests) == 25  # one text per call
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(fake_vector(text, 256))
    assert sorted(r["body"]["inputText"] for r in fake_bedrock.requests) == sorted(texts)


def test_long_input_is_clipped_not_rejected(fake_bedrock: FakeBedrock) -> None:
    make(fake_bedrock, 256).embed(["a" * 60_000])
    assert len(fake_bedrock.requests[0]["body"]["inputText"]) == 50_000


@pytest.mark.parametrize(
    ("status", "error_type"),
    [(503, "ServiceUnavailableException"), (429, "ThrottlingException"), (500, "InternalServerException")],
)
def test_service_errors_become_unavailable_after_retries(
    fake_bedrock: FakeBedrock, status: int, error_type: str
) -> None:
    fake_bedrock.mode = (status, error_type)
    with pytest.raises(EmbedderUnavailable, match=error_type):
        make(fake_bedrock, max_attempts=2).embed(["hello"])
    assert len(fake_bedrock.requests) == 2  # botocore retried once before giving up


def test_errors_in_a_batch_become_unavailable(fake_bedrock: FakeBedrock) -> None:
    fake_bedrock.mode = (429, "ThrottlingException")
    with pytest.raises(EmbedderUnavailable):
        make(fake_bedrock, max_attempts=1).embed(["a", "b", "c"])


def test_access_denied_is_unavailable(fake_bedrock: FakeBedrock) -> None:
    fake_bedrock.mode = (403, "AccessDeniedException")  # model access not enabled in the account
    with pytest.raises(EmbedderUnavailable, match="AccessDenied"):
        make(fake_bedrock, max_attempts=1).embed(["hello"])


def test_validation_error_is_the_callers_problem(fake_bedrock: FakeBedrock) -> None:
    fake_bedrock.mode = (400, "ValidationException")
    with pytest.raises(ValueError) as info:
        make(fake_bedrock, max_attempts=3).embed(["hello"])
    assert not isinstance(info.value, EmbedderUnavailable)
    assert len(fake_bedrock.requests) == 1  # not retried


def test_empty_text_is_refused_before_calling(fake_bedrock: FakeBedrock) -> None:
    with pytest.raises(ValueError):
        make(fake_bedrock).embed(["ok", "  "])
    assert fake_bedrock.requests == []


def test_unreachable_endpoint_is_unavailable() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    embedder = BedrockTitanEmbedder(
        256, region="us-east-1", endpoint_url=f"http://127.0.0.1:{port}", max_attempts=1, connect_timeout=1
    )
    with pytest.raises(EmbedderUnavailable):
        embedder.embed(["hello"])


def test_wrong_sized_response_is_unavailable() -> None:
    class Client:  # an injected client: the size check does not depend on the transport
        def invoke_model(self, **kwargs: Any) -> dict[str, Any]:
            return {"body": io.BytesIO(json.dumps({"embedding": [0.1] * 10}).encode())}

    with pytest.raises(EmbedderUnavailable, match="10 values"):
        BedrockTitanEmbedder(256, client=Client()).embed(["x"])


def test_factory_builds_bedrock_from_env(fake_bedrock: FakeBedrock, monkeypatch: pytest.MonkeyPatch) -> None:
    from engram.adapters.embeddings.factory import embedder_from_env

    monkeypatch.setenv("ENGRAM_EMBEDDER", "bedrock")
    monkeypatch.setenv("ENGRAM_EMBED_DIM", "512")
    monkeypatch.setenv("ENGRAM_BEDROCK_ENDPOINT_URL", fake_bedrock.url)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    config.reload_settings()
    embedder_from_env.cache_clear()
    try:
        embedder = embedder_from_env()
        assert isinstance(embedder, BedrockTitanEmbedder)
        assert embedder.model_id == f"{MODEL}/512"
        assert embedder_from_env() is embedder
        assert len(embedder.embed(["hello"])[0]) == 512
        assert "/eu-west-1/bedrock/" in fake_bedrock.requests[0]["headers"]["Authorization"]
    finally:
        monkeypatch.undo()
        config.reload_settings()
        embedder_from_env.cache_clear()

"""Amazon Titan Text Embeddings v2 on Bedrock: the managed embedder for the cloud deployment.

Titan v2 takes one text per InvokeModel call, so batches fan out over a small thread pool (boto3
clients are thread-safe). botocore's adaptive retry mode handles throttling with client-side rate
limiting; whatever still fails (throttled, 5xx, unreachable, model not enabled) becomes
`EmbedderUnavailable` so callers can retry the whole job later (e.g. leave the SQS message).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engram.adapters.embeddings.base import EmbedderUnavailable

TITAN_V2 = "amazon.titan-embed-text-v2:0"
TITAN_V2_DIMENSIONS = (1024, 512, 256)
# Titan v2 rejects inputs over 50,000 characters (and 8,192 tokens); clip rather than fail a batch.
MAX_INPUT_CHARS = 50_000
# Caller mistakes: retrying cannot help, so they are not "unavailable".
_CALLER_ERRORS = frozenset({"ValidationException"})


class BedrockTitanEmbedder:
    """`Embedder` over Bedrock InvokeModel with Titan Text Embeddings v2 (unit vectors)."""

    def __init__(
        self,
        dimension: int = 1024,
        *,
        model: str = TITAN_V2,
        region: str | None = None,
        endpoint_url: str | None = None,
        max_workers: int = 8,
        max_attempts: int = 5,  # in total, first try included
        connect_timeout: float = 3.0,
        read_timeout: float = 20.0,
        client: Any = None,
    ) -> None:
        if dimension not in TITAN_V2_DIMENSIONS:
            raise ValueError(f"Titan v2 dimension must be one of {TITAN_V2_DIMENSIONS}, got {dimension}")
        self.dimension = dimension
        self.model = model
        # The dimension is part of the recorded id: 256-d and 1024-d vectors are not comparable.
        self.model_id = f"{model}/{dimension}"
        self._region = region
        self._endpoint_url = endpoint_url
        self._max_workers = max_workers
        self._max_attempts = max_attempts
        self._timeouts = (connect_timeout, read_timeout)
        self._client = client
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    # boto3 is imported and the client built on first use: a Lambda that never embeds (or uses
    # the local embedder) does not pay for it.
    def _get_client(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    import boto3
                    from botocore.config import Config

                    config = Config(
                        retries={"mode": "adaptive", "total_max_attempts": self._max_attempts},
                        connect_timeout=self._timeouts[0],
                        read_timeout=self._timeouts[1],
                        max_pool_connections=max(10, self._max_workers),
                    )
                    # Its own session: credentials resolved now, not whatever the process-wide
                    # default session cached earlier.
                    self._client = boto3.session.Session().client(
                        "bedrock-runtime",
                        region_name=self._region,
                        endpoint_url=self._endpoint_url,
                        config=config,
                    )
        return self._client

    def _get_pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self._max_workers, thread_name_prefix="titan-embed")
        return self._pool

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single string")
        for text in texts:
            if not text or not text.strip():
                # Titan rejects empty input; a made-up vector would silently match other blanks.
                raise ValueError("cannot embed an empty or whitespace-only text with Titan")
        client = self._get_client()
        if len(texts) <= 1:
            return [self._embed_one(client, text) for text in texts]
        # map() keeps input order and re-raises the first failure.
        return list(self._get_pool().map(lambda text: self._embed_one(client, text), texts))

    def _embed_one(self, client: Any, text: str) -> list[float]:
        from botocore.exceptions import BotoCoreError, ClientError

        body = json.dumps({"inputText": text[:MAX_INPUT_CHARS], "dimensions": self.dimension, "normalize": True})
        try:
            response = client.invoke_model(
                modelId=self.model, body=body, contentType="application/json", accept="application/json"
            )
            payload = json.loads(response["body"].read())
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in _CALLER_ERRORS:
                raise ValueError(f"Bedrock rejected the input: {exc}") from exc
            raise EmbedderUnavailable(f"Bedrock {self.model} unavailable ({code or 'error'}): {exc}") from exc
        except BotoCoreError as exc:  # endpoint unreachable, timeouts, missing credentials
            raise EmbedderUnavailable(f"Bedrock {self.model} unreachable: {exc}") from exc
        except ValueError as exc:  # response body is not JSON
            raise EmbedderUnavailable(f"Bedrock {self.model} returned a malformed body: {exc}") from exc
        return self._check(payload)

    def _check(self, payload: Any) -> list[float]:
        vector = payload.get("embedding") if isinstance(payload, dict) else None
        if not isinstance(vector, list) or len(vector) != self.dimension:
            got = len(vector) if isinstance(vector, list) else type(vector).__name__
            raise EmbedderUnavailable(f"Bedrock {self.model} returned {got} values, expected {self.dimension}")
        # Titan normalises when asked; renormalise anyway so the unit-norm contract never depends
        # on the service (or a stand-in) honouring the flag.
        norm = math.sqrt(math.fsum(v * v for v in vector))
        if not norm:
            raise EmbedderUnavailable(f"Bedrock {self.model} returned a zero vector")
        return [float(v) / norm for v in vector]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def __repr__(self) -> str:
        return f"BedrockTitanEmbedder(model_id={self.model_id!r}, region={self._region!r})"

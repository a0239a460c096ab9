"""Amazon Bedrock's rerank models (bedrock-agent-runtime `Rerank`): re-score recall's fused candidates
against the question with a cross-encoder that reads both together.

The model is `ENGRAM_RERANK_MODEL` (amazon.rerank-v1:0, cohere.rerank-v3-5:0, or a full ARN); unset,
there is no reranker and `relevance` raises `RerankUnavailable`, as it does when Bedrock throttles,
fails or cannot be reached: recall then answers in its fused order and says so in `degraded`.
boto3 is imported on the first call, so a recall without `rerank` never loads it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from engram.core.config import settings

# The API's limit on one text (query or document), characters.
MAX_TEXT_CHARS = 32_000

_lock = threading.Lock()
_client: Any = None
_client_key: tuple[Any, ...] | None = None


class RerankUnavailable(RuntimeError):
    """No reranker is configured, or the call failed: the caller keeps its own order."""


def model_arn(model: str, region: str) -> str:
    """The foundation-model ARN the Rerank API takes, from a model id (an ARN is kept as it is)."""
    return model if model.startswith("arn:") else f"arn:aws:bedrock:{region}::foundation-model/{model}"


def _get_client() -> Any:
    global _client, _client_key
    s = settings()
    key = (s.aws_region, s.bedrock_agent_endpoint_url)
    with _lock:
        if _client is None or _client_key != key:
            import boto3
            from botocore.config import Config

            # Recall is interactive: one retry, short timeouts; a slow reranker degrades instead of stalling.
            config = Config(retries={"mode": "standard", "total_max_attempts": 2}, connect_timeout=2, read_timeout=5)
            _client = boto3.session.Session().client(
                "bedrock-agent-runtime",
                region_name=s.aws_region,
                endpoint_url=s.bedrock_agent_endpoint_url,
                config=config,
            )
            _client_key = key
        return _client


def relevance(query: str, texts: Sequence[str]) -> list[float]:
    """The reranker's relevance score of each text to the query, in the order of `texts`."""
    model = settings().rerank_model
    if not model:
        raise RerankUnavailable("no reranker configured (ENGRAM_RERANK_MODEL)")
    if not texts:
        return []
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        client = _get_client()
        response = client.rerank(
            queries=[{"type": "TEXT", "textQuery": {"text": query[:MAX_TEXT_CHARS]}}],
            sources=[
                {
                    "type": "INLINE",
                    "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": t[:MAX_TEXT_CHARS]}},
                }
                for t in texts
            ],
            rerankingConfiguration={
                "type": "BEDROCK_RERANKING_MODEL",
                "bedrockRerankingConfiguration": {
                    "numberOfResults": len(texts),
                    "modelConfiguration": {"modelArn": model_arn(model, client.meta.region_name)},
                },
            },
        )
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "") or "error"
        raise RerankUnavailable(f"{code}") from exc
    except BotoCoreError as exc:  # unreachable, timeouts, missing credentials or region
        raise RerankUnavailable(type(exc).__name__) from exc
    scores: list[float | None] = [None] * len(texts)
    for result in response.get("results", []):
        index = result.get("index")
        if isinstance(index, int) and 0 <= index < len(texts):
            scores[index] = float(result["relevanceScore"])
    if any(score is None for score in scores):
        raise RerankUnavailable(f"the reranker scored {sum(s is not None for s in scores)} of {len(texts)} texts")
    return [float(score) for score in scores if score is not None]

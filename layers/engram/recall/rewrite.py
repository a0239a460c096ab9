"""Query rewrites for recall: one metered LLM call turns the question into paraphrases and keyword
lists, each searched beside the question (their vectors too, when vector search is on)."""

from __future__ import annotations

import re
from uuid import UUID

from aws_lambda_powertools import Logger

from engram.adapters import llm
from engram.adapters.embeddings.base import Embedder
from engram.indexing.vectors import vector_literal
from engram.recall.models import RecallRequest

logger = Logger()

# rewrite_query: the LLM's instructions. Paraphrases find what vectors miss, keyword lists what the
# question's words miss (a memory that says "latte" to a question about "coffee").
MAX_REWRITES = 3
MAX_REWRITE_CHARS = 500
LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+")  # a model may number its lines anyway
REWRITE_SYSTEM = (
    "You rewrite a question put to a memory store into other search queries that find the same memories. "
    f"Give up to {MAX_REWRITES} queries, one per line: a paraphrase in other words, and keyword lists of the synonyms, "
    "related terms and likely answer words the stored text may use. No numbering, no quotes, no commentary."
)


def rewrite_query(tenant_id: UUID, req: RecallRequest, degraded: list[str]) -> list[str]:
    """Up to MAX_REWRITES rewrites of the question from one metered LLM call (component
    `recall_expansion`), or none, with the reason in `degraded`, when the LLM is off, not configured,
    capped for the day or failing: the recall answers without them."""
    reason = llm.llm_unavailable() or llm.daily_cap_reached(tenant_id)
    if reason is None:
        try:
            answer = llm.complete(tenant_id, "recall_expansion", REWRITE_SYSTEM, req.query, max_tokens=300).text
        except llm.LlmError as exc:
            reason = f"llm_error: {exc}"
    if reason is not None:
        degraded.append(f"rewrite_query_unavailable: {reason}"[:300])
        return []
    rewrites: list[str] = []
    for line in answer.splitlines():
        text = LIST_MARKER.sub("", line).strip().strip('"')[:MAX_REWRITE_CHARS]
        if text and text.casefold() != req.query.casefold() and text not in rewrites:
            rewrites.append(text)
    return rewrites[:MAX_REWRITES]


def embed_rewrites(rewrites: list[str], qvec: str | None, embedder: Embedder | None) -> list[str | None]:
    """The rewrites' vectors, when the question's was made (vector search is on); None each otherwise,
    or when the embedder fails now: the rewrites still search by keyword."""
    if not rewrites or qvec is None or embedder is None:
        return [None] * len(rewrites)
    try:
        return [vector_literal(v) for v in embedder.embed(rewrites)]
    except Exception as exc:  # the question's vector search already answers; its rewrites' is a bonus
        logger.warning("rewrite embedding failed; rewrites by keyword only", extra={"error": str(exc)})
        return [None] * len(rewrites)

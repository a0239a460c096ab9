"""Recall: hybrid search over everything the tenant stored."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from engram.adapters.embeddings.factory import embedder_from_env
from engram.recall.models import RecallRequest, RecallResponse
from engram.recall.service import recall
from engram_http.auth import can_write, principal

router = Router()


@router.post("/v1/recall", tags=["recall"], summary="Find memories by meaning and keyword")
def recall_memories(body: RecallRequest) -> RecallResponse:
    who = principal(router, "read")
    return recall(who.tenant_id, body, embedder_from_env(), read_only=not can_write(who))

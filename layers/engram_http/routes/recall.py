"""Recall: hybrid search over everything the tenant stored, and feedback on what a recall returned."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram.adapters.embeddings.factory import embedder_from_env
from engram.core.idempotency import request_key
from engram.feedback import service as feedback
from engram.feedback.models import Feedback, FeedbackCreate
from engram.recall.models import RecallRequest, RecallResponse
from engram.recall.service import recall
from engram_http.auth import can_write, principal
from engram_http.params import IDEMPOTENCY_KEY_REUSED, IdempotencyKeyHeader
from engram_http.resolver import json_response

router = Router()


@router.post("/v1/recall", tags=["recall"], summary="Find memories by meaning and keyword")
def recall_memories(body: RecallRequest) -> RecallResponse:
    who = principal(router, "read")
    return recall(who.tenant_id, body, embedder_from_env(), read_only=not can_write(who))


@router.post(
    "/v1/feedback",
    tags=["recall"],
    summary="Say which results of a recall helped: their ranking weight moves, bounded, decaying back",
    responses={
        201: {"description": "Recorded; the weights it moved"},
        404: {"description": "No such recall (or past its retention)"},
        409: {"description": f"This recall already has its feedback; or {IDEMPOTENCY_KEY_REUSED}"},
    },
)
def give_feedback(body: FeedbackCreate, idempotency_key: IdempotencyKeyHeader = None) -> Response[Feedback]:
    who = principal(router, "write")
    given = feedback.give_feedback(who.tenant_id, body, request_key(idempotency_key, "POST /v1/feedback", body))
    return json_response(given, 201)

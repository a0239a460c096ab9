"""Resume and prime: what an agent should know at session start, and before a task."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.adapters.embeddings.factory import embedder_from_env
from engram.core.models import NAMESPACE_PATTERN
from engram.priming import service as priming
from engram.priming.models import MAX_BUDGET_CHARS, PrimeRequest, PrimeResponse, ResumeResponse
from engram_http.auth import principal
from engram_http.resolver import json_response

router = Router()


@router.get(
    "/v1/resume",
    tags=["priming"],
    summary="A briefing: core memories, recent changes, topics, triggers",
    responses={
        200: {
            "description": "The briefing as JSON, or with format=text as text/plain to paste",
            "content": {"application/json": {"model": ResumeResponse}, "text/plain": {"schema": {"type": "string"}}},
        }
    },
)
def get_resume(
    namespace: Annotated[str, Query(pattern=NAMESPACE_PATTERN, description="Read with `default`")] = "default",
    budget_chars: Annotated[int, Query(ge=200, le=MAX_BUDGET_CHARS, description="Hard limit of the text")] = 6000,
    recent_hours: Annotated[int, Query(ge=1, le=720, description="What counts as recent")] = 24,
    format: Annotated[Literal["json", "text"], Query(description="text: the briefing alone, as text/plain")] = "json",
) -> Response[ResumeResponse | str]:
    who = principal(router, "read")
    briefing = priming.resume(who.tenant_id, namespace, budget_chars, recent_hours)
    if format == "text":
        return Response(status_code=200, content_type="text/plain; charset=utf-8", body=briefing.text)
    return json_response(briefing, 200)


@router.post("/v1/prime", tags=["priming"], summary="Memories relevant to a task and different from each other")
def prime(body: PrimeRequest) -> PrimeResponse:
    who = principal(router, "read")
    return priming.prime(who.tenant_id, body, embedder_from_env())

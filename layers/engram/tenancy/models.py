"""Pydantic models of tenancy: API keys, namespace purges and LLM usage."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

from engram.core.models import Strict


class KeyCreate(Strict):
    scopes: list[Literal["read", "write", "admin"]] = Field(min_length=1, max_length=3)
    name: str = Field(default="", max_length=200)


class ApiKeyInfo(BaseModel):
    id: UUID
    name: str
    prefix: str = Field(description="egk_<prefix>_...: recognise a key without storing it")
    scopes: list[str]
    created_at: datetime
    revoked_at: datetime | None


class IssuedApiKey(BaseModel):
    key_id: UUID
    api_key: str = Field(description="Shown once; only its hash is stored")
    scopes: list[str]


class PurgeResult(BaseModel):
    namespace: str
    memories: int
    conversations: int
    messages: int
    chunks: int


class UsageLine(BaseModel):
    day: date = Field(description="UTC day")
    component: str = Field(
        description="What the calls were for: query_document, recall_expansion, consolidation_gate, "
        "consolidation_merge, consolidation_reconcile, ..."
    )
    model: str
    calls: int
    failed_calls: int = Field(description="Calls that failed after their retries (counted in calls)")
    input_tokens: int
    output_tokens: int
    latency_ms: int = Field(description="Total time spent in these calls")


class ExtractionSpend(BaseModel):
    """Today's spend against background extraction's daily token budget (see docs/extraction.md)."""

    tokens_today: int = Field(description="LLM tokens since midnight UTC, every purpose: what the budget counts")
    extraction_tokens_today: int = Field(description="Of those, extraction's and session distillation's")
    daily_tokens: int = Field(description="The budget: ENGRAM_EXTRACTION_DAILY_TOKENS")
    over_budget: bool = Field(description="Background extraction jobs wait (until the next UTC day)")
    waiting_runs: int = Field(description="Extraction runs waiting for the budget now")


class UsageReport(BaseModel):
    since: datetime
    until: datetime
    calls: int
    input_tokens: int
    output_tokens: int
    lines: list[UsageLine] = Field(description="By day (oldest first), component and model")
    extraction: ExtractionSpend

"""Pydantic models for documents, uploads and query-document (kept out of engram.core.models on purpose)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

from pydantic import BaseModel, Field, model_validator
from pydantic.config import JsonDict

from engram.core.models import Memory, MemoryFields, Strict

ChunkingMode = Literal["document", "focused"]
HARD_MAX_BYTES = 50 * 1024 * 1024  # past the three tiers: refused, and not configurable (an export checks it too)

CONTENT_TYPE_DESCRIPTION = "text/markdown (default) or text/plain, UTF-8; anything else is 415"
# The values the server takes, stated for clients (the server also takes other letter cases and
# text/x-markdown; any other value is its 415, not a 422, so the pattern is in the document only).
CONTENT_TYPE_SCHEMA: JsonDict = {
    "pattern": r'^text/(markdown|plain)( *; *charset *= *"?(utf-8|UTF-8|utf8|us-ascii)"?)?$'
}


class DocumentOptions(MemoryFields):
    chunking: ChunkingMode | None = Field(
        default=None, description="document: ~2,000 characters at boundaries; focused: 512-token windows"
    )


class DocumentCreate(DocumentOptions):
    content: str = Field(min_length=1, description="The body, up to 5 MiB of UTF-8 inline; larger: uploads")
    content_type: str = Field(
        default="text/markdown", description=CONTENT_TYPE_DESCRIPTION, json_schema_extra=CONTENT_TYPE_SCHEMA
    )


class DocumentInfo(BaseModel):
    tier: int = Field(
        description="0: <= 500 KiB, full body; 1: <= 8 MiB, synopsis + chunks of the body;"
        " 2: <= 50 MiB, synopsis + body in documents"
    )
    bytes: int
    sha256: str
    content_type: str
    chunks: int
    chunking: ChunkingMode
    synopsis: bool = Field(description="memory.content holds the synopsis, not the body")


class DocumentWritten(BaseModel):
    memory: Memory
    document: DocumentInfo
    deduplicated: bool


class UploadCreate(DocumentOptions):
    size_bytes: int = Field(gt=0, description="Exact size of the object you will PUT (at most 50 MiB)")
    sha256: str = Field(pattern=r"^[0-9a-fA-F]{64}$", description="Hex SHA-256 of the object")
    content_type: str = Field(
        default="text/markdown", description=CONTENT_TYPE_DESCRIPTION, json_schema_extra=CONTENT_TYPE_SCHEMA
    )


class UploadStatus(BaseModel):
    upload_id: UUID
    status: Literal["pending", "ready", "failed"]
    reason: str | None
    memory_id: UUID | None
    document_tier: int | None
    deduplicated: bool | None
    namespace: str
    size_bytes: int
    content_type: str
    expires_at: datetime
    created_at: datetime
    updated_at: datetime


class UploadTicket(UploadStatus):
    url: str = Field(description="PUT the body here before expires_at")
    method: Literal["PUT"] = "PUT"
    headers: dict[str, str] = Field(description="Send exactly these headers with the PUT")


class QueryFilter(Strict):
    """Give exactly one of regex or substrings."""

    regex: str | None = Field(default=None, min_length=1, max_length=500, description="Not with substrings")
    substrings: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        default=None, min_length=1, max_length=20, description="Not with regex"
    )
    case_sensitive: bool = False

    @model_validator(mode="after")
    def _one(self) -> QueryFilter:
        if (self.regex is None) == (self.substrings is None):
            raise ValueError("give exactly one of regex or substrings")
        return self


class QueryRequest(Strict):
    question: str = Field(min_length=1, max_length=4000)
    filter: QueryFilter | None = None
    window_chars: int | None = Field(default=None, ge=100, le=20_000)
    token_budget: int | None = Field(
        default=None, ge=16, le=50_000, description="Hard cap on span text: 4 UTF-8 bytes per token"
    )
    max_spans: int = Field(default=8, ge=1, le=50)
    answer: bool = Field(default=True, description="Ask the LLM for an answer when one is configured")


class Span(BaseModel):
    n: int = Field(description="1-based; the answer cites [n]")
    start: int = Field(description="Character offset in the document body")
    end: int
    text: str
    truncated: bool
    score: float


class Citation(BaseModel):
    n: int
    start: int
    end: int


class LlmInfo(BaseModel):
    provider: str
    model: str
    input_tokens: int
    output_tokens: int
    latency_ms: int


class QueryResponse(BaseModel):
    memory_id: UUID
    document_tier: int
    source: Literal["content", "chunks", "document"]
    question: str
    spans: list[Span]
    used_bytes: int
    budget_bytes: int
    token_budget: int
    truncated: bool
    answer: str | None
    citations: list[Citation]
    llm: LlmInfo | None
    reason: str | None = Field(description="Why there is no answer, when there is none")

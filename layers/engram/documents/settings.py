"""Documents' settings: the tiers and the inline limit of a document's body, its chunking, and query-
document's defaults."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engram.core.config import SettingsGroup, settings_accessor


class DocumentSettings(SettingsGroup):
    # Three tiers by UTF-8 bytes of the body. The 50 MiB hard limit is
    # engram.documents.models.HARD_MAX_BYTES and is not a setting.
    document_tier0_max_bytes: int = Field(
        default=500 * 1024, ge=1024, description="Largest Tier 0 body (stored and chunked in full), bytes"
    )
    document_tier1_max_bytes: int = Field(
        default=8 * 1024 * 1024,
        ge=1024,
        description="Largest Tier 1 body (memory holds a synopsis, chunks from the body), bytes",
    )
    document_inline_max_bytes: int = Field(
        default=5 * 1024 * 1024,
        ge=1024,
        le=5 * 1024 * 1024,
        description="Largest inline POST /v1/documents body, bytes: a synchronous Lambda carries 6 MB with the "
        "request JSON; larger ones go through POST /v1/documents/uploads",
    )
    document_chunking: Literal["document", "focused"] = Field(
        default="document",
        description="`document` (~2,000 characters at boundaries) or `focused` (512-token windows, 50 overlap)",
    )
    query_window_chars: int = Field(
        default=1200, ge=100, le=20_000, description="Query-document: characters per span, by default"
    )
    query_token_budget: int = Field(
        default=2000, ge=16, le=50_000, description="Query-document: tokens of spans returned, by default"
    )
    query_regex_timeout_s: float = Field(
        default=1.0, gt=0, le=10, description="Query-document: time a `filter` regex may run, seconds"
    )


@settings_accessor
def document_settings() -> DocumentSettings:
    return DocumentSettings()

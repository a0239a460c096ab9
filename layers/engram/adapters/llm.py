"""The one way the service talks to Claude: query-document answers now, consolidation and topics later.

- `ENGRAM_LLM_LEVEL=off|auto|full`: off never calls; auto calls where it pays (query answers,
  merges, a recall's `rewrite_query`, which its caller asks for) when a provider is configured; full
  also allows the optional uses nobody asked for (topic names). Callers ask
  `llm_unavailable(optional=...)` and fall back when it gives a reason.
- Per tenant per UTC day, calls and tokens of every purpose are capped (`daily_cap_reached`).
- Provider `anthropic` (ANTHROPIC_API_KEY, optional ENGRAM_ANTHROPIC_BASE_URL) or `bedrock`
  (AnthropicBedrock with the Lambda role's credentials); model from ENGRAM_LLM_MODEL.
- `import anthropic` costs ~0.9 s, so it happens on the first call, never at import time.
- The SDK's own retries are off: `complete` retries 429/5xx/timeouts itself with exponential
  backoff and jitter, so every attempt is counted and the whole call is logged once in
  `llm_usage` (purpose, model, tokens, latency, ok/error).
- Tests fake the Messages API at the HTTP boundary (a local server behind
  ENGRAM_ANTHROPIC_BASE_URL), so this code runs for real.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger
from psycopg.rows import tuple_row

from engram.core.config import settings
from engram.core.db import Conn, tenant_transaction

logger = Logger()

_lock = threading.Lock()
_client: Any = None
_client_key: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class LlmResult:
    text: str
    model: str
    provider: str
    input_tokens: int
    output_tokens: int
    latency_ms: int
    attempts: int
    # With a `tool`: the arguments the model called it with (None: it answered in text, or refused).
    tool_input: dict[str, Any] | None = None
    stop_reason: str | None = None


class LlmError(RuntimeError):
    """The call failed after its retries (or could not be made)."""


def llm_unavailable(optional: bool = False) -> str | None:
    """None when a call may be made, else the reason (for the response's `reason` field)."""
    s = settings()
    if s.llm_level == "off":
        return "llm_disabled: ENGRAM_LLM_LEVEL=off"
    if optional and s.llm_level != "full":
        return "llm_skipped: optional use needs ENGRAM_LLM_LEVEL=full"
    if s.llm_provider == "anthropic" and not s.anthropic_api_key:
        return "llm_not_configured: set ANTHROPIC_API_KEY (or ENGRAM_LLM_PROVIDER=bedrock)"
    return None


def usage_today(conn: Conn) -> tuple[int, int]:
    """The transaction tenant's LLM calls and tokens since midnight UTC (every purpose)."""
    spent: tuple[int, int] | None = (
        conn.cursor(row_factory=tuple_row)
        .execute(
            "SELECT count(*), COALESCE(sum(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0)), 0)"
            " FROM llm_usage WHERE created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'"
        )
        .fetchone()
    )
    assert spent is not None
    calls, tokens = spent
    return int(calls), int(tokens)


def daily_cap_reached(tenant_id: UUID | str) -> str | None:
    """None while the tenant is under its daily LLM caps, else which one it reached."""
    s = settings()
    with tenant_transaction(tenant_id) as conn:
        calls, tokens = usage_today(conn)
    if calls >= s.consolidation_llm_daily_calls:
        return f"llm_capped: tenant daily call cap reached: {s.consolidation_llm_daily_calls} calls"
    if tokens >= s.consolidation_llm_daily_tokens:
        return f"llm_capped: tenant daily token cap reached: {s.consolidation_llm_daily_tokens} tokens"
    return None


def reset() -> None:
    """Forget the cached client (after the environment changed)."""
    global _client, _client_key
    with _lock:
        _client, _client_key = None, None


def _get_client() -> Any:
    global _client, _client_key
    s = settings()
    api_key = s.anthropic_api_key.get_secret_value() if s.anthropic_api_key else None
    key = (s.llm_provider, s.anthropic_base_url, s.llm_timeout_s, api_key)
    with _lock:
        if _client is None or _client_key != key:
            import anthropic  # lazy: ~0.9 s, only when an answer is actually wanted

            common: dict[str, Any] = {"timeout": s.llm_timeout_s, "max_retries": 0}
            if s.llm_provider == "bedrock":
                _client = anthropic.AnthropicBedrock(**common)
            else:
                _client = anthropic.Anthropic(
                    api_key=api_key or "unset", base_url=s.anthropic_base_url or None, **common
                )
            _client_key = key
        return _client


def _retryable(exc: Exception) -> bool:
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return isinstance(exc, anthropic.APIConnectionError)  # includes timeouts


def _log_usage(
    tenant_id: UUID | str,
    purpose: str,
    provider: str,
    model: str,
    result: LlmResult | None,
    latency_ms: int,
    attempts: int,
    error: str | None,
    run_id: UUID | None = None,
) -> None:
    try:
        with tenant_transaction(tenant_id) as conn:
            conn.execute(
                "INSERT INTO llm_usage (tenant_id, purpose, provider, model, input_tokens, output_tokens,"
                " latency_ms, attempts, ok, error, run_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    tenant_id,
                    purpose,
                    provider,
                    model,
                    result and result.input_tokens,
                    result and result.output_tokens,
                    latency_ms,
                    attempts,
                    error is None,
                    error and error[:500],
                    run_id,
                ),
            )
    except Exception:  # the log must never break the answer
        logger.exception("could not record llm_usage")


def complete(
    tenant_id: UUID | str,
    purpose: str,
    system: str,
    prompt: str,
    max_tokens: int = 1024,
    run_id: UUID | None = None,
    tool: dict[str, Any] | None = None,
) -> LlmResult:
    """One Messages call with retries; logged in llm_usage (with the consolidation run, if any)
    whatever happens. Raises LlmError.

    With `tool` (a tool definition: name, description, input_schema) the model is made to answer by
    calling it (`tool_choice`), so the answer is JSON in the tool's schema: `tool_input`."""
    s = settings()
    model, provider = s.llm_model, s.llm_provider
    started = time.monotonic()
    attempts = 0
    last_error: Exception | None = None
    result: LlmResult | None = None
    try:
        client = _get_client()
        for attempt in range(s.llm_max_retries + 1):
            attempts = attempt + 1
            try:
                forced: dict[str, Any] = (
                    {"tools": [tool], "tool_choice": {"type": "tool", "name": tool["name"]}} if tool else {}
                )
                msg = client.messages.create(
                    model=model,
                    max_tokens=max_tokens,
                    system=system,
                    messages=[{"role": "user", "content": prompt}],
                    **forced,
                )
            except Exception as exc:
                last_error = exc
                if attempt < s.llm_max_retries and _retryable(exc):
                    delay = s.llm_backoff_s * (2**attempt) * (0.5 + random.random() / 2)
                    logger.warning(
                        "llm call failed, retrying",
                        extra={"purpose": purpose, "attempt": attempts, "error": repr(exc)[:200]},
                    )
                    time.sleep(delay)
                    continue
                break
            text = "".join(getattr(block, "text", "") for block in msg.content)
            called = [b for b in msg.content if getattr(b, "type", "") == "tool_use"]
            result = LlmResult(
                tool_input=dict(called[0].input) if called and isinstance(called[0].input, dict) else None,
                stop_reason=getattr(msg, "stop_reason", None),
                text=text,
                model=getattr(msg, "model", model) or model,
                provider=provider,
                input_tokens=msg.usage.input_tokens,
                output_tokens=msg.usage.output_tokens,
                latency_ms=int((time.monotonic() - started) * 1000),
                attempts=attempts,
            )
            break
    except Exception as exc:  # client construction (missing package, bad configuration)
        last_error = exc
    latency_ms = int((time.monotonic() - started) * 1000)
    error = None if result else f"{type(last_error).__name__}: {last_error}"
    _log_usage(tenant_id, purpose, provider, model, result, latency_ms, attempts, error, run_id)
    logger.info(
        "llm call",
        extra={
            "purpose": purpose,
            "model": model,
            "ok": result is not None,
            "latency_ms": latency_ms,
            "attempts": attempts,
            "input_tokens": result and result.input_tokens,
            "output_tokens": result and result.output_tokens,
        },
    )
    if result is None:
        raise LlmError(error or "llm call failed")
    return result

"""GET /v1/usage: a tenant's LLM calls and tokens from llm_usage, by UTC day, component and model."""

from __future__ import annotations

import psycopg


def _log_call(
    dsn: str, tenant_id: str, purpose: str, model: str, at: str, tokens: tuple[int | None, int | None], ok: bool = True
) -> None:
    with psycopg.connect(dsn) as conn:
        conn.execute(
            "INSERT INTO llm_usage (tenant_id, purpose, provider, model, input_tokens, output_tokens,"
            " latency_ms, ok, created_at) VALUES (%s, %s, 'anthropic', %s, %s, %s, 100, %s, %s)",
            (tenant_id, purpose, model, tokens[0], tokens[1], ok, at),
        )


def test_usage_is_summed_by_day_component_and_model_for_this_tenant_only(api, tenant, make_tenant, stack):
    other = make_tenant("usage-other")
    _log_call(stack.dsn, tenant.id, "consolidation_merge", "haiku", "2026-03-01T10:00:00Z", (100, 20))
    _log_call(stack.dsn, tenant.id, "consolidation_merge", "haiku", "2026-03-01T23:59:00Z", (50, 5))
    _log_call(stack.dsn, tenant.id, "consolidation_merge", "haiku", "2026-03-01T12:00:00Z", (None, None), ok=False)
    _log_call(stack.dsn, tenant.id, "query_answer", "haiku", "2026-03-01T11:00:00Z", (700, 80))
    _log_call(stack.dsn, tenant.id, "query_answer", "sonnet", "2026-03-02T00:30:00Z", (900, 90))
    _log_call(stack.dsn, tenant.id, "query_answer", "haiku", "2026-02-27T09:00:00Z", (1, 1))  # before `since`
    _log_call(stack.dsn, other.id, "query_answer", "haiku", "2026-03-01T11:00:00Z", (5000, 500))

    reply = api.get("/v1/usage?since=2026-03-01T00:00:00Z")
    assert reply.status == 200, reply.body
    body = reply.body
    assert [
        (u["day"], u["component"], u["model"], u["calls"], u["failed_calls"], u["input_tokens"], u["output_tokens"])
        for u in body["lines"]
    ] == [
        ("2026-03-01", "consolidation_merge", "haiku", 3, 1, 150, 25),
        ("2026-03-01", "query_answer", "haiku", 1, 0, 700, 80),
        ("2026-03-02", "query_answer", "sonnet", 1, 0, 900, 90),
    ]
    assert (body["calls"], body["input_tokens"], body["output_tokens"]) == (5, 1750, 195)
    assert body["since"].startswith("2026-03-01T00:00:00")

    assert api.get("/v1/usage?since=2030-01-01T00:00:00Z").body["lines"] == []
    assert api.get("/v1/usage").body["lines"] == []  # the default window is the last 30 days


def test_usage_needs_the_admin_scope_and_a_valid_since(api, tenant, make_tenant, api_for):
    reader = make_tenant("usage-reader", scopes=["read"])
    assert api_for(reader.key).get("/v1/usage").status == 403
    reply = api.get("/v1/usage?since=yesterday")
    assert reply.status == 422 and reply.body["error"]["details"]["field"] == "since"

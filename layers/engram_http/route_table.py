"""The one list of HTTP routes and the Lambda function that serves each.

The CDK app builds API Gateway routes from it and the local server dispatches with it,
so the two cannot drift apart. Functions without a route: EVENT_FUNCTIONS in infra/profiles.py.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # API Gateway syntax: /v1/memories/{memory_id}
    function: str  # folder name under functions/
    auth: bool = True
    # A request without credentials still reaches the function (an uncached authorizer with no identity
    # source), so its 401 carries the bearer challenge that starts an MCP client's OAuth flow; API
    # Gateway's own 401 for a missing Authorization header has no WWW-Authenticate.
    challenge: bool = False


ROUTES: tuple[Route, ...] = (
    Route("GET", "/v1/health", "admin", auth=False),
    # Liveness without the database: an uptime probe here never wakes a paused Aurora.
    Route("GET", "/v1/health/live", "admin", auth=False),
    Route("GET", "/v1/openapi.json", "admin", auth=False),
    Route("GET", "/v1/stats", "admin"),
    Route("GET", "/v1/usage", "admin"),
    Route("POST", "/v1/keys", "admin"),
    Route("GET", "/v1/keys", "admin"),
    Route("DELETE", "/v1/keys/{key_id}", "admin"),
    Route("POST", "/v1/memories", "memories"),
    Route("POST", "/v1/memories/batch", "memories"),
    Route("GET", "/v1/memories", "memories"),
    Route("GET", "/v1/memories/{memory_id}", "memories"),
    Route("PATCH", "/v1/memories/{memory_id}", "memories"),
    Route("DELETE", "/v1/memories/{memory_id}", "memories"),
    Route("POST", "/v1/memories/{memory_id}/restore", "memories"),
    Route("GET", "/v1/trash", "memories"),
    Route("POST", "/v1/memories/{memory_id}/erase", "erasure"),
    Route("POST", "/v1/erasures", "erasure"),
    Route("GET", "/v1/erasures/{erasure_id}", "erasure"),
    Route("POST", "/v1/tenant/erase", "erasure"),
    Route("POST", "/v1/recall", "recall"),
    Route("POST", "/v1/feedback", "recall"),
    Route("POST", "/v1/documents", "documents"),
    Route("POST", "/v1/documents/uploads", "documents"),
    Route("GET", "/v1/documents/uploads/{upload_id}", "documents"),
    Route("POST", "/v1/memories/{memory_id}/query", "documents"),
    Route("POST", "/v1/conversations", "conversations"),
    Route("GET", "/v1/conversations", "conversations"),
    Route("GET", "/v1/conversations/{conversation_id}", "conversations"),
    Route("DELETE", "/v1/conversations/{conversation_id}", "conversations"),
    Route("POST", "/v1/conversations/{conversation_id}/messages", "conversations"),
    Route("GET", "/v1/conversations/{conversation_id}/messages", "conversations"),
    Route("POST", "/v1/extract", "extraction"),
    Route("GET", "/v1/extraction/runs", "extraction"),
    Route("GET", "/v1/extraction/runs/{run_id}", "extraction"),
    Route("POST", "/v1/extraction/runs/{run_id}/undo", "extraction"),
    Route("GET", "/v1/extraction/settings", "extraction"),
    Route("PUT", "/v1/extraction/settings", "extraction"),
    Route("POST", "/v1/namespaces/{namespace}/purge", "admin"),
    Route("POST", "/v1/tasks", "conversations"),
    Route("GET", "/v1/tasks", "conversations"),
    Route("GET", "/v1/tasks/{task_id}", "conversations"),
    Route("POST", "/v1/tasks/{task_id}/events", "conversations"),
    Route("GET", "/v1/tasks/{task_id}/events", "conversations"),
    Route("POST", "/v1/tasks/{task_id}/events/{seq}/redact", "conversations"),
    Route("POST", "/v1/tasks/{task_id}/checkpoints", "conversations"),
    Route("GET", "/v1/tasks/{task_id}/checkpoints", "conversations"),
    Route("POST", "/v1/tasks/{task_id}/end", "conversations"),
    Route("POST", "/v1/tasks/{task_id}/context", "conversations"),
    Route("POST", "/v1/links", "graph"),
    Route("POST", "/v1/links/batch", "graph"),
    Route("GET", "/v1/links", "graph"),
    Route("DELETE", "/v1/links/{link_id}", "graph"),
    Route("GET", "/v1/memories/{memory_id}/links", "graph"),
    Route("GET", "/v1/memories/{memory_id}/history", "graph"),
    Route("POST", "/v1/consolidate", "consolidation"),
    Route("GET", "/v1/consolidation-runs", "consolidation"),
    Route("GET", "/v1/consolidation-runs/{run_id}", "consolidation"),
    Route("POST", "/v1/consolidation-runs/{run_id}/undo", "consolidation"),
    Route("GET", "/v1/topics", "topics"),
    Route("POST", "/v1/topics/lookup", "topics"),
    Route("GET", "/v1/topics/{topic_id}", "topics"),
    Route("GET", "/v1/resume", "topics"),
    Route("POST", "/v1/prime", "topics"),
    Route("POST", "/v1/exports", "portability"),
    Route("GET", "/v1/exports/{export_id}", "portability"),
    Route("POST", "/v1/imports", "portability"),
    Route("GET", "/v1/imports/{import_id}", "portability"),
    # Remote MCP (streamable HTTP, stateless, JSON responses): the same key and scopes as /v1. GET
    # and DELETE reach the function only to be answered 405 as MCP asks (a 404 reads as a lost session).
    Route("POST", "/mcp", "mcp", challenge=True),
    Route("GET", "/mcp", "mcp", challenge=True),
    Route("DELETE", "/mcp", "mcp", challenge=True),
    # OAuth for MCP connectors (engram.oauth): the API is its own authorization server. Public: a client
    # discovers, registers, authorizes and redeems without a key; the consent's approval takes the key.
    Route("GET", "/.well-known/oauth-protected-resource", "oauth", auth=False),
    Route("GET", "/.well-known/oauth-protected-resource/mcp", "oauth", auth=False),
    Route("GET", "/.well-known/oauth-authorization-server", "oauth", auth=False),
    Route("GET", "/.well-known/openid-configuration", "oauth", auth=False),
    Route("POST", "/oauth/register", "oauth", auth=False),
    Route("GET", "/oauth/authorize", "oauth", auth=False),
    Route("POST", "/oauth/token", "oauth", auth=False),
    Route("POST", "/oauth/revoke", "oauth", auth=False),
    Route("GET", "/oauth/requests/{request_id}", "oauth", auth=False),
    Route("POST", "/oauth/requests/{request_id}/approve", "oauth"),
    Route("POST", "/oauth/requests/{request_id}/deny", "oauth", auth=False),
    Route("GET", "/v1/grants", "oauth"),
    Route("DELETE", "/v1/grants/{grant_id}", "oauth"),
    # The memory console: static files only; every call it makes goes to /v1 with the operator's key.
    Route("GET", "/console", "console", auth=False),
    Route("GET", "/console/{asset}", "console", auth=False),
)

# Routes outside the JSON API: no router serves them and the OpenAPI document leaves them out.
STATIC_FUNCTIONS: tuple[str, ...] = ("console",)
# MCP's JSON-RPC endpoint: no router serves it either; docs/mcp-tools.json describes its tools.
JSON_RPC_FUNCTIONS: tuple[str, ...] = ("mcp",)


def http_functions() -> list[str]:
    return sorted({r.function for r in ROUTES})

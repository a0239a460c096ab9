"""A stand-in for API Gateway's HTTP API: HTTP request -> payload v2.0 event -> authorizer ->
route Lambda -> HTTP response, using the same route table the CDK app deploys.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from engram_http.route_match import match, method_not_allowed, methods_at
from engram_http.route_table import Route
from engram_local.lambda_runtime import invoke

API_GATEWAY_MAX_BODY = 10 * 1024 * 1024  # HTTP API payload quota
LARGE_BODY_ALTERNATIVE = "send large documents through POST /v1/documents/uploads (a presigned S3 PUT, up to 50 MiB)"
logger = logging.getLogger(__name__)


@dataclass
class HttpResponse:
    status: int
    headers: dict[str, str]
    body: bytes


def _json(status: int, body: str) -> HttpResponse:
    return HttpResponse(status, {"content-type": "application/json"}, body.encode())


def envelope(
    status: int, code: str, message: str, details: Any = None, headers: dict[str, str] | None = None
) -> HttpResponse:
    """The API's error envelope, for answers the gateway gives before any route function runs."""
    body = json.dumps({"error": {"code": code, "message": message, "details": details}}, separators=(",", ":"))
    return HttpResponse(status, {"content-type": "application/json", **(headers or {})}, body.encode())


def too_large(size: int | None) -> HttpResponse:
    limit = API_GATEWAY_MAX_BODY
    said = f"the request body is {size} bytes" if size is not None else "the request body is too large"
    return envelope(
        413,
        "too_large",
        f"{said}; the limit is {limit} bytes. {LARGE_BODY_ALTERNATIVE}",
        {"field": "body", "size": size, "limit": limit, "alternative": LARGE_BODY_ALTERNATIVE},
    )


def build_event(
    method: str, raw_path: str, headers: dict[str, str], body: bytes, route: Route, path_params: dict[str, str]
) -> dict[str, Any]:
    parts = urlsplit(raw_path)
    query: dict[str, str] = {}
    for k, v in parse_qsl(parts.query, keep_blank_values=True):
        query[k] = f"{query[k]},{v}" if k in query else v  # HTTP API joins repeated keys with commas
    try:
        text, is_b64 = body.decode("utf-8"), False
    except UnicodeDecodeError:
        text, is_b64 = base64.b64encode(body).decode(), True
    lower = {k.lower(): v for k, v in headers.items()}
    return {
        "version": "2.0",
        "routeKey": f"{route.method} {route.path}",
        "rawPath": parts.path,
        "rawQueryString": parts.query,
        "headers": lower,
        "queryStringParameters": query or None,
        "pathParameters": path_params or None,
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "local",
            "domainName": lower.get("host", "localhost"),
            "http": {
                "method": method,
                "path": parts.path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": lower.get("user-agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": f"{route.method} {route.path}",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()),
            "timeEpoch": int(time.time() * 1000),
        },
        "body": text if body else None,
        "isBase64Encoded": is_b64,
    }


@dataclass
class AuthorizerCache:
    """API Gateway's cache of the authorizer's verdicts (`authorizer_cache_seconds` in cdk.json): one per
    Authorization header, kept `seconds`, so a warm key's request skips the authorizer. As deployed, a
    revoked key keeps working until its entry expires; the routes of the uncached challenge authorizer
    (no identity source) never use it. At most `entries` headers are kept: past that, the oldest go."""

    seconds: float
    entries: int = 10_000
    _verdicts: dict[str, tuple[float, dict[str, Any]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, authorization: str) -> dict[str, Any] | None:
        with self._lock:
            kept = self._verdicts.get(authorization)
            if kept is None or kept[0] <= time.monotonic():
                return None
            return kept[1]

    def put(self, authorization: str, verdict: dict[str, Any]) -> None:
        with self._lock:
            self._verdicts.pop(authorization, None)
            self._verdicts[authorization] = (time.monotonic() + self.seconds, verdict)
            while len(self._verdicts) > self.entries:  # dicts keep insertion order: the first is the oldest
                del self._verdicts[next(iter(self._verdicts))]


def _authorize(event: dict[str, Any], cached: AuthorizerCache | None) -> dict[str, Any]:
    """The authorizer's verdict on the request, from `cached` while a verdict for its header is kept."""
    authorization = event["headers"].get("authorization")
    verdict: dict[str, Any] | None = cached.get(authorization) if cached is not None and authorization else None
    if verdict is None:
        verdict = invoke("authorizer", event)
        if cached is not None and authorization:
            cached.put(authorization, verdict)
    return verdict


def handle(
    method: str, raw_path: str, headers: dict[str, str], body: bytes, verdicts: AuthorizerCache | None = None
) -> HttpResponse:
    """One request through the stand-in. `verdicts`: the authorizer's cache (`make dev` keeps one, as
    API Gateway does); None asks the authorizer on every request."""
    path = urlsplit(raw_path).path
    found = match(method, path)
    if found is None:
        allowed = methods_at(path)
        if allowed:  # HEAD, OPTIONS or another method on a known path
            message, details = method_not_allowed(method, path, allowed)
            return envelope(405, "method_not_allowed", message, details, {"allow": ", ".join(allowed)})
        return envelope(404, "not_found", "no such route", {"path": path})
    if len(body) > API_GATEWAY_MAX_BODY:
        return too_large(len(body))
    route, params = found
    event = build_event(method, raw_path, headers, body, route, params)
    if route.auth:
        if not event["headers"].get("authorization") and not route.challenge:
            return _json(401, '{"message":"Unauthorized"}')  # identity source missing: API Gateway answers
        try:
            verdict = _authorize(event, None if route.challenge else verdicts)
        except Exception:  # an authorizer that crashes or times out gets API Gateway's uncached 500
            return _json(500, '{"message":"Internal Server Error"}')
        if not verdict.get("isAuthorized"):
            return _json(403, '{"message":"Forbidden"}')
        # A copy, as each deployed event carries its own: a verdict kept for many requests stays as it was.
        event["requestContext"]["authorizer"] = {"lambda": dict(verdict.get("context", {}))}
    try:
        result = invoke(route.function, event)
    except Exception:  # a crashed Lambda: API Gateway answers 500 and the log has the traceback
        logger.exception("route function %s failed (request %s)", route.function, event["requestContext"]["requestId"])
        return _json(500, '{"message":"Internal Server Error"}')
    out_headers = {k.lower(): str(v) for k, v in (result.get("headers") or {}).items()}
    raw = result.get("body") or ""
    payload = base64.b64decode(raw) if result.get("isBase64Encoded") else raw.encode()
    return HttpResponse(int(result.get("statusCode", 200)), out_headers, payload)

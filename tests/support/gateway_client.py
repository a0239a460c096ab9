"""Requests through the local API Gateway stand-in (engram_local.gateway), as a tenant's key makes them:
the authorizer and the route Lambdas run for real, in this process."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class Tenant:
    id: str
    key: str


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]


class Api:
    """Requests through the local API Gateway stand-in: authorizer and route Lambdas run for real."""

    def __init__(self, key: str | None) -> None:
        self.key = key

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        key: str | None = None,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        from engram_local import gateway

        sent = {"content-type": "application/json", **(headers or {})}
        auth = key if key is not None else self.key
        if auth:
            sent["authorization"] = f"Bearer {auth}"
        payload = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
        resp = gateway.handle(method, path, sent, payload)
        try:
            parsed = json.loads(resp.body) if resp.body else None
        except ValueError:
            parsed = resp.body.decode()
        return Reply(resp.status, parsed, resp.headers)

    def get(self, path: str, **kw: Any) -> Reply:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("POST", path, body, **kw)

    def patch(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("PATCH", path, body, **kw)

    def put(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("PUT", path, body, **kw)

    def delete(self, path: str, **kw: Any) -> Reply:
        return self.request("DELETE", path, **kw)

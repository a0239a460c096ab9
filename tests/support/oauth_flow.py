"""The OAuth flow through the local API Gateway stand-in, step by step, for the OAuth tests:
register a client, authorize with PKCE, approve with a key, redeem the code, refresh."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import psycopg

BASE = "http://localhost"
RESOURCE = f"{BASE}/mcp"
REDIRECT = "http://127.0.0.1:8123/callback"


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


def call(
    method: str, path: str, body: Any = None, token: str | None = None, form: dict[str, str] | None = None
) -> Answer:
    from engram_local import gateway

    headers: dict[str, str] = {"accept": "application/json, text/event-stream"}
    payload = b""
    if form is not None:
        headers["content-type"] = "application/x-www-form-urlencoded"
        payload = urlencode(form).encode()
    elif body is not None:
        headers["content-type"] = "application/json"
        payload = json.dumps(body).encode()
    if token:
        headers["authorization"] = f"Bearer {token}"
    resp = gateway.handle(method, path, headers, payload)
    try:
        parsed = json.loads(resp.body) if resp.body else None
    except ValueError:
        parsed = resp.body.decode()
    return Answer(resp.status, parsed, resp.headers)


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def register(redirect_uris: list[str] | None = None, name: str = "Test connector") -> str:
    r = call("POST", "/oauth/register", {"redirect_uris": redirect_uris or [REDIRECT], "client_name": name})
    assert r.status == 201, r.body
    client_id: str = r.body["client_id"]
    return client_id


def authorize(client_id: str, challenge: str, **extra: str | None) -> Answer:
    params: dict[str, str | None] = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "st-1",
        "scope": "read write",
        "resource": RESOURCE,
        **extra,
    }
    return call("GET", "/oauth/authorize?" + urlencode({k: v for k, v in params.items() if v is not None}))


def request_id_of(answer: Answer) -> str:
    assert answer.status == 302, answer.body
    location = answer.headers["location"]
    assert location.startswith(f"{BASE}/console/consent.html?"), location
    return query_of(location)["request"]


def code_for(
    key: str, client_id: str, scopes: list[str] | None = None, namespaces: list[str] | None = None
) -> tuple[str, str]:
    """A fresh code and its verifier, approved with `key`."""
    verifier, challenge = pkce()
    request_id = request_id_of(authorize(client_id, challenge, scope=" ".join(scopes or ["read", "write"])))
    approved = call(
        "POST",
        f"/oauth/requests/{request_id}/approve",
        {"scopes": scopes or ["read", "write"], "namespaces": namespaces},
        token=key,
    )
    assert approved.status == 200, approved.body
    params = query_of(approved.body["redirect_to"])
    assert params["state"] == "st-1"
    return params["code"], verifier


def redeem(client_id: str, code: str, verifier: str, **extra: str | None) -> Answer:
    form: dict[str, str | None] = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": REDIRECT,
        "client_id": client_id,
        "resource": RESOURCE,
        **extra,
    }
    return call("POST", "/oauth/token", form={k: v for k, v in form.items() if v is not None})


def tokens_for(
    key: str, scopes: list[str] | None = None, namespaces: list[str] | None = None
) -> tuple[str, dict[str, Any]]:
    """A registered client's id and the token answer of a completed flow."""
    client_id = register()
    code, verifier = code_for(key, client_id, scopes, namespaces)
    answer = redeem(client_id, code, verifier)
    assert answer.status == 200, answer.body
    return client_id, answer.body


def refresh(client_id: str, refresh_token: str, **extra: str) -> Answer:
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id, **extra}
    return call("POST", "/oauth/token", form=form)


def expire_tokens(stack: Any, *tokens: str) -> None:
    """Move tokens' expiry into the past (as the owner, past row-level security)."""
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        for token in tokens:
            conn.execute(
                "UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = %s",
                (hashlib.sha256(token.encode()).digest(),),
            )


def narrow_key(stack: Any, key_id: str, scopes: list[str]) -> None:
    """Change a key's scopes in place (as the owner): tokens it granted must follow at once."""
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("UPDATE api_keys SET scopes = %s WHERE id = %s", (scopes, key_id))

"""What a stranger can make the OAuth endpoints store and keep: registration keeps only the RFC 7591
fields the server uses, refuses a large document before parsing it, and an unused client expires."""

from __future__ import annotations

import json

import psycopg

from tests.support.oauth_flow import (
    REDIRECT,
    authorize,
    call,
    code_for,
    pkce,
    redeem,
    refresh,
    register,
    request_id_of,
)


def client_row(stack, client_id: str) -> tuple | None:
    with psycopg.connect(stack.dsn) as conn:
        return conn.execute(
            "SELECT metadata, active_until - now() FROM oauth_clients WHERE id = %s", (client_id,)
        ).fetchone()


def expire_client(stack, client_id: str) -> None:
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("UPDATE oauth_clients SET active_until = now() - interval '1 second' WHERE id = %s", (client_id,))


def test_registration_keeps_only_the_fields_it_uses(stack):
    r = call(
        "POST",
        "/oauth/register",
        {
            "redirect_uris": [REDIRECT],
            "client_name": "Kept",
            "logo_uri": "https://evil.example/logo.png",
            "junk": {"nested": ["x" * 1000] * 10},
        },
    )
    assert r.status == 201, r.body
    metadata, _ = client_row(stack, r.body["client_id"])
    assert metadata == {"redirect_uris": [REDIRECT], "client_name": "Kept"}


def test_a_large_registration_is_refused_before_it_is_parsed_and_nothing_is_stored(stack):
    from engram_local import gateway

    with psycopg.connect(stack.dsn) as conn:
        before = conn.execute("SELECT count(*) FROM oauth_clients").fetchone()
    body = json.dumps({"redirect_uris": [REDIRECT], "junk": "x" * (9 * 1024 * 1024)}).encode()
    r = gateway.handle("POST", "/oauth/register", {"content-type": "application/json"}, body)
    assert r.status == 413, r.body[:300]
    answer = json.loads(r.body)
    assert answer["error"] == "invalid_client_metadata" and "32768 bytes" in answer["error_description"]
    assert r.headers["cache-control"] == "no-store"
    with psycopg.connect(stack.dsn) as conn:
        assert conn.execute("SELECT count(*) FROM oauth_clients").fetchone() == before
    # Just under the cap is parsed as usual (and the unknown member dropped).
    fits = {"redirect_uris": [REDIRECT], "junk": "x" * (30 * 1024)}
    assert call("POST", "/oauth/register", fits).status == 201


def test_an_unused_client_expires_and_is_deleted_as_others_register(stack):
    client_id = register()
    _, kept_for = client_row(stack, client_id)
    assert 86_000 < kept_for.total_seconds() <= 86_400  # ENGRAM_OAUTH_UNUSED_CLIENT_TTL_S
    expire_client(stack, client_id)
    page = authorize(client_id, pkce()[1])
    assert page.status == 400 and "location" not in page.headers and "not registered" in page.body
    register()  # sweeps expired clients
    assert client_row(stack, client_id) is None


def test_a_client_is_kept_as_long_as_its_grant_can_be_refreshed(stack, tenant):
    client_id = register()
    code, verifier = code_for(tenant.key, client_id)
    _, kept_for = client_row(stack, client_id)
    assert kept_for.days >= 29  # ENGRAM_OAUTH_REFRESH_TOKEN_TTL_S: 30 days
    answer = redeem(client_id, code, verifier)
    assert answer.status == 200
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("UPDATE oauth_clients SET active_until = now() + interval '1 day' WHERE id = %s", (client_id,))
    assert refresh(client_id, answer.body["refresh_token"]).status == 200
    _, kept_for = client_row(stack, client_id)
    assert kept_for.days >= 29


def test_uris_urllib_cannot_parse_are_refused_by_name_never_a_500(stack):
    for uri in ("http://[::1/cb", "https://[::1/cb", "https://x:99999/cb", "https://x:port/cb", "http://[zz]/cb"):
        r = call("POST", "/oauth/register", {"redirect_uris": [uri]})
        assert (r.status, r.body["error"]) == (400, "invalid_redirect_uri"), (uri, r.body)
    for client_id in ("https://[::1", "https://x:99999/a", "https://[::1]:99999/a", "http://[::1/x"):
        page = authorize(client_id, pkce()[1])
        assert page.status == 400 and "location" not in page.headers, (client_id, page.body)
        assert "cannot be read" in page.body or "must be https" in page.body, page.body


def pending_host(client_id: str, redirect_uri: str) -> str:
    request_id = request_id_of(authorize(client_id, pkce()[1], redirect_uri=redirect_uri))
    shown = call("GET", f"/oauth/requests/{request_id}")
    assert shown.status == 200, shown.body
    host: str = shown.body["redirect_host"]
    return host


def test_the_consent_page_shows_the_host_the_code_goes_to(stack):
    tricked = "https://trusted.example@evil.example/landing"
    r = call("POST", "/oauth/register", {"redirect_uris": [tricked]})
    assert (r.status, r.body["error"]) == (400, "invalid_redirect_uri") and "user name" in r.body["error_description"]
    # A client stored before registration refused them still shows where the browser really goes.
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO oauth_clients (id, redirect_uris, active_until)"
            " VALUES ('ecl_legacy', %s, now() + interval '1 day')",
            ([tricked],),
        )
    assert pending_host("ecl_legacy", tricked) == "evil.example"
    cases = {
        "https://xn--pple-43d.com/cb": "xn--pple-43d.com",
        "https://\u0430pple.com/cb": "xn--pple-43d.com",  # a Cyrillic a: shown as the browser resolves it
        "http://[::1]:8123/cb": "[::1]:8123",
        "https://Example.COM:8443/cb": "example.com:8443",
        "com.example.app:/oauth/cb": "com.example.app",
    }
    for uri, host in cases.items():
        assert pending_host(register([uri]), uri) == host, uri

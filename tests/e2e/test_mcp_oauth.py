"""Adding Engram to a chat app by URL, end to end: the `mcp` package's own OAuth client
(OAuthClientProvider) against the local server's /mcp. The 401 names the protected resource metadata,
the client discovers the authorization server and registers (DCR), the authorize URL opens in headless
Chromium where a person pastes a key on the consent page, picks a namespace and scopes and approves (or
denies), a local listener takes the redirect as the app's redirect URI would, and the client exchanges
the code, calls tools, refreshes, and is cut off when the grant is revoked.

The protocol's hostile cases (a wrong verifier, a reused code, another resource...) are in
tests/integration; here are the ones a person causes in the browser."""

from __future__ import annotations

import asyncio
import json
import queue
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import mcp
import pytest
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from engram_local.browser import headless_chromium

WAIT_S = 30  # an upper bound for a page or a redirect, never a measured time
APP_NAME = "Test chat app"


class MemoryStorage:
    """The app's token storage (mcp.client.auth.TokenStorage), in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class Callback:
    """The app's redirect URI: a listener on a local port that queues the query of each redirect."""

    def __init__(self) -> None:
        self.queries: queue.Queue[dict[str, str]] = queue.Queue()
        self.seen: list[dict[str, str]] = []
        self.document: dict[str, Any] | None = None  # served at /client.json: a Client ID Metadata Document
        self.document_fetches = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                target = urlsplit(self.path)
                content_type = "text/html; charset=utf-8"
                body = b"<!doctype html><title>Connected</title><p>You can close this window.</p>"
                if target.path == "/callback":  # not the browser's favicon.ico
                    owner.queries.put(dict(parse_qsl(target.query)))
                elif target.path == "/client.json" and owner.document is not None:
                    owner.document_fetches += 1
                    content_type, body = "application/json", json.dumps(owner.document).encode()
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/callback"
        self.document_url = f"http://127.0.0.1:{self.server.server_address[1]}/client.json"

    def wait(self) -> dict[str, str]:
        try:
            query = self.queries.get(timeout=WAIT_S)
        except queue.Empty:
            raise TimeoutError("the browser never came back to the redirect URI") from None
        self.seen.append(query)
        return query

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Person:
    """What the person does on the consent page the authorize URL leads to."""

    def __init__(self, driver: WebDriver, key: str) -> None:
        self.driver, self.key = driver, key
        self.seen: dict[str, str] = {}

    def wait(self) -> WebDriverWait[WebDriver]:
        return WebDriverWait(self.driver, WAIT_S)

    def find(self, css: str) -> Any:
        return self.wait().until(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, css)), css)

    def open(self, authorize_url: str) -> None:
        self.driver.get(authorize_url)  # the server answers 302 to console/consent.html?request=...
        self.find("#request")
        self.seen = {
            "path": urlsplit(self.driver.current_url).path,
            "app": self.find("#client-name").text,
            "redirect_host": self.find("#redirect-host").text,
            "requested": self.find("#requested-scopes").text,
        }

    def approve(self, authorize_url: str, scopes: set[str], namespace: str | None) -> None:
        self.open(authorize_url)
        self.find("#api-key").send_keys(self.key)
        self.find("#use-key").click()
        self.find("#grant-form")
        for box in self.driver.find_elements(By.CSS_SELECTOR, "input[name=scope]"):
            if (box.get_attribute("value") in scopes) != box.is_selected():
                box.click()
        if namespace:
            self.find("#other-namespaces").send_keys(namespace)
        self.find("#approve").click()

    def deny(self, authorize_url: str) -> None:
        self.open(authorize_url)
        self.find("#deny").click()


@pytest.fixture(scope="module")
def driver() -> Iterator[WebDriver]:
    profile = Path(tempfile.mkdtemp(prefix="engram-chromium-"))
    browser = headless_chromium(profile)  # fails (never skips) without Chromium: `make browser`
    yield browser
    browser.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def callback() -> Iterator[Callback]:
    listener = Callback()
    yield listener
    listener.close()


Work = Callable[[mcp.Client], Awaitable[Any]]


class App:
    """A chat app that takes a connector URL: one OAuth client registration and its tokens."""

    def __init__(self, server: str, callback: Callback, consent: Callable[[str], None]) -> None:
        self.server, self.callback, self.storage = server, callback, MemoryStorage()
        self.authorize_urls: list[str] = []

        async def redirect(url: str) -> None:
            self.authorize_urls.append(url)
            await anyio.to_thread.run_sync(consent, url)

        async def come_back() -> AuthorizationCodeResult:
            query = await anyio.to_thread.run_sync(callback.wait)
            if "error" in query:  # what an app shows: the authorization server's answer
                raise OAuthFlowError(f"authorization failed: {query['error']}")
            return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

        metadata = OAuthClientMetadata(
            client_name=APP_NAME,
            redirect_uris=[callback.url],  # type: ignore[list-item]  # pydantic turns the str into a URL
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )
        self.provider = OAuthClientProvider(
            f"{server}/mcp", metadata, self.storage, redirect_handler=redirect, callback_handler=come_back
        )

    def run(self, work: Work) -> Any:
        async def session() -> Any:
            http = create_mcp_http_client(auth=self.provider)
            async with http, mcp.Client(streamable_http_client(f"{self.server}/mcp", http_client=http)) as client:
                return await work(client)

        return asyncio.run(session())

    @property
    def access_token(self) -> str:
        assert self.storage.tokens is not None
        return str(self.storage.tokens.access_token)


def text(result: Any) -> str:
    return result.content[0].text


def call_api(server: str, token: str, method: str, path: str) -> tuple[int, Any, dict[str, str]]:
    request = urllib.request.Request(server + path, method=method, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null"), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null"), dict(exc.headers)


def post_mcp(server: str, token: str, message: dict[str, Any] | None = None) -> tuple[int, dict[str, str]]:
    """One JSON-RPC message (tools/list unless given) over plain HTTP with a bearer, as any client sends it."""
    body = json.dumps(message or {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Accept": "application/json"}
    request = urllib.request.Request(f"{server}/mcp", data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}


def every_message(error: BaseException) -> str:
    """The messages of an error, of the errors it groups and of their causes: the SDK wraps the
    OAuth flow's error in task groups."""
    parts = [f"{type(error).__name__}: {error}"]
    if isinstance(error, BaseExceptionGroup):
        parts += [every_message(e) for e in error.exceptions]
    if error.__cause__ is not None:
        parts.append(every_message(error.__cause__))
    return "\n".join(parts)


def expire_access_tokens(grant_id: str) -> None:
    """Moves the grant's access tokens past their expiry, as 15 minutes would."""
    from engram.core.db import owner_connection

    with owner_connection() as owner:
        owner.execute(
            "UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE grant_id = %s AND kind = 'access'",
            (grant_id,),
        )
        owner.commit()


def grants_of(server: str, key: str) -> list[dict[str, Any]]:
    status, body, _ = call_api(server, key, "GET", "/v1/grants")
    assert status == 200, body
    return list(body["grants"])


def test_a_chat_app_connects_by_url_calls_tools_refreshes_and_is_cut_off_when_revoked(
    server: str, make_tenant: Any, driver: WebDriver, callback: Callback
) -> None:
    tenant = make_tenant("oauth-app")
    # A memory outside the namespace the person will grant: the app must never see it.
    req = urllib.request.Request(
        f"{server}/v1/memories",
        data=json.dumps({"content": "The vault code is in the default namespace.", "namespace": "default"}).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {tenant.key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as response:
        hidden_id = json.loads(response.read())["memory"]["id"]

    person = Person(driver, tenant.key)
    app = App(server, callback, lambda url: person.approve(url, {"read", "write"}, "chat"))

    async def first_session(client: mcp.Client) -> tuple[Any, Any, Any]:
        stored = await client.call_tool(
            "store_memory", {"content": "Mia's sourdough starter is fed at 7 every morning.", "namespace": "chat"}
        )
        found = await client.call_tool("recall", {"query": "sourdough starter", "mode": "keyword"})
        hidden = await client.call_tool("get_memory", {"memory_id": hidden_id})
        return stored, found, hidden

    stored, found, hidden = app.run(first_session)
    # What the person saw, and the one browser round trip the whole connection took.
    assert len(app.authorize_urls) == 1
    authorize = urlsplit(app.authorize_urls[0])
    assert authorize.path == "/oauth/authorize"
    query = dict(parse_qsl(authorize.query))
    assert query["code_challenge_method"] == "S256" and query["resource"] == f"{server}/mcp"
    assert person.seen["path"] == "/console/consent.html"
    assert person.seen["app"] == APP_NAME and person.seen["redirect_host"] == urlsplit(callback.url).netloc
    assert app.storage.client_info is not None and app.storage.client_info.client_id  # registered by DCR
    assert app.access_token.startswith("eat_")
    # The tools ran as the tenant, confined to the granted namespace.
    assert not stored.is_error and text(stored).startswith("Stored memory "), text(stored)
    memory_id = text(stored).split()[2]
    assert not found.is_error and memory_id in text(found) and hidden_id not in text(found)
    assert hidden.is_error and text(hidden) == f"memory {hidden_id} not found"

    [grant] = grants_of(server, tenant.key)
    assert grant["client_name"] == APP_NAME and sorted(grant["scopes"]) == ["read", "write"]
    assert grant["namespaces"] == ["chat"] and grant["last_used_at"] and not grant["revoked_at"]

    # Fifteen minutes later: the server refuses the old access token, the app refreshes (rotating the
    # refresh token) and goes on without the person.
    expire_access_tokens(grant["id"])
    old_access, old_refresh = app.access_token, app.storage.tokens.refresh_token if app.storage.tokens else None
    status, headers = post_mcp(server, old_access)
    assert status == 401 and 'error="invalid_token"' in headers["www-authenticate"]
    app.provider.context.token_expiry_time = time.time() - 1  # the app's clock agrees
    again = app.run(lambda c: c.call_tool("recall", {"query": "sourdough", "mode": "keyword"}))
    assert not again.is_error and memory_id in text(again)
    assert len(app.authorize_urls) == 1  # refreshed, not sent to the browser again
    assert app.access_token != old_access and app.storage.tokens and app.storage.tokens.refresh_token != old_refresh

    # Revoked in the console's API: the very next call is a 401 that points at the metadata.
    status, _, _ = call_api(server, tenant.key, "DELETE", f"/v1/grants/{grant['id']}")
    assert status in (200, 204)
    status, headers = post_mcp(server, app.access_token)
    assert status == 401
    challenge = headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge
    assert f'resource_metadata="{server}/.well-known/oauth-protected-resource/mcp"' in challenge
    [revoked] = grants_of(server, tenant.key)
    assert revoked["revoked_at"]


def test_an_app_named_by_a_client_id_metadata_document_connects_without_registering(
    server: str, make_tenant: Any, driver: WebDriver, callback: Callback, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram_local.stack import LocalStack

    # A metadata document's URL must be https, except http://127.0.0.1 when this setting allows it (as
    # here: the document is served by the test's own listener).
    monkeypatch.setenv("ENGRAM_OAUTH_ALLOW_LOCAL_METADATA_URLS", "true")
    LocalStack.refresh_settings()
    try:
        tenant = make_tenant("oauth-cimd")
        callback.document = {
            "client_id": callback.document_url,
            "client_name": "Metadata app",
            "redirect_uris": [callback.url],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        person = Person(driver, tenant.key)
        app = App(server, callback, lambda url: person.approve(url, {"read"}, None))
        # The SDK's constructor takes https document URLs only; its flow uses whatever URL it holds.
        app.provider.context.client_metadata_url = callback.document_url
        result = app.run(lambda c: c.call_tool("recall", {"query": "anything"}))
    finally:
        monkeypatch.undo()
        LocalStack.refresh_settings()
    assert not result.is_error
    assert dict(parse_qsl(urlsplit(app.authorize_urls[0]).query))["client_id"] == callback.document_url
    assert person.seen["app"] == "Metadata app" and callback.document_fetches >= 1  # the name came from it
    assert app.storage.client_info is not None and app.storage.client_info.client_id == callback.document_url
    [grant] = grants_of(server, tenant.key)
    assert grant["client_id"] == callback.document_url and grant["client_name"] == "Metadata app"


def test_a_person_who_denies_sends_access_denied_back_to_the_app(
    server: str, make_tenant: Any, driver: WebDriver, callback: Callback
) -> None:
    tenant = make_tenant("oauth-deny")
    person = Person(driver, tenant.key)
    app = App(server, callback, person.deny)
    with pytest.raises(Exception) as caught:
        app.run(lambda c: c.list_tools())
    assert "authorization failed: access_denied" in every_message(caught.value)
    [answer] = callback.seen
    asked = dict(parse_qsl(urlsplit(app.authorize_urls[0]).query))
    assert answer["error"] == "access_denied" and answer["state"] == asked["state"]
    assert app.storage.tokens is None and grants_of(server, tenant.key) == []


def test_a_read_only_grant_calling_a_write_tool_is_refused_for_its_scope_and_writes_nothing(
    server: str, make_tenant: Any, driver: WebDriver, callback: Callback, capsys: pytest.CaptureFixture[str]
) -> None:
    from engram.ops.cli import main

    tenant = make_tenant("oauth-read")
    person = Person(driver, tenant.key)
    consents = iter([lambda url: person.approve(url, {"read"}, None), person.deny])
    app = App(server, callback, lambda url: next(consents)(url))

    async def read(client: mcp.Client) -> tuple[list[str], Any]:
        listed = await client.list_tools()
        return [t.name for t in listed.tools], await client.call_tool("recall", {"query": "anything"})

    names, allowed = app.run(read)
    assert "store_memory" not in names and "recall" in names and not allowed.is_error
    # The write tool's call is the spec's 403 insufficient_scope naming the scope, never a 500...
    write = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "store_memory", "arguments": {}}}
    status, headers = post_mcp(server, app.access_token, write)
    assert status == 403 and 'error="insufficient_scope"' in headers["www-authenticate"], headers
    assert 'scope="write"' in headers["www-authenticate"]
    # ...on which the app asks the person for more (a step-up); declined, the call fails and writes nothing.
    with pytest.raises(Exception) as caught:
        app.run(lambda c: c.call_tool("store_memory", {"content": "should not be written"}))
    assert "access_denied" in every_message(caught.value)
    assert len(app.authorize_urls) == 2
    assert "write" in dict(parse_qsl(urlsplit(app.authorize_urls[1]).query))["scope"].split()
    status, listed, _ = call_api(server, tenant.key, "GET", "/v1/memories")
    assert status == 200 and listed["items"] == []

    # The operator's CLI lists the grant (read only, every namespace) and revokes it.
    capsys.readouterr()
    assert main(["grants", "list", "--tenant", tenant.id]) == 0
    [grant] = json.loads(capsys.readouterr().out)["grants"]
    assert grant["scopes"] == ["read"] and grant["namespaces"] is None and grant["client_name"] == APP_NAME
    assert main(["grants", "revoke", grant["id"]]) == 0
    assert json.loads(capsys.readouterr().out) == {"revoked": grant["id"]}
    assert post_mcp(server, app.access_token)[0] == 401
    assert main(["grants", "revoke", "00000000-0000-0000-0000-000000000000"]) == 2  # no such grant: one clear line
    assert "no grant" in capsys.readouterr().err

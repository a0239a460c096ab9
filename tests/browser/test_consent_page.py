"""The OAuth consent page (console/consent.html, where /oauth/authorize sends the person) and the
console's Connected apps view, in the browser: what the person sees, the key kept in the page's memory
only, clear messages for an expired request, a wrong key and a key lacking a scope, the redirect back to
the app, and a grant listed and revoked in the console."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import secrets
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from selenium.webdriver.common.by import By

from tests.support.console_driver import PHONE, Console, as_phone, call

# Nothing listens there: the browser shows its own error page, and the URL is what the app would get
# (a test that ends there goes back to the console: the page fixture clears the tab's storage).
REDIRECT = "http://127.0.0.1:9/callback"


def send(base: str, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, str], Any]:
    """One request without following redirects (the authorize answer is a 302 to inspect)."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    raw = response.read()
    connection.close()
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = raw.decode()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, parsed


def pending_request(base: str, scopes: str = "read write", name: str = "Notes app") -> tuple[str, str]:
    """A registered client's authorization request, as an app starts it: (consent page URL, state)."""
    status, _, client = send(
        base,
        "POST",
        "/oauth/register",
        {
            "client_name": name,
            "redirect_uris": [REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        },
    )
    assert status == 201, client
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    state = secrets.token_urlsafe(12)
    query = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        "scope": scopes,
        "resource": f"{base}/mcp",
    }
    status, headers, body = send(base, "GET", f"/oauth/authorize?{urlencode(query)}")
    assert status == 302, body
    location = headers["location"]
    return (location if location.startswith("http") else base + location), state


def open_request(console: Console, url: str) -> None:
    console.driver.get(url)
    console.find("#request")


def paste_key(console: Console, key: str) -> None:
    console.find("#api-key").send_keys(key)
    console.find("#use-key").click()


def test_the_person_sees_the_app_pastes_a_key_once_and_is_sent_back_with_a_code(console: Console) -> None:
    for namespace in ("work", "home"):
        call(
            console.base,
            console.key,
            "POST",
            "/v1/memories",
            {"content": f"a {namespace} note", "namespace": namespace},
        )
    url, state = pending_request(console.base)
    open_request(console, url)
    assert console.find("#client-name").text == "Notes app"
    assert console.find("#redirect-host").text == "127.0.0.1:9"
    assert console.find("#requested-scopes").text.split() == ["read", "write"]
    assert not console.driver.find_element(By.ID, "approve").is_displayed()  # nothing to approve without a key

    paste_key(console, "egk_00000000_not-a-key")
    console.text_of("#problem", "That key was not accepted")
    [refused] = console.severe_console_errors()  # the browser logs the refused call; nothing else failed
    assert "/v1/stats" in refused and "401" in refused
    paste_key(console, console.key)
    console.find("#grant-form")
    note = console.find("#key-note").text  # which key approves: its public prefix, never the secret
    assert note.startswith("Approving with key egk_") and console.key not in note
    # The field was emptied: the key is kept in the page's memory only.
    assert console.driver.find_element(By.ID, "api-key").get_attribute("value") == ""
    listed = [e.get_attribute("value") for e in console.driver.find_elements(By.CSS_SELECTOR, "input[name=namespace]")]
    assert {"work", "home"} <= set(listed)
    offered = [e.get_attribute("value") for e in console.driver.find_elements(By.CSS_SELECTOR, "input[name=scope]")]
    assert offered == ["read", "write"]  # what was asked, never more
    stored = console.driver.execute_script("return [sessionStorage.length, localStorage.length, document.cookie]")
    assert stored == [0, 0, ""] and console.key not in console.driver.current_url
    console.screenshot("consent")
    assert not console.low_contrast_text()

    console.driver.find_element(By.CSS_SELECTOR, "input[name=scope][value=write]").click()  # read only
    console.driver.find_element(By.CSS_SELECTOR, "input[name=namespace][value=work]").click()
    console.find("#approve").click()
    console.wait(lambda d: d.current_url.startswith(REDIRECT), "back at the app's redirect URI")
    query = dict(parse_qsl(urlsplit(console.driver.current_url).query))
    assert query["state"] == state and query["code"] and console.key not in console.driver.current_url

    # The grant in the console: what it may do and where; revoked from there.
    console.sign_in()
    console.go("#/grants")
    row = console.text_of("#grants tbody tr", "Notes app")
    assert "read" in row.text and "write" not in row.text and "work" in row.text and "active" in row.text
    console.screenshot("grants")
    console.find("#grants button.danger").click()
    console.find("#confirm-yes").click()
    console.text_of("#grants tbody tr", "revoked")
    [grant] = call(console.base, console.key, "GET", "/v1/grants")["grants"]
    assert grant["revoked_at"] and grant["namespaces"] == ["work"]
    assert not console.severe_console_errors()


def test_deny_sends_access_denied_back_without_a_key(console: Console) -> None:
    url, state = pending_request(console.base)
    as_phone(console.driver)  # people approve from a phone too: nothing reaches past the right edge
    open_request(console, url)
    wide = console.driver.execute_script(
        "const w = document.documentElement.clientWidth;"
        " return [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > w + 1)"
        ".map((e) => e.tagName + '#' + e.id)"
    )
    assert console.driver.execute_script("return document.documentElement.clientWidth") == PHONE[0] and not wide, wide
    console.find("#deny").click()
    console.wait(lambda d: d.current_url.startswith(REDIRECT), "back at the app's redirect URI")
    query = dict(parse_qsl(urlsplit(console.driver.current_url).query))
    assert query["error"] == "access_denied" and query["state"] == state and "code" not in query
    console.driver.get(url)  # the answered request is gone
    console.text_of("#problem", "expired or was already answered")


def test_an_unknown_request_and_a_key_lacking_a_scope_are_explained(console: Console, make_tenant: Any) -> None:
    console.driver.get(f"{console.base}/console/consent.html?request=not-a-request")
    console.text_of("#problem", "expired or was already answered")
    console.driver.get(f"{console.base}/console/consent.html")
    console.text_of("#problem", "go back to the app")

    reader = make_tenant("consent-reader", scopes=["read"])
    url, _ = pending_request(console.base, "read write")
    open_request(console, url)
    paste_key(console, reader.key)
    console.find("#approve").click()  # both scopes still ticked
    console.text_of("#problem", 'lacks the "write" scope')
    assert console.driver.current_url == url  # nothing was granted, the person can untick and retry
    console.driver.find_element(By.CSS_SELECTOR, "input[name=scope][value=write]").click()
    console.find("#approve").click()
    console.wait(lambda d: d.current_url.startswith(REDIRECT), "back at the app's redirect URI")
    console.open()  # off the browser's error page for the closed port, so the fixture can clear the tab

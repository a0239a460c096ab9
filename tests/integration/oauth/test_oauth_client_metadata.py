"""Client ID Metadata Documents: a client id that is a URL is fetched (its client_id must be that URL,
its redirect_uris are the ones allowed). Locally an http://127.0.0.1 URL is accepted only when the
setting says so; otherwise only https, and never a host that is not public."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.oauth_flow import REDIRECT, authorize, call, pkce, query_of, redeem, request_id_of


@pytest.fixture
def documents() -> Iterator[tuple[str, dict[str, Any]]]:
    """A local server answering GET <path> with documents[path] (JSON), 404 otherwise."""
    served: dict[str, Any] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path not in served:
                self.send_response(404)
                self.end_headers()
                return
            data = json.dumps(served[self.path]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", served
    server.shutdown()
    server.server_close()


def test_a_metadata_document_client_goes_through_the_whole_flow(stack, tenant, documents, settings_env):
    settings_env(ENGRAM_OAUTH_ALLOW_LOCAL_METADATA_URLS="true")
    base, served = documents
    client_id = f"{base}/oauth/client.json"
    served["/oauth/client.json"] = {"client_id": client_id, "client_name": "Doc Client", "redirect_uris": [REDIRECT]}
    verifier, challenge = pkce()
    request_id = request_id_of(authorize(client_id, challenge))
    assert call("GET", f"/oauth/requests/{request_id}").body["client_name"] == "Doc Client"
    approved = call("POST", f"/oauth/requests/{request_id}/approve", {"scopes": ["read"]}, token=tenant.key)
    code = query_of(approved.body["redirect_to"])["code"]
    tokens = redeem(client_id, code, verifier)
    assert tokens.status == 200 and tokens.body["scope"] == "read"


def test_a_metadata_document_that_names_another_client_or_redirect_is_refused(stack, documents, settings_env):
    settings_env(ENGRAM_OAUTH_ALLOW_LOCAL_METADATA_URLS="true")
    base, served = documents
    served["/other.json"] = {"client_id": "https://elsewhere.example/c.json", "redirect_uris": [REDIRECT]}
    r = authorize(f"{base}/other.json", pkce()[1])
    assert r.status == 400 and "location" not in r.headers and "another client_id" in r.body
    served["/c.json"] = {"client_id": f"{base}/c.json", "redirect_uris": ["http://127.0.0.1:9/elsewhere"]}
    r = authorize(f"{base}/c.json", pkce()[1])
    assert r.status == 400 and "location" not in r.headers
    assert authorize(f"{base}/missing.json", pkce()[1]).status == 400


def test_local_or_plain_http_metadata_urls_are_refused_unless_the_setting_allows(stack, documents):
    base, served = documents
    served["/c.json"] = {"client_id": f"{base}/c.json", "redirect_uris": [REDIRECT]}
    r = authorize(f"{base}/c.json", pkce()[1])
    assert r.status == 400 and "https" in r.body
    r = authorize("https://127.0.0.1/c.json", pkce()[1])
    assert r.status == 400 and "not a public address" in r.body


def test_without_a_route_out_metadata_documents_are_neither_advertised_nor_fetched(stack, documents, settings_env):
    """In AWS without a NAT gateway the oauth function cannot fetch a client's document: the metadata must
    not advertise it (MCP clients prefer it when advertised), and a URL client id is told to register."""
    settings_env(ENGRAM_OAUTH_ALLOW_LOCAL_METADATA_URLS="true", ENGRAM_OAUTH_CLIENT_METADATA_DOCUMENTS="false")
    assert call("GET", "/.well-known/oauth-authorization-server").body["client_id_metadata_document_supported"] is False
    base, served = documents
    served["/c.json"] = {"client_id": f"{base}/c.json", "redirect_uris": [REDIRECT]}
    r = authorize(f"{base}/c.json", pkce()[1])
    assert r.status == 400 and "location" not in r.headers and "/oauth/register" in r.body
    settings_env(ENGRAM_OAUTH_CLIENT_METADATA_DOCUMENTS="true")
    assert call("GET", "/.well-known/oauth-authorization-server").body["client_id_metadata_document_supported"] is True

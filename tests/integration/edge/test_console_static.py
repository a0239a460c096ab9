"""GET /console and its files through the API Gateway stand-in: no key needed, strict headers, only
the console's own files, nothing that points off the origin."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from engram_local import gateway

STATIC = Path(__file__).resolve().parents[3] / "functions" / "console" / "static"
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


def get(path: str, headers: dict[str, str] | None = None) -> gateway.HttpResponse:
    return gateway.handle("GET", path, headers or {}, b"")


def test_the_page_is_served_without_a_key_under_a_strict_policy(stack):
    resp = get("/console")
    assert resp.status == 200
    assert resp.headers["content-type"] == "text/html; charset=utf-8"
    moto = os.environ["AWS_ENDPOINT_URL_S3"].rstrip("/")  # where the presigned upload URLs point locally
    assert resp.headers["content-security-policy"] == (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self' {moto}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    assert resp.headers["x-content-type-options"] == "nosniff"
    assert resp.headers["cache-control"] == "no-cache"
    assert b'<script type="module" src="console/app.js">' in resp.body


def test_the_upload_origin_in_the_policy_is_the_one_presigned_urls_use(api):
    ticket = api.post("/v1/documents/uploads", {"size_bytes": 10, "sha256": "0" * 64}).body
    policy = get("/console").headers["content-security-policy"]
    origin = re.match(r"^https?://[^/]+", ticket["url"])
    assert origin and f"connect-src 'self' {origin.group(0)};" in policy


@pytest.mark.parametrize(
    ("name", "content_type"),
    [("app.js", "text/javascript; charset=utf-8"), ("console.css", "text/css; charset=utf-8")],
)
def test_files_have_their_type_and_revalidate_with_an_etag(stack, name, content_type):
    resp = get(f"/console/{name}")
    assert resp.status == 200 and resp.headers["content-type"] == content_type
    assert resp.body == (STATIC / name).read_bytes()
    again = get(f"/console/{name}", {"If-None-Match": resp.headers["etag"]})
    assert again.status == 304 and again.body == b""


@pytest.mark.parametrize("asset", ["index.html", "handler.py", "..%2Fhandler.py", ".hidden.js", "nope.js", "APP.JS"])
def test_anything_but_a_console_file_is_a_404(stack, asset):
    resp = get(f"/console/{asset}")
    assert resp.status == 404
    assert resp.headers["content-type"] == "application/json"


def test_static_files_reference_nothing_off_the_origin():
    for path in STATIC.iterdir():
        text = path.read_text()
        urls = set(re.findall(r"(?:https?:)?//[\w.-]+\.\w+[^\s\"'`)]*", text)) - {SVG_NAMESPACE}
        assert not urls, (path.name, urls)
        for module in re.findall(r"""from\s+["']([^"']+)["']""", text):
            assert module.startswith("./") and (STATIC / module[2:]).is_file(), (path.name, module)
    html = (STATIC / "index.html").read_text()
    assert "style=" not in html and "<script>" not in html  # nothing inline: the policy would refuse it
    for ref in re.findall(r'(?:src|href)="([^"#]+)"', html):
        assert ref == "data:," or (ref.startswith("console/") and (STATIC / ref.removeprefix("console/")).is_file()), (
            ref
        )

"""The memory console's static files: GET /console and GET /console/{asset}, no API key.

The page holds no secret and no data: it calls the public /v1 API with the key the operator
pastes, so serving it without the authorizer gives nothing away. What it may load and call is
pinned by a strict Content-Security-Policy: its own files, this API, and the S3 endpoint that the
document uploads' presigned PUT URLs point at (nothing else, no inline script or style).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from engram.core.config import settings

INDEX = "index.html"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
# One path segment of plain file name: no dots beyond the extension, so no traversal.
ASSET_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\.(html|js|css|svg)$")


def upload_origins() -> list[str]:
    """Where the browser PUTs presigned uploads: the host engram.adapters.s3's client signs them for,
    the bucket's own virtual host in its Region (tests/unit/test_console_policy.py checks real
    presigned URLs against this). Read from the settings, not from a boto3 client: creating one
    costs a cold start about a second."""
    s = settings()
    if s.s3_endpoint_url:  # the local stand-in (moto), or any endpoint boto3 is pointed at
        parts = urlsplit(s.s3_endpoint_url)
        return [f"{parts.scheme}://{parts.netloc}"]
    if not s.uploads_bucket:  # no uploads: the page talks to its own API only
        return []
    return [f"https://{s.uploads_bucket}.s3.{s.aws_region or 'us-east-1'}.amazonaws.com"]


def content_security_policy(uploads: list[str]) -> str:
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            " ".join(["connect-src 'self'", *uploads]),
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


@cache
def _read(path: Path) -> tuple[bytes, str]:
    body = path.read_bytes()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _not_found(asset: str) -> dict[str, Any]:
    error = {"code": "not_found", "message": "no such console file", "details": {"asset": asset}}
    return {
        "statusCode": 404,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps({"error": error}, separators=(",", ":")),
        "isBase64Encoded": False,
    }


def serve_static(static_dir: Path, event: dict[str, Any], csp: str) -> dict[str, Any]:
    """One file of `static_dir` as an API Gateway (payload v2) response. No file name is taken
    from the request that is not in the directory: the name must match ASSET_NAME."""
    asked = (event.get("pathParameters") or {}).get("asset")
    asset = asked or INDEX
    path = static_dir / asset
    # The page itself is GET /console only: its relative links would not resolve from /console/index.html.
    if asked == INDEX or not ASSET_NAME.match(asset) or not path.is_file():
        return _not_found(asset)
    body, etag = _read(path)
    headers = {
        "Content-Type": CONTENT_TYPES[path.suffix],
        # Revalidated on every load (file names carry no version): a deploy shows at once, and an
        # unchanged file costs a 304.
        "Cache-Control": "no-cache",
        "ETag": etag,
        "Content-Security-Policy": csp,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cross-Origin-Opener-Policy": "same-origin",
    }
    request_headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    if request_headers.get("if-none-match") == etag:
        return {"statusCode": 304, "headers": headers, "body": "", "isBase64Encoded": False}
    return {"statusCode": 200, "headers": headers, "body": body.decode("utf-8"), "isBase64Encoded": False}


def console_handler(static_dir: Path) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point of functions/console, serving its own static/ folder."""

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return serve_static(static_dir, event, content_security_policy(upload_origins()))

    return handler

"""What a request body must be before any route sees it: UTF-8 JSON, sent as application/json.

Each refusal is a 4xx in the error envelope (400 not UTF-8 or not JSON, 415 a wrong or malformed
Content-Type), decided before validation, so no such request can reach a handler or the database.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Mapping
from typing import Any

# type/subtype with RFC 9110 token characters; parameters are `name=value` or `name="value"`.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_MEDIA_TYPE = re.compile(rf"^({_TOKEN})/({_TOKEN})$")
_PARAMETER = re.compile(rf'^({_TOKEN})=({_TOKEN}|"[^"\\\x00-\x1f\x7f]*")$')
JSON_MEDIA_TYPE = "application/json"


class BodyRefused(Exception):
    """The body cannot be read as this API's JSON; carries the status and envelope fields."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details


def check_content_type(header: str | None) -> None:
    """application/json, optionally with charset=utf-8. A missing header is read as JSON."""
    if header is None or not header.strip():
        return
    media, *params = header.split(";")
    found = _MEDIA_TYPE.match(media.strip())
    if found is None or any(_PARAMETER.match(p.strip()) is None for p in params if p.strip()):
        raise BodyRefused(
            415,
            "unsupported_media_type",
            f"the Content-Type header is malformed; send {JSON_MEDIA_TYPE}",
            {"content_type": header[:200], "expected": JSON_MEDIA_TYPE},
        )
    if media.strip().lower() != JSON_MEDIA_TYPE:
        raise BodyRefused(
            415,
            "unsupported_media_type",
            f"request bodies are JSON: send {JSON_MEDIA_TYPE}",
            {"content_type": header[:200], "expected": JSON_MEDIA_TYPE},
        )
    for param in params:
        name, _, value = param.strip().partition("=")
        if name.lower() == "charset" and value.strip('"').lower() not in ("utf-8", "utf8"):
            raise BodyRefused(
                415,
                "unsupported_media_type",
                "request bodies are UTF-8 JSON",
                {"content_type": header[:200], "expected": f"{JSON_MEDIA_TYPE}; charset=utf-8"},
            )


def check_body_encoding(body: str, is_base64: bool) -> None:
    """API Gateway passes a body that is not valid UTF-8 base64-encoded: refuse it here."""
    if not is_base64:
        return
    try:
        base64.b64decode(body, validate=True).decode("utf-8")
    except binascii.Error:
        raise BodyRefused(400, "malformed_body", "the request body could not be decoded", {}) from None
    except UnicodeDecodeError as exc:
        raise BodyRefused(400, "malformed_body", "the request body is not UTF-8", {"byte_offset": exc.start}) from None


def check_request(event: Mapping[str, Any]) -> str | None:
    """Raise BodyRefused when the event carries a body this API cannot read; otherwise return the
    body's media type in lower case (None when there is no body or no Content-Type)."""
    body = event.get("body")
    if not body:
        return None
    headers = {str(k).lower(): v for k, v in (event.get("headers") or {}).items()}
    content_type = headers.get("content-type")
    check_content_type(content_type)
    check_body_encoding(body, bool(event.get("isBase64Encoded")))
    return JSON_MEDIA_TYPE if content_type and content_type.strip() else None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large for a 64-bit float")
    return value


def parse_json_body(text: str) -> Any:
    """json.loads, strict: NaN/Infinity and numbers beyond a double are refused, and nesting too
    deep for the parser is a malformed body (not a crash). Every failure is a JSONDecodeError, which
    the validation layer answers with 400."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None
    except ValueError as exc:  # our refusals above, or an integer longer than Python converts
        raise json.JSONDecodeError(str(exc), text, 0) from None

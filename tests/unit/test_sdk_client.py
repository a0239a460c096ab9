"""The SDK's pure parts: reading error answers into typed errors, and where the client's URL and key
come from. (Requests against the server: tests/e2e/test_sdk.py and test_sdk_retries.py.)"""

from __future__ import annotations

import httpx
import pytest

from engram_client import (
    Engram,
    EngramError,
    Forbidden,
    InvalidField,
    RateLimited,
    ServerError,
    ServiceUnavailable,
)
from engram_client.errors import error_from_response


def answer(status: int, body: bytes, **headers: str) -> httpx.Response:
    return httpx.Response(status, content=body, headers=headers)


def test_the_api_envelope_becomes_a_typed_error() -> None:
    body = b'{"error": {"code": "invalid_field", "message": "tags.0: too long", "details": {"field": "tags.0",'
    body += b' "limit": 64, "fields": [{"field": "tags.0", "message": "too long", "limit": 64}]}}}'
    error = error_from_response(answer(422, body))
    assert isinstance(error, InvalidField)
    assert (error.status, error.code, error.message, error.field) == (
        422,
        "invalid_field",
        "tags.0: too long",
        "tags.0",
    )
    assert error.fields == [{"field": "tags.0", "message": "too long", "limit": 64}]


def test_a_500_carries_its_request_id() -> None:
    body = b'{"error": {"code": "internal_error", "message": "logged", "details": {"request_id": "r-1"}}}'
    error = error_from_response(answer(500, body))
    assert isinstance(error, ServerError) and not isinstance(error, ServiceUnavailable) and error.request_id == "r-1"


def test_gateway_answers_without_the_envelope_get_a_code_from_their_status() -> None:
    throttled = error_from_response(answer(429, b'{"message": "Too Many Requests"}', **{"apigw-requestid": "g-7"}), 2.0)
    assert isinstance(throttled, RateLimited)
    assert (throttled.code, throttled.message, throttled.request_id, throttled.retry_after) == (
        "throttled",
        "Too Many Requests",
        "g-7",
        2.0,
    )
    s3 = error_from_response(answer(403, b"<Error><Code>SignatureDoesNotMatch</Code></Error>"))
    assert isinstance(s3, Forbidden) and "SignatureDoesNotMatch" in s3.message and s3.code == "forbidden"
    timeout = error_from_response(answer(504, b""))
    assert isinstance(timeout, ServerError) and timeout.code == "gateway_timeout"


def test_url_and_key_come_from_the_arguments_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGRAM_API_URL", raising=False)
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    with pytest.raises(EngramError, match="ENGRAM_API_URL"):
        Engram()
    monkeypatch.setenv("ENGRAM_API_URL", "https://api.example.test/")
    monkeypatch.setenv("ENGRAM_API_KEY", "egk_from_env")
    with Engram() as from_env, Engram("http://127.0.0.1:8080", "egk_given") as given:
        assert (from_env.settings.base_url, from_env.settings.api_key) == ("https://api.example.test", "egk_from_env")
        assert (given.settings.base_url, given.settings.api_key) == ("http://127.0.0.1:8080", "egk_given")
        assert "egk_" not in repr(given.settings)

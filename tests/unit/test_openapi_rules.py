"""The OpenAPI document states the rules the server refuses requests by: as a pattern, an enum or a
maximum where JSON Schema can say it, in a sentence where it cannot (a rule across two fields, a
cursor only the API makes). A schema-valid request the server refuses for an unstated rule was what
schemathesis's positive_data_acceptance check found (596 of them: cursors, since == until,
content_type, size caps, `{}` at register)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from engram.documents.prepare import UnsupportedMediaType, normalise_content_type
from engram_http.api import openapi_document


@cache
def doc() -> dict[str, Any]:
    return openapi_document()


def schema(name: str) -> dict[str, Any]:
    found: dict[str, Any] = doc()["components"]["schemas"][name]
    return found


def body_schema(method: str, path: str, media: str = "application/json") -> dict[str, Any]:
    ref = doc()["paths"][path][method]["requestBody"]["content"][media]["schema"]["$ref"]
    return schema(ref.rsplit("/", 1)[1])


def parameter(method: str, path: str, name: str) -> dict[str, Any]:
    (found,) = [p for p in doc()["paths"][path][method]["parameters"] if p["name"] == name]
    return found


def described(field: dict[str, Any]) -> str:
    return str(field.get("description", ""))


def test_registration_states_its_fields_so_an_empty_document_is_schema_invalid():
    registration = body_schema("post", "/oauth/register")
    assert registration["required"] == ["redirect_uris"]
    uris = registration["properties"]["redirect_uris"]
    assert (uris["minItems"], uris["maxItems"], uris["items"]["maxLength"]) == (1, 10, 2000)
    assert "loopback" in described(uris) and "fragment" in described(uris)
    auth_method = registration["properties"]["token_endpoint_auth_method"]["anyOf"][0]
    assert auth_method["const"] == "none"


def test_the_token_and_revocation_forms_and_the_authorize_query_are_stated():
    token = body_schema("post", "/oauth/token", "application/x-www-form-urlencoded")
    assert token["properties"]["grant_type"]["enum"] == ["authorization_code", "refresh_token"]
    assert set(token["required"]) == {"grant_type", "client_id"}
    revoke = body_schema("post", "/oauth/revoke", "application/x-www-form-urlencoded")
    assert revoke["required"] == ["token"]
    for name, rule in (("response_type", "enum"), ("code_challenge", "pattern"), ("code_challenge_method", "enum")):
        found = parameter("get", "/oauth/authorize", name)
        assert found["required"] and rule in found["schema"], name
    assert parameter("get", "/oauth/authorize", "state")["schema"]["maxLength"] == 1000


@pytest.mark.parametrize("model", ["DocumentCreate", "UploadCreate"])
def test_content_type_states_the_values_the_server_takes(model):
    pattern = schema(model)["properties"]["content_type"]["pattern"]
    for value in ("text/markdown", "text/plain", "text/plain; charset=utf-8", 'text/markdown;charset="UTF-8"'):
        assert re.fullmatch(pattern, value), value
        normalise_content_type(value)  # every value the pattern allows, the server takes
    for value in ("application/pdf", "text/html", "text/plain; charset=latin-1"):
        assert not re.fullmatch(pattern, value), value
        with pytest.raises(UnsupportedMediaType):
            normalise_content_type(value)


def test_each_substring_states_its_length():
    items = schema("QueryFilter")["properties"]["substrings"]["anyOf"][0]["items"]
    assert (items["minLength"], items["maxLength"]) == (1, 200)
    assert "exactly one of regex or substrings" in described(schema("QueryFilter"))


def test_rules_across_fields_and_opaque_values_are_said_in_a_sentence():
    cursor = parameter("get", "/v1/memories", "cursor")
    assert "exactly as returned" in described(cursor)
    assert "exactly as returned" in described(parameter("get", "/v1/consolidation-runs/{run_id}", "cursor"))
    assert "later than since" in described(schema("Selector")["properties"]["until"])
    assert "later than valid_from" in described(schema("LinkCreate")["properties"]["valid_to"])
    assert "not with include_expired" in described(schema("RecallRequest")["properties"]["as_of"])
    assert "Only for tool and assistant" in described(schema("MessageCreate")["properties"]["tool_call_id"])
    assert "must be equal" in described(schema("MessagesAppend")["properties"]["idempotency_key"])
    to_seq = parameter("get", "/v1/conversations/{conversation_id}/messages", "to_seq")
    assert "Not below from_seq" in described(to_seq)
    assert "admin only without namespaces" in described(schema("Approval")["properties"]["scopes"])

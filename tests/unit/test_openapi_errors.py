"""The OpenAPI document tells the truth about errors: every status a route can answer is documented
with the envelope the API sends, success codes are the real ones, and public routes need no key."""

from __future__ import annotations

from typing import Any

import pytest

from engram_http.api import openapi_document
from engram_http.openapi import ENVELOPE_REF, OAUTH_ERROR_REF, OAUTH_ERRORS, REDIRECTS, ErrorEnvelope
from engram_http.route_table import ROUTES

BODY_STATUSES = {"400", "413", "415", "422"}
AUTH_STATUSES = {"401", "403", "429"}
PUBLIC_IN_ROUTE_TABLE = {(r.method.lower(), r.path) for r in ROUTES if not r.auth}


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [(m, p, op) for p, ops in openapi_document()["paths"].items() for m, op in ops.items()]


def _refs(schema: dict[str, Any]) -> set[str]:
    return {schema["$ref"]} if "$ref" in schema else {s.get("$ref", "") for s in schema.get("anyOf", [])}


@pytest.mark.parametrize(("method", "path", "op"), operations(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_error_status_is_documented_with_the_envelope(method, path, op):
    responses = op["responses"]
    errors = {s for s in responses if s[0] in "45"}
    assert {"500", "503"} <= errors
    public = op.get("security") == []
    assert public == ((method, path) in PUBLIC_IN_ROUTE_TABLE)
    if not public:
        assert errors >= AUTH_STATUSES
    if "requestBody" in op:
        assert errors >= BODY_STATUSES
    if any(p["in"] == "path" for p in op.get("parameters", [])):
        assert "404" in errors
    if not op.get("parameters") and "requestBody" not in op:
        assert "422" not in errors, "nothing to validate, so no 422"
    for status in errors:
        if (method, path) in REDIRECTS and status == "400":
            assert "text/html" in responses[status]["content"]  # a page for the person, not for the client
            continue
        schema = responses[status]["content"]["application/json"]["schema"]
        assert ENVELOPE_REF in _refs(schema), (status, schema)
        if status in OAUTH_ERRORS.get((method, path), ()):
            assert OAUTH_ERROR_REF in _refs(schema), (status, schema)


@pytest.mark.parametrize(("method", "path", "op"), operations(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_operation_documents_its_success_answer(method, path, op):
    # Powertools drops the default 200 when a route declares `responses=` without it, and a client
    # generated from the document then has no type for the answer (schemathesis reports it too).
    if (method, path) in REDIRECTS:
        assert "Location" in op["responses"][REDIRECTS[(method, path)]]["headers"]
        return
    success = [s for s in op["responses"] if s.startswith("2")]
    assert success, (method, path)
    if path != "/v1/openapi.json":
        for status in success:
            assert op["responses"][status]["content"]["application/json"]["schema"], (method, path, status)


def test_success_codes_and_conflicts_are_the_real_ones():
    paths = openapi_document()["paths"]
    assert "201" in paths["/v1/keys"]["post"]["responses"] and "200" not in paths["/v1/keys"]["post"]["responses"]
    assert "409" in paths["/v1/memories/{memory_id}"]["patch"]["responses"]
    assert "409" in paths["/v1/memories/{memory_id}/restore"]["post"]["responses"]
    assert "409" in paths["/v1/conversations/{conversation_id}/messages"]["post"]["responses"]
    too_large = paths["/v1/documents"]["post"]["responses"]["413"]
    assert too_large["description"] == "Too large: use uploads" and "DocumentWritten" not in str(too_large)


def test_no_fastapi_validation_schema_is_left():
    doc = openapi_document()
    assert "HTTPValidationError" not in str(doc) and "ValidationError" not in doc["components"]["schemas"]


def test_the_envelope_schema_matches_what_validation_errors_send():
    from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

    from engram_http.errors import validation_response

    sent = validation_response(
        RequestValidationError([{"type": "missing", "loc": ("body", "content"), "msg": "Field required"}])
    )
    assert sent.status_code == 422
    ErrorEnvelope.model_validate(sent.body)


def test_an_empty_patch_is_documented_as_refused():
    # a fuzzer sends `{}` as a valid patch unless the document says it needs a field
    schemas = openapi_document()["components"]["schemas"]
    assert schemas["MemoryPatch"]["minProperties"] == 1

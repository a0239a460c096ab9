"""The OpenAPI 3.1 document: Powertools' generation from the routers and pydantic models, then
every error status each route can answer added with the envelope the API really sends.

Powertools documents 422 as FastAPI's `{"detail": [...]}`, gives any status a route declares in
`responses=` the route's success schema, and knows nothing of the other error statuses. Here
`statuses_for` adds the statuses every operation of its kind can return; a route declares the
ones only it can (a 409, a 404 from a body's reference) with a description, and every error status
gets the envelope schema.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from engram.oauth.models import ClientRegistration
from engram_http.openapi_oauth import FORM_MODELS, QUERY_PARAMETERS
from engram_http.route_table import ROUTES

FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"

ENVELOPE_REF = "#/components/schemas/ErrorEnvelope"
GATEWAY_REF = "#/components/schemas/GatewayError"
SECURITY_SCHEME = "bearer"

# Routes that answer without a key: the route table's auth=False.
PUBLIC = {(route.method.lower(), route.path) for route in ROUTES if not route.auth}

# Routes whose success status is not 200.
SUCCESS = {("post", "/v1/keys"): "201"}

# OAuth's own endpoints answer their protocol errors in RFC 6749's shape, which OAuth clients read;
# a malformed body still gets the envelope.
OAUTH_ERROR_REF = "#/components/schemas/OAuthErrorBody"
OAUTH_ERRORS = {
    ("post", "/oauth/register"): {"400", "413"},
    ("post", "/oauth/token"): {"400", "401"},
    ("post", "/oauth/revoke"): {"400"},
}

# Bodies a route reads as a plain object (so that its errors keep OAuth's shape) and checks with a
# model itself: the document states that model's rules.
REQUEST_MODELS: dict[tuple[str, str], type[BaseModel]] = {("post", "/oauth/register"): ClientRegistration}

# Answered with a redirect; a request that cannot be sent back gets a page for the person instead.
REDIRECTS = {("get", "/oauth/authorize"): "302"}

DESCRIPTIONS = {
    "400": "Malformed body: not UTF-8, or not JSON",
    "401": "No API key, or a key that is not valid",
    "403": "The key lacks the scope this route needs (details.required_scope)",
    "404": "Not found, or not this tenant's",
    "413": "Too large (says the limit and the alternative)",
    "415": "The Content-Type is not application/json",
    "422": "An invalid field: details.field, details.limit when there is one, details.fields[] for all",
    "429": "Throttled",
    "500": "A bug on our side (details.request_id; the log has the rest)",
    "503": "A dependency is down (details.dependency); with Retry-After when it is expected back soon",
}

# The header of a 503 whose dependency is expected back (a paused database resuming).
RETRY_AFTER_HEADER = {
    "Retry-After": {
        "description": "Seconds to wait before sending the request again",
        "schema": {"type": "integer", "minimum": 0},
    }
}

# API Gateway answers these itself in some cases (no Authorization header, a rejected key, a body
# over 10 MB, throttling, a crashed function), with its own `{"message": ...}` body.
FROM_GATEWAY_TOO = {"401", "403", "404", "413", "429", "500"}


class ErrorBody(BaseModel):
    code: str = Field(description="Stable, machine-readable: invalid_field, not_found, conflict, ...")
    message: str = Field(description="For people: names the field and the limit")
    details: Any = Field(description="field, limit, fields[], request_id, dependency, ... (null when none)")


class ErrorEnvelope(BaseModel):
    """Every error this API's functions send."""

    error: ErrorBody


class GatewayError(BaseModel):
    """What API Gateway itself sends when it answers before a function runs."""

    message: str


class OAuthErrorBody(BaseModel):
    """An OAuth endpoint's error (RFC 6749 section 5.2): invalid_request, invalid_grant, ..."""

    error: str
    error_description: str


def statuses_for(method: str, path: str, operation: dict[str, Any]) -> list[str]:
    """The error statuses `method path` can answer: from what the operation takes, plus what its
    route declares (any declared 4xx/5xx other than Powertools' automatic 422)."""
    params = operation.get("parameters") or []
    has_body = "requestBody" in operation
    statuses = {"500", "503"}
    if (method, path) not in PUBLIC:
        statuses |= {"401", "403", "429"}
    if has_body:
        statuses |= {"400", "413", "415", "422"}
    if params:
        statuses.add("422")
    if any(p.get("in") == "path" for p in params):
        statuses.add("404")
    statuses |= {s for s in operation.get("responses", {}) if s[0] in "45" and s != "422"}
    statuses |= OAUTH_ERRORS.get((method, path), set())
    return sorted(statuses)


def _error_response(status: str, declared: dict[str, Any] | None) -> dict[str, Any]:
    schema: dict[str, Any] = {"$ref": ENVELOPE_REF}
    if status in FROM_GATEWAY_TOO:
        schema = {"anyOf": [{"$ref": ENVELOPE_REF}, {"$ref": GATEWAY_REF}]}
    description = (declared or {}).get("description") or DESCRIPTIONS.get(status, "Error")
    response: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if status == "503":
        response["headers"] = RETRY_AFTER_HEADER
    return response


def _document_redirect(responses: dict[str, Any], status: str) -> None:
    responses[status] = {
        "description": responses.get(status, {}).get("description", "Redirect"),
        "headers": {"Location": {"description": "Where the browser goes next", "schema": {"type": "string"}}},
    }
    responses["400"] = {
        "description": "A page for the person: the request cannot be sent back to the client",
        "content": {"text/html": {"schema": {"type": "string"}}},
    }


def _document_inputs(method: str, path: str, operation: dict[str, Any]) -> None:
    """What a route reads as a plain mapping (a JSON object, a form, a query string), as its model or
    parameters state it."""
    key = (method, path)
    if key in REQUEST_MODELS:
        ref = f"#/components/schemas/{REQUEST_MODELS[key].__name__}"
        operation["requestBody"]["content"]["application/json"]["schema"] = {"$ref": ref}
    if key in FORM_MODELS:
        ref = f"#/components/schemas/{FORM_MODELS[key].__name__}"
        operation["requestBody"] = {"required": True, "content": {FORM_MEDIA_TYPE: {"schema": {"$ref": ref}}}}
    if key in QUERY_PARAMETERS:
        operation["parameters"] = QUERY_PARAMETERS[key]


def document_errors(doc: dict[str, Any]) -> dict[str, Any]:
    """Rewrite Powertools' document in place: error statuses, success codes, public routes."""
    for path, operations in doc.get("paths", {}).items():
        for method, operation in operations.items():
            _document_inputs(method, path, operation)
            responses = operation.setdefault("responses", {})
            success = SUCCESS.get((method, path))
            if success and "200" in responses and success not in responses:
                responses[success] = responses.pop("200")
            errors = statuses_for(method, path, operation)
            for status in [s for s in responses if s[0] in "45" and s not in errors]:
                del responses[status]  # Powertools puts 422 on every route, even those with no input
            for status in errors:
                declared = responses.get(status) if status != "422" else None
                responses[status] = _error_response(status, declared)
            for status in OAUTH_ERRORS.get((method, path), ()):
                shapes = [OAUTH_ERROR_REF, ENVELOPE_REF] + ([GATEWAY_REF] if status in FROM_GATEWAY_TOO else [])
                body = {"anyOf": [{"$ref": ref} for ref in shapes]}
                responses[status]["content"]["application/json"]["schema"] = body
                responses[status]["description"] = "OAuth's error: invalid_request, invalid_grant, ... (RFC 6749)"
            if (method, path) in REDIRECTS:
                _document_redirect(responses, REDIRECTS[(method, path)])
            if (method, path) in PUBLIC:
                operation["security"] = []
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        schemas.pop(name, None)
    models: list[type[BaseModel]] = [
        ErrorEnvelope,
        GatewayError,
        OAuthErrorBody,
        *REQUEST_MODELS.values(),
        *FORM_MODELS.values(),
    ]
    for model in models:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[model.__name__] = schema
    return doc

"""The SDK (clients/python) against the committed OpenAPI document: every request it builds is a
documented route, sends exactly the fields and parameters that route documents, and every result
model has the documented fields. A route or model change that the SDK does not follow fails here."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from engram_client import endpoints, models
from engram_client.endpoints import Call

SPEC = json.loads((Path(__file__).parents[2] / "docs" / "openapi.json").read_text())
SCHEMAS = SPEC["components"]["schemas"]

# SDK argument -> the API's name for it (plural arguments for repeatable query parameters).
QUERY_NAMES = {"tags": "tag", "relations": "relation"}
# query-document's filter is flattened into keyword arguments.
FLATTENED = {"regex": "filter", "substrings": "filter", "case_sensitive": "filter"}
HEADERS = {"idempotency_key"}  # sent as the Idempotency-Key header
# Documented parameters an SDK function sets itself: resume() is the JSON form, resume_text() the text form.
SET_BY_THE_FUNCTION = {"resume": {"format"}, "resume_text": {"format"}}
SAMPLES = {"Ref": "00000000-0000-4000-8000-000000000000", "str": "x", "int": 1, "Relation": "relates_to"}


def builders() -> list[Callable[..., Call[Any]]]:
    found = [
        f
        for _, f in inspect.getmembers(endpoints, inspect.isfunction)
        if f.__module__ == endpoints.__name__ and str(inspect.signature(f).return_annotation).startswith("Call[")
    ]
    assert len(found) >= 40
    return found


def build(f: Callable[..., Call[Any]]) -> Call[Any]:
    args = []
    for p in inspect.signature(f).parameters.values():
        if p.default is inspect.Parameter.empty:
            args.append(SAMPLES.get(str(p.annotation), []))  # Sequence[...] arguments get []
    return f(*args)


def route(call: Call[Any]) -> tuple[str, dict[str, Any]]:
    for template, ops in SPEC["paths"].items():
        pattern = "^" + re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, call.path) and call.method.lower() in ops:
            return template, ops[call.method.lower()]
    raise AssertionError(f"{call.method} {call.path} is not a documented route")


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    return SCHEMAS[ref.rsplit("/", 1)[-1]] if ref else schema


@pytest.mark.parametrize("f", builders(), ids=lambda f: f.__name__)
def test_every_sdk_call_is_a_documented_route_with_its_fields(f: Callable[..., Call[Any]]) -> None:
    call = build(f)
    template, op = route(call)
    path_params = set(re.findall(r"{(\w+)}", template))
    given = {p for p in inspect.signature(f).parameters if p not in path_params}
    assert path_params <= set(inspect.signature(f).parameters), f"{f.__name__} lacks a path parameter"
    documented_query = {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
    body = op.get("requestBody")
    if body is not None:
        schema = resolve(body["content"]["application/json"]["schema"])
        sent = {FLATTENED.get(p, p) for p in given - HEADERS}
        assert sent == set(schema["properties"]) - HEADERS, f"{f.__name__}: body fields"
        assert call.json is not None
    else:
        sent = {QUERY_NAMES.get(p, p) for p in given}
        assert sent == documented_query - SET_BY_THE_FUNCTION.get(f.__name__, set()), f"{f.__name__}: parameters"
        assert call.json is None
    if HEADERS & given:
        assert "idempotency-key" in {p["name"] for p in op.get("parameters", []) if p["in"] == "header"}


def test_retry_safe_calls_are_reads_or_carry_an_idempotency_key() -> None:
    for f in builders():
        call = build(f)
        if call.retry_safe and call.method == "POST":
            # Reads sent as POST, and a redaction (a second one changes nothing).
            reads = {"recall", "prime", "lookup_topics", "query_document", "task_context", "task_context_text"}
            assert f.__name__ in reads | {"redact_task_event"} or call.idempotency_key, f
        if call.method in ("GET", "PUT", "DELETE"):
            assert call.retry_safe, f


def result_models() -> list[tuple[str, type[BaseModel]]]:
    named = [
        (name, cls)
        for name, cls in inspect.getmembers(models, inspect.isclass)
        if issubclass(cls, models.Result) and name in SCHEMAS
    ]
    pages: list[tuple[str, type[BaseModel]]] = [
        ("MemoryPage", models.CursorPage[models.Memory]),
        ("LinkPage", models.CursorPage[models.Link]),
        ("ConversationPage", models.CursorPage[models.Conversation]),
        ("RunPage", models.CursorPage[models.Run]),
        ("ActionPage", models.CursorPage[models.Action]),
        ("TaskPage", models.CursorPage[models.Task]),
    ]
    assert len(named) >= 50
    return named + pages


@pytest.mark.parametrize(("name", "model"), result_models(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_result_model_has_the_documented_fields(name: str, model: type[BaseModel]) -> None:
    schema = SCHEMAS[name]
    assert set(model.model_fields) == set(schema["properties"]), name
    for field, info in model.model_fields.items():  # a field the API may leave out must not be required
        if info.is_required():
            assert field in schema.get("required", []), f"{name}.{field}"

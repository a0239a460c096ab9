"""The MCP tools: each one mirrors an HTTP route, takes that route's parameters and body model,
checks the same scope and calls the same service function.

A tool's input model is built from its route function's signature (path and query parameters,
with their bounds) plus the route's body model, so the tool's schema and validation cannot drift
from the HTTP API's: a change there shows up in docs/mcp-tools.json (a test compares them).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from engram.adapters.embeddings.factory import embedder_from_env
from engram.consolidation import service as consolidation
from engram.conversations import service as conversations
from engram.documents import query as document_query
from engram.graph import service as graph
from engram.memories import service as memories
from engram.priming import service as priming
from engram.recall.service import recall
from engram.topics import service as topics
from engram_http.routes import consolidation as consolidation_routes
from engram_http.routes import conversations as conversation_routes
from engram_http.routes import documents as document_routes
from engram_http.routes import graph as graph_routes
from engram_http.routes import memories as memory_routes
from engram_http.routes import priming as priming_routes
from engram_http.routes import recall as recall_routes
from engram_http.routes import topics as topic_routes
from engram_mcp import results

Scope = Literal["read", "write"]


class InvalidArguments(Exception):
    """The arguments failed validation; `errors` are pydantic's, as the HTTP API reports them."""

    def __init__(self, errors: list[Any]) -> None:
        super().__init__("invalid arguments")
        self.errors = errors


@dataclass(frozen=True)
class Arguments:
    """Validated arguments: the route's path/query parameters and, when it has one, its body."""

    params: BaseModel
    body: Any = None

    def __getattr__(self, name: str) -> Any:  # the parameters by name: args.memory_id
        return getattr(self.params, name)


@dataclass(frozen=True)
class Tool:
    name: str
    scope: Scope
    route: Callable[..., Any]  # the HTTP route whose parameters and body the tool takes
    run: Callable[[UUID, Arguments], str]  # tenant, arguments -> the result as text
    description: str
    skip: tuple[str, ...] = ()  # route parameters that mean nothing here (resume's `format`)
    body_defaults: Mapping[str, Any] = field(default_factory=dict)  # defaults that differ from the route's

    @cached_property
    def _models(self) -> tuple[type[BaseModel], type[BaseModel] | None]:
        hints = typing.get_type_hints(self.route, include_extras=True)
        params: dict[str, Any] = {}
        body: type[BaseModel] | None = None
        for name, parameter in inspect.signature(self.route).parameters.items():
            hint = hints[name]
            if inspect.isclass(hint) and issubclass(hint, BaseModel):
                body = hint
            elif name not in self.skip:
                default = ... if parameter.default is inspect.Parameter.empty else parameter.default
                params[name] = (hint, default)
        if body is not None and self.body_defaults:
            overrides = {
                name: (
                    body.model_fields[name].annotation,
                    Field(default=value, description=body.model_fields[name].description),
                )
                for name, value in self.body_defaults.items()
            }
            body = create_model(body.__name__, __base__=body, **overrides)  # type: ignore[call-overload]
        model = create_model(f"{self.name}_params", __config__=ConfigDict(extra="forbid"), **params)
        return model, body

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        params, body = self._models
        merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
        for model in (params, body):
            if model is None:
                continue
            schema = model.model_json_schema()
            merged["properties"].update(schema.get("properties", {}))
            merged["required"] += schema.get("required", [])
            if schema.get("$defs"):
                merged.setdefault("$defs", {}).update(schema["$defs"])
        if not merged["required"]:
            del merged["required"]
        merged["additionalProperties"] = False
        return _without_titles(merged)

    def parse(self, arguments: Mapping[str, Any]) -> Arguments:
        """Validate as the route would; unknown names are refused (by the body model when there is one)."""
        params_model, body_model = self._models
        names = set(params_model.model_fields)
        errors: list[Any] = []
        params = body = None
        in_params = {k: v for k, v in arguments.items() if k in names or body_model is None}
        try:
            params = params_model.model_validate(in_params)
        except ValidationError as exc:
            errors += exc.errors()
        if body_model is not None:
            try:
                body = body_model.model_validate({k: v for k, v in arguments.items() if k not in names})
            except ValidationError as exc:
                errors += exc.errors()
        if errors or params is None:
            raise InvalidArguments(errors)
        return Arguments(params, body)


def _without_titles(schema: Any) -> Any:
    """pydantic's generated titles repeat each property's name: tokens in every agent's context."""
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: _without_titles(sub) for name, sub in value.items()}
        else:
            out[key] = _without_titles(value)
    return out


# --- the tools, in the order an agent meets them ---------------------------------------------------


def _resume(tenant: UUID, a: Arguments) -> str:
    return priming.resume(tenant, a.namespace, a.budget_chars, a.recent_hours).text or "(nothing to resume yet)"


TOOLS: tuple[Tool, ...] = (
    Tool(
        "resume",
        "read",
        priming_routes.get_resume,
        _resume,
        "A briefing to start a session with: core memories, what changed recently, the topics and the "
        "recurring triggers of a namespace (merged with `default`), within budget_chars.",
        skip=("format",),
    ),
    Tool(
        "prime",
        "read",
        priming_routes.prime,
        lambda t, a: results.primed(priming.prime(t, a.body, embedder_from_env())),
        "Before a task: the memories most relevant to it and different from each other. Describe the task "
        "in your own words.",
    ),
    Tool(
        "recall",
        "read",
        recall_routes.recall_memories,
        lambda t, a: results.recalled(recall(t, a.body, embedder_from_env())),
        "Search memories and conversation windows by meaning and keyword. Results carry ids to pass to "
        "get_memory, query_document, update_memory, forget or link_memories.",
    ),
    Tool(
        "store_memory",
        "write",
        memory_routes.create_memory,
        lambda t, a: results.stored(memories.create_memory(t, a.body)),
        "Store one memory: a fact, decision, preference or lesson worth keeping. Identical content in the "
        "namespace is not stored twice.",
    ),
    Tool(
        "get_memory",
        "read",
        memory_routes.get_memory,
        lambda t, a: results.memory(memories.get_memory(t, a.memory_id)),
        "One memory, whole, with its metadata.",
    ),
    Tool(
        "update_memory",
        "write",
        memory_routes.patch_memory,
        lambda t, a: results.updated(memories.patch_memory(t, a.memory_id, a.body)),
        "Change a memory's fields; fields left out stay as they are. The old version stays in its history.",
    ),
    Tool(
        "forget",
        "write",
        memory_routes.delete_memory,
        lambda t, a: results.forgotten(memories.delete_memory(t, a.memory_id)),
        "Move a memory to the trash: recall no longer returns it (it can be restored over the HTTP API).",
    ),
    Tool(
        "query_document",
        "read",
        document_routes.query_document,
        lambda t, a: results.queried(document_query.query_document(t, a.memory_id, a.body)),
        "Ask a question of one stored document or memory: the best matching spans (with offsets) within a "
        "budget and, when an LLM is configured, an answer citing them.",
    ),
    Tool(
        "start_conversation",
        "write",
        conversation_routes.create_conversation,
        lambda t, a: results.conversation(conversations.create_conversation(t, a.body)),
        "Start a conversation log; append its messages with append_conversation.",
    ),
    Tool(
        "append_conversation",
        "write",
        conversation_routes.append_messages,
        lambda t, a: results.appended(conversations.append_messages(t, a.conversation_id, a.body, None)),
        "Append up to 200 messages to a conversation, verbatim and in order. Pass an idempotency_key to make "
        "a retry safe.",
        skip=("idempotency_key",),  # the body's own idempotency_key does the same as the HTTP header
    ),
    Tool(
        "list_topics",
        "read",
        topic_routes.list_topics,
        lambda t, a: results.topic_tree(topics.list_topics(t, a.namespace, a.depth)),
        "The topic tree of a namespace (built by consolidation): ids, names and sizes.",
    ),
    Tool(
        "lookup_topics",
        "read",
        topic_routes.lookup_topics,
        lambda t, a: results.topic_members(topics.lookup(t, a.body)),
        "The member memories of topics, by topic id (from list_topics, resume or prime).",
    ),
    Tool(
        "link_memories",
        "write",
        graph_routes.create_link,
        lambda t, a: results.linked(graph.create_link(t, a.body)),
        "Link two memories with a typed, directed relation (supersedes, caused_by, relates_to, implements, "
        "reverts, contradicts), valid from now or a given time.",
    ),
    Tool(
        "memory_history",
        "read",
        graph_routes.history,
        lambda t, a: results.history(graph.history(t, a.memory_id)),
        "Every version of a memory, what it replaced and what replaced it.",
    ),
    Tool(
        "consolidate",
        "write",
        consolidation_routes.consolidate,
        lambda t, a: results.run_started(consolidation.consolidate_request(t, a.body)),
        "Consolidate a namespace (decay, promote, merge duplicates, flag contradictions, rebuild topics). "
        "A dry run by default: it plans and changes nothing; read the plan with consolidation_run.",
        body_defaults={"dry_run": True},
    ),
    Tool(
        "consolidation_run",
        "read",
        consolidation_routes.get_run,
        lambda t, a: results.run(consolidation.get_run_with_actions(t, a.run_id, cursor=a.cursor, limit=a.limit)),
        "A consolidation run: its status, counts per step and its actions (the plan of a dry run).",
    ),
)

BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}


def visible_to(scopes: frozenset[str]) -> list[Tool]:
    """The tools a key may call: a read-only key sees the read tools only (admin sees everything)."""
    return [tool for tool in TOOLS if tool.scope in scopes or "admin" in scopes]

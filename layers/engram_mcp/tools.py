"""The MCP tools: each one mirrors an HTTP route, takes that route's parameters and body model,
checks the same scope and calls the same service function.

A tool's input model is built from its route function's signature (path and query parameters,
with their bounds) plus the route's body model, so the tool's schema and validation cannot drift
from the HTTP API's. `make mcp-tools` writes the schemas to engram_mcp/contract.json, which
tools/list serves (a test keeps the two equal): a cold start then imports no route or service
until a tool is called, and then only that tool's.
"""

from __future__ import annotations

import importlib
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

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
    read_only: bool = False  # the key lacks the write scope: a read's side effects (recall's touch) are off

    def __getattr__(self, name: str) -> Any:  # the parameters by name: args.memory_id
        return getattr(self.params, name)


def _as_argument(hint: Any) -> Any:
    """A route's header parameter (Idempotency-Key) as a tool argument: its bounds and description
    without the header's name (the argument is `idempotency_key`); other parameters as they are."""
    from aws_lambda_powertools.event_handler.openapi.params import Header

    header = next((meta for meta in getattr(hint, "__metadata__", ()) if isinstance(meta, Header)), None)
    if header is None:
        return hint
    return Annotated[(hint.__origin__, *header.metadata, Field(description=header.description))]


def _key(a: Arguments, operation: str) -> Any:
    """The idempotency key of a write, hashed as the HTTP route hashes it: a retry over MCP and one
    over HTTP with the same key and body are the same request."""
    from engram.core.idempotency import request_key

    return request_key(getattr(a.params, "idempotency_key", None), operation, a.body)


@dataclass(frozen=True)
class Tool:
    name: str
    scope: Scope
    route: str  # "module:function" of the HTTP route whose parameters and body the tool takes
    run: Callable[[UUID, Arguments], str]  # tenant, arguments -> the result as text
    description: str
    skip: tuple[str, ...] = ()  # route parameters that mean nothing here (resume's `format`)
    body_defaults: Mapping[str, Any] = field(default_factory=dict)  # defaults that differ from the route's

    @cached_property
    def _models(self) -> tuple[type[BaseModel], type[BaseModel] | None]:
        module, _, function = self.route.partition(":")
        route = getattr(importlib.import_module(module), function)
        hints = typing.get_type_hints(route, include_extras=True)
        params: dict[str, Any] = {}
        body: type[BaseModel] | None = None
        for name, parameter in inspect.signature(route).parameters.items():
            hint = hints[name]
            if inspect.isclass(hint) and issubclass(hint, BaseModel):
                body = hint
            elif name not in self.skip:
                default = ... if parameter.default is inspect.Parameter.empty else parameter.default
                params[name] = (_as_argument(hint), default)
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
        schema_without_titles: dict[str, Any] = _without_titles(merged)
        return schema_without_titles

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
# Each run imports its service when first called (see the module's docstring).

ROUTES = "engram_http.routes"


def _resume(tenant: UUID, a: Arguments) -> str:
    from engram.priming import service

    return results.resumed(service.resume(tenant, a.namespace, a.budget_chars, a.recent_hours))


def _prime(tenant: UUID, a: Arguments) -> str:
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.priming import service

    return results.primed(service.prime(tenant, a.body, embedder_from_env()))


def _recall(tenant: UUID, a: Arguments) -> str:
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.recall.service import recall

    return results.recalled(recall(tenant, a.body, embedder_from_env(), read_only=a.read_only))


def _recall_feedback(tenant: UUID, a: Arguments) -> str:
    from engram.feedback import service

    return results.feedback_given(service.give_feedback(tenant, a.body, _key(a, "POST /v1/feedback")))


def _store_memory(tenant: UUID, a: Arguments) -> str:
    from engram.memories import service

    return results.stored(service.create_memory(tenant, a.body, _key(a, "POST /v1/memories")))


def _get_memory(tenant: UUID, a: Arguments) -> str:
    from engram.memories import service

    return results.memory(service.get_memory(tenant, a.memory_id))


def _update_memory(tenant: UUID, a: Arguments) -> str:
    from engram.memories import service

    return results.updated(service.patch_memory(tenant, a.memory_id, a.body))


def _forget(tenant: UUID, a: Arguments) -> str:
    from engram.memories import service

    return results.forgotten(service.delete_memory(tenant, a.memory_id))


def _erase_memory(tenant: UUID, a: Arguments) -> str:
    from engram.erasure import service

    return results.erased(service.erase_memory(tenant, a.memory_id, cascade=a.cascade, actor="mcp"))


def _query_document(tenant: UUID, a: Arguments) -> str:
    from engram.documents import query

    return results.queried(query.query_document(tenant, a.memory_id, a.body))


def _start_conversation(tenant: UUID, a: Arguments) -> str:
    from engram.conversations import service

    return results.conversation(service.create_conversation(tenant, a.body, _key(a, "POST /v1/conversations")))


def _append_conversation(tenant: UUID, a: Arguments) -> str:
    from engram.conversations import service

    return results.appended(service.append_messages(tenant, a.conversation_id, a.body, None))


def _start_task(tenant: UUID, a: Arguments) -> str:
    from engram.tasks import service

    return results.task(service.start_task(tenant, a.body, _key(a, "POST /v1/tasks")))


def _record_task_events(tenant: UUID, a: Arguments) -> str:
    from engram.tasks import service

    return results.appended(service.append_events(tenant, a.task_id, a.body, None))


def _redact_task_event(tenant: UUID, a: Arguments) -> str:
    from engram.erasure import service as erasure
    from engram.tasks import service

    m = erasure.redact_turn(tenant, service.get_task(tenant, a.task_id).conversation_id, a.seq, actor="mcp")
    return f"Redacted event {m.seq} ({m.role}) of task {a.task_id}: its content is gone, its place stays."


def _checkpoint_task(tenant: UUID, a: Arguments) -> str:
    from engram.tasks import service

    c = service.create_checkpoint(tenant, a.task_id, a.body, _key(a, f"POST /v1/tasks/{a.task_id}/checkpoints"))
    return f"Checkpoint {c.id} of task {c.task_id} written, covering events 1-{c.seq_to}."


def _end_task(tenant: UUID, a: Arguments) -> str:
    from engram.tasks import service

    return results.task(service.end_task(tenant, a.task_id, a.body))


def _task_context(tenant: UUID, a: Arguments) -> str:
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.tasks import service

    return service.task_context(tenant, a.task_id, a.body, embedder_from_env()).text


def _list_topics(tenant: UUID, a: Arguments) -> str:
    from engram.topics import service

    return results.topic_tree(service.list_topics(tenant, a.namespace, a.depth))


def _lookup_topics(tenant: UUID, a: Arguments) -> str:
    from engram.topics import service

    return results.topic_members(service.lookup(tenant, a.body))


def _link_memories(tenant: UUID, a: Arguments) -> str:
    from engram.graph import service

    return results.linked(service.create_link(tenant, a.body, _key(a, "POST /v1/links")))


def _memory_history(tenant: UUID, a: Arguments) -> str:
    from engram.graph import service

    return results.history(service.history(tenant, a.memory_id))


def _consolidate(tenant: UUID, a: Arguments) -> str:
    from engram.consolidation import service

    return results.run_started(service.consolidate_request(tenant, a.body, _key(a, "POST /v1/consolidate")))


def _consolidation_run(tenant: UUID, a: Arguments) -> str:
    from engram.consolidation import service

    return results.run(service.get_run_with_actions(tenant, a.run_id, cursor=a.cursor, limit=a.limit))


def _extract(tenant: UUID, a: Arguments) -> str:
    from engram.adapters.embeddings.factory import embedder_from_env
    from engram.extraction import service

    return results.extraction_run(service.extract(tenant, a.body, embedder_from_env()))


def _extraction_runs(tenant: UUID, a: Arguments) -> str:
    from engram.extraction import service

    page = service.list_runs(
        tenant, namespace=a.namespace, conversation_id=a.conversation_id, cursor=a.cursor, limit=a.limit
    )
    return results.extraction_runs(page)


def _extraction_run(tenant: UUID, a: Arguments) -> str:
    from engram.extraction import service

    return results.extraction_run(service.get_run(tenant, a.run_id))


TOOLS: tuple[Tool, ...] = (
    Tool(
        "resume",
        "read",
        f"{ROUTES}.priming:get_resume",
        _resume,
        "A briefing to start a session with: core memories, what changed recently, the topics and the "
        "recurring triggers of a namespace (merged with `default`), fitted to budget_chars; each memory with its id.",
        skip=("format",),
    ),
    Tool(
        "prime",
        "read",
        f"{ROUTES}.priming:prime",
        _prime,
        "Before a task: the memories most relevant to it and different from each other. Describe the task "
        "in your own words.",
    ),
    Tool(
        "recall",
        "read",
        f"{ROUTES}.recall:recall_memories",
        _recall,
        "Search memories and conversation windows by meaning and keyword. Results carry ids to pass to "
        "get_memory, query_document, update_memory, forget or link_memories. Critical facts come first. "
        "`trace` with the ids or phrases you expected says where each went.",
    ),
    Tool(
        "recall_feedback",
        "write",
        f"{ROUTES}.recall:give_feedback",
        _recall_feedback,
        "After a recall, say which of its results helped (useful) and which did not (not_useful), by the ids "
        "it returned, and why it missed (failure_class): later recalls rank them up or down, bounded, and "
        "the effect fades with time. Once per recall_id.",
    ),
    Tool(
        "store_memory",
        "write",
        f"{ROUTES}.memories:create_memory",
        _store_memory,
        "Store one memory: a fact, decision, preference or lesson worth keeping. Identical content in the "
        "namespace is not stored twice. critical=true for a fact never to miss (returned first in every "
        "recall and briefing); conflict_key (user.city) replaces the current memory with that key.",
    ),
    Tool("get_memory", "read", f"{ROUTES}.memories:get_memory", _get_memory, "One memory, whole, with its metadata."),
    Tool(
        "update_memory",
        "write",
        f"{ROUTES}.memories:patch_memory",
        _update_memory,
        "Change a memory's fields; fields left out stay as they are. The old version stays in its history.",
    ),
    Tool(
        "forget",
        "write",
        f"{ROUTES}.memories:delete_memory",
        _forget,
        "Move a memory to the trash: recall no longer returns it (it can be restored over the HTTP API).",
    ),
    Tool(
        "erase_memory",
        "write",
        f"{ROUTES}.erasure:erase_memory",
        _erase_memory,
        "Erase a memory for good, from every copy (history, consolidation records, topic names, exports); "
        "cannot be undone. Use when the user asks that something be forgotten for real; forget only trashes.",
    ),
    Tool(
        "query_document",
        "read",
        f"{ROUTES}.documents:query_document",
        _query_document,
        "Ask a question of one stored document or memory: the best matching spans (with offsets) within a "
        "budget and, when an LLM is configured, an answer citing them.",
    ),
    Tool(
        "start_conversation",
        "write",
        f"{ROUTES}.conversations:create_conversation",
        _start_conversation,
        "Start a conversation log; append its messages with append_conversation.",
    ),
    Tool(
        "append_conversation",
        "write",
        f"{ROUTES}.conversations:append_messages",
        _append_conversation,
        "Append up to 200 messages to a conversation, verbatim and in order. Pass an idempotency_key to make "
        "a retry safe.",
        skip=("idempotency_key",),  # the body's own idempotency_key, which the service reads, is the argument
    ),
    Tool(
        "start_task",
        "write",
        f"{ROUTES}.tasks:start_task",
        _start_task,
        "Start a task run for a long piece of work (a goal, a namespace): record its events with "
        "record_task_events, checkpoint it, and take it up again with task_context.",
    ),
    Tool(
        "record_task_events",
        "write",
        f"{ROUTES}.tasks:append_events",
        _record_task_events,
        "Append up to 200 events to a task's ledger, in order (roles user, assistant, tool, agent, system). "
        "Pass an idempotency_key to make a retry safe.",
        skip=("idempotency_key",),
    ),
    Tool(
        "redact_task_event",
        "write",
        f"{ROUTES}.tasks:redact_event",
        _redact_task_event,
        "Redact one event of a task (a secret pasted by mistake): its content is gone everywhere, its place stays.",
    ),
    Tool(
        "checkpoint_task",
        "write",
        f"{ROUTES}.tasks:create_checkpoint",
        _checkpoint_task,
        "Write a task checkpoint: where it stands, completed and pending steps, decisions, blockers, artifacts.",
    ),
    Tool("end_task", "write", f"{ROUTES}.tasks:end_task", _end_task, "End a task run: done, failed or cancelled."),
    Tool(
        "task_context",
        "read",
        f"{ROUTES}.tasks:task_context",
        _task_context,
        "What to know to take a task up again, within budget_chars: critical facts, the latest checkpoint, "
        "the events since, the memories relevant to the query and their linked memories.",
        skip=("format",),
    ),
    Tool(
        "list_topics",
        "read",
        f"{ROUTES}.topics:list_topics",
        _list_topics,
        "The topic tree of a namespace (built by consolidation): ids, names and sizes.",
    ),
    Tool(
        "lookup_topics",
        "read",
        f"{ROUTES}.topics:lookup_topics",
        _lookup_topics,
        "The member memories of topics, by topic id (from list_topics, resume or prime).",
    ),
    Tool(
        "link_memories",
        "write",
        f"{ROUTES}.graph:create_link",
        _link_memories,
        "Link two memories with a typed, directed relation (supersedes, caused_by, relates_to, implements, "
        "reverts, contradicts), valid from now or a given time.",
    ),
    Tool(
        "memory_history",
        "read",
        f"{ROUTES}.graph:history",
        _memory_history,
        "Every version of a memory, what it replaced and what replaced it.",
    ),
    Tool(
        "consolidate",
        "write",
        f"{ROUTES}.consolidation:consolidate",
        _consolidate,
        "Consolidate a namespace (decay, promote, merge duplicates, flag contradictions, rebuild topics). "
        "A dry run by default: it plans and changes nothing; read the plan with consolidation_run.",
        body_defaults={"dry_run": True},
    ),
    Tool(
        "consolidation_run",
        "read",
        f"{ROUTES}.consolidation:get_run",
        _consolidation_run,
        "A consolidation run: its status, counts per step and its actions (the plan of a dry run).",
    ),
    Tool(
        "extract",
        "write",
        f"{ROUTES}.extraction:extract",
        _extract,
        "Learn from any text (a meeting note, a tool result) or a range of a conversation's turns: the facts, "
        "preferences, decisions and dated events in it become memories (or update, invalidate or restate stored "
        "ones), each citing its evidence. dry_run answers the decisions and writes nothing. Needs an LLM.",
    ),
    Tool(
        "extraction_runs",
        "read",
        f"{ROUTES}.extraction:list_runs",
        _extraction_runs,
        "What was learned from conversations, newest first: each extraction run with its status and counts "
        "per action; filter by conversation_id or namespace. Read one with extraction_run.",
    ),
    Tool(
        "extraction_run",
        "read",
        f"{ROUTES}.extraction:get_run",
        _extraction_run,
        "One extraction run: each action (add, update, invalidate, restate) with its memory and the turns it "
        "came from, verbatim.",
    ),
)

BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}


def visible_to(scopes: frozenset[str]) -> list[Tool]:
    """The tools a key may call: a read-only key sees the read tools only (admin sees everything)."""
    return [tool for tool in TOOLS if tool.scope in scopes or "admin" in scopes]

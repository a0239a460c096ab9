"""Every route of the v1 API as a function that describes one request (a `Call`) and its result.

Written once here, sent by both clients (`Engram` and `AsyncEngram`): the method names, arguments
and docstrings the caller sees are these functions'. Optional arguments left as None are not sent,
so the server's defaults apply. Names follow the MCP tools where there is one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar
from urllib.parse import quote
from uuid import UUID

import httpx
from pydantic import TypeAdapter

from engram_client.models import (
    Action,
    ApiKeyInfo,
    AppendResult,
    BatchResult,
    Checkpoint,
    ConsolidationStep,
    Conversation,
    CursorPage,
    DeletedConversation,
    Direction,
    DocumentWritten,
    ExportJob,
    ExtractionRun,
    ExtractionRunDetail,
    Feedback,
    ImportJob,
    ImportTicket,
    IssuedApiKey,
    Kind,
    Layer,
    Link,
    LinkBatchResult,
    Memory,
    MemoryDetail,
    MemoryHistory,
    MemoryWritten,
    Message,
    MessagePage,
    NamespaceExtraction,
    PrimeResponse,
    PurgeResult,
    QueryResponse,
    RecallKind,
    RecallResponse,
    Relation,
    ResumeResponse,
    Role,
    Run,
    RunWithActions,
    Scope,
    Task,
    TaskContext,
    TopicDetail,
    TopicLookupResponse,
    TopicTree,
    Traversal,
    UploadStatus,
    UploadTicket,
    UsageReport,
)

T_co = TypeVar("T_co", covariant=True)
Ref = str | UUID  # an id as the API returned it, or a UUID


@dataclass(frozen=True)
class Call(Generic[T_co]):
    """One request and how to read its answer. `retry_safe`: sending it twice does no harm."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T_co]
    params: list[tuple[str, str]] = field(default_factory=list)
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    retry_safe: bool = False

    @property
    def idempotency_key(self) -> str | None:
        return self.headers.get("Idempotency-Key")


class Unset(Enum):
    """An argument not given (where None means "clear this field")."""

    UNSET = "UNSET"


UNSET = Unset.UNSET


# ---- what callers send in lists ----------------------------------------------------------------


class NewMemory(TypedDict):
    """One item of `store_memories`: the fields of `store_memory`."""

    content: str
    namespace: NotRequired[str]
    kind: NotRequired[Kind]
    importance: NotRequired[float]
    tags: NotRequired[list[str]]
    source: NotRequired[str | None]
    metadata: NotRequired[dict[str, Any]]
    valid_from: NotRequired[datetime | str | None]
    valid_to: NotRequired[datetime | str | None]
    critical: NotRequired[bool]
    conflict_key: NotRequired[str | None]


FailureClass = Literal[
    "vocabulary_mismatch", "aggregation_failure", "stale_ranking", "missing_content", "scope_mismatch"
]


class NewLink(TypedDict):
    """One item of `link_memories_batch`: the fields of `link_memories`."""

    from_id: str
    to_id: str
    relation: Relation
    strength: NotRequired[float]
    valid_from: NotRequired[datetime | str | None]
    valid_to: NotRequired[datetime | str | None]
    metadata: NotRequired[dict[str, Any]]


class NewMessage(TypedDict):
    """One message of `append_conversation`; `created_at` defaults to the time of the append."""

    role: Role
    content: str
    tool_call_id: NotRequired[str | None]
    tool_name: NotRequired[str | None]
    created_at: NotRequired[datetime | str | None]
    metadata: NotRequired[dict[str, Any]]


class Expand(TypedDict, total=False):
    """Recall's `expand`: each result gets the memories its links reach."""

    relations: list[Relation] | None
    depth: int
    limit: int


# ---- reading answers ---------------------------------------------------------------------------

_adapters: dict[Any, TypeAdapter[Any]] = {}


def _reader(shape: Any) -> Callable[[httpx.Response], Any]:
    adapter = _adapters.get(shape)
    if adapter is None:
        adapter = _adapters[shape] = TypeAdapter(shape)
    return lambda response: adapter.validate_json(response.content)


def _model(shape: type[T_co]) -> Callable[[httpx.Response], T_co]:
    reader: Callable[[httpx.Response], T_co] = _reader(shape)
    return reader


def _json_object(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    return body if isinstance(body, dict) else {"value": body}


def _text(response: httpx.Response) -> str:
    return response.text


def _list_of_keys(response: httpx.Response) -> list[ApiKeyInfo]:
    keys: list[ApiKeyInfo] = _reader(list[ApiKeyInfo])(response)
    return keys


# ---- building requests -------------------------------------------------------------------------


def _path(template: str, *refs: Ref) -> str:
    return template.format(*(quote(str(r), safe="") for r in refs))


def _value(value: Any) -> Any:
    """A value as JSON: datetimes in ISO 8601 (without an offset the API reads them as UTC)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, Mapping):
        return {k: _value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_value(v) for v in value]
    return value


def _keyed(idempotency_key: str | None) -> dict[str, str]:
    """The Idempotency-Key header: the caller's key, or a new one for this call. Its retries resend
    the same Call, so the same key: the server answers them with the first answer, writing nothing."""
    return {"Idempotency-Key": idempotency_key or f"sdk-{uuid.uuid4()}"}


def _body(**fields: Any) -> dict[str, Any]:
    """The given fields as a JSON object: None (and UNSET) left out, so the server's defaults apply."""
    return {k: _value(v) for k, v in fields.items() if v is not None and v is not UNSET}


def _query(**params: Any) -> list[tuple[str, str]]:
    """Query parameters: None left out, lists repeated, booleans as true/false."""
    out: list[tuple[str, str]] = []
    for name, value in params.items():
        for item in value if isinstance(value, list | tuple) else [value]:
            if item is None:
                continue
            if isinstance(item, bool):
                out.append((name, "true" if item else "false"))
            else:
                out.append((name, str(_value(item))))
    return out


# ---- memories ----------------------------------------------------------------------------------


def store_memory(
    content: str,
    *,
    namespace: str | None = None,
    kind: Kind | None = None,
    importance: float | None = None,
    tags: Sequence[str] | None = None,
    source: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    valid_from: datetime | str | None = None,
    valid_to: datetime | str | None = None,
    critical: bool | None = None,
    conflict_key: str | None = None,
    idempotency_key: str | None = None,
) -> Call[MemoryWritten]:
    """Store one memory (<= 16,000 characters; larger text: `store_document`). The same content in the
    same namespace is not stored twice: the answer says `deduplicated` and returns the existing one.
    `critical=True`: recall, resume and prime return it first, whatever the query. `conflict_key`
    ("user.city"): it supersedes the namespace's current memory with that key (`superseded` names it).
    Sent with an Idempotency-Key (a new one unless given): a retry after a lost answer gets the first
    answer and counts no repetition."""
    body = _body(
        content=content,
        namespace=namespace,
        kind=kind,
        importance=importance,
        tags=tags,
        source=source,
        metadata=metadata,
        valid_from=valid_from,
        valid_to=valid_to,
        critical=critical,
        conflict_key=conflict_key,
    )
    return Call(
        "POST", "/v1/memories", _model(MemoryWritten), json=body, headers=_keyed(idempotency_key), retry_safe=True
    )


def store_memories(items: Sequence[NewMemory], *, idempotency_key: str | None = None) -> Call[BatchResult]:
    """Store up to 100 memories in one transaction; each item is created, deduplicated or an error."""
    body = {"items": [_value(i) for i in items]}
    return Call(
        "POST", "/v1/memories/batch", _model(BatchResult), json=body, headers=_keyed(idempotency_key), retry_safe=True
    )


def get_memory(memory_id: Ref) -> Call[MemoryDetail]:
    """One memory by id (404 when missing or not this tenant's); a derived one with its evidence turns."""
    return Call("GET", _path("/v1/memories/{}", memory_id), _model(MemoryDetail), retry_safe=True)


def update_memory(
    memory_id: Ref,
    *,
    content: str | Unset = UNSET,
    kind: Kind | Unset = UNSET,
    importance: float | Unset = UNSET,
    tags: Sequence[str] | Unset = UNSET,
    source: str | Unset | None = UNSET,
    metadata: Mapping[str, Any] | Unset = UNSET,
    valid_from: datetime | str | Unset | None = UNSET,
    valid_to: datetime | str | Unset | None = UNSET,
    critical: bool | Unset = UNSET,
    conflict_key: str | Unset | None = UNSET,
) -> Call[Memory]:
    """Change the given fields (new content is re-chunked and re-embedded; `version` grows). `source`,
    `valid_from`, `valid_to` and `conflict_key` may be cleared with None; a new `conflict_key` supersedes
    the namespace's current memory with it."""
    given = {
        "content": content,
        "kind": kind,
        "importance": importance,
        "tags": tags,
        "source": source,
        "metadata": metadata,
        "valid_from": valid_from,
        "valid_to": valid_to,
        "critical": critical,
        "conflict_key": conflict_key,
    }
    body = {k: _value(v) for k, v in given.items() if v is not UNSET}
    return Call("PATCH", _path("/v1/memories/{}", memory_id), _model(Memory), json=body)


def forget(memory_id: Ref) -> Call[Memory]:
    """Move a memory to the trash (its links end; `restore_memory` brings both back)."""
    return Call("DELETE", _path("/v1/memories/{}", memory_id), _model(Memory), retry_safe=True)


def restore_memory(memory_id: Ref) -> Call[Memory]:
    """Bring a memory back from the trash (409 when an identical active memory exists meanwhile)."""
    return Call("POST", _path("/v1/memories/{}/restore", memory_id), _model(Memory))


def list_memories(
    *,
    namespace: str | None = None,
    tags: Sequence[str] | None = None,
    kind: Kind | None = None,
    layer: Layer | None = None,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[CursorPage[Memory]]:
    """One page of memories, newest first (`iter_memories` walks every page). All `tags` must match."""
    params = _query(
        namespace=namespace,
        tag=list(tags or []),
        kind=kind,
        layer=layer,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )
    return Call("GET", "/v1/memories", _model(CursorPage[Memory]), params=params, retry_safe=True)


def list_trash(
    *, namespace: str | None = None, limit: int | None = None, cursor: str | None = None
) -> Call[CursorPage[Memory]]:
    """One page of the trash, most recently deleted first."""
    params = _query(namespace=namespace, limit=limit, cursor=cursor)
    return Call("GET", "/v1/trash", _model(CursorPage[Memory]), params=params, retry_safe=True)


def memory_history(memory_id: Ref) -> Call[MemoryHistory]:
    """Every version of a memory and its supersession chain both ways, oldest first."""
    return Call("GET", _path("/v1/memories/{}/history", memory_id), _model(MemoryHistory), retry_safe=True)


# ---- recall ------------------------------------------------------------------------------------


def recall(
    query: str,
    *,
    namespace: str | None = None,
    namespaces: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    kinds: Sequence[RecallKind] | None = None,
    conversation_id: Ref | None = None,
    layers: Sequence[Layer] | None = None,
    topics: Sequence[str] | None = None,
    source: str | None = None,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    limit: int | None = None,
    budget_chars: int | None = None,
    mode: Literal["hybrid", "vector", "keyword"] | None = None,
    diversify: bool | None = None,
    explain: bool | None = None,
    touch: bool | None = None,
    include_expired: bool | None = None,
    min_score: float | None = None,
    as_of: datetime | str | None = None,
    expand: Expand | None = None,
    rerank: bool | None = None,
    rewrite_query: bool | None = None,
    format: Literal["full", "compact"] | None = None,
    critical: bool | None = None,
    trace: Sequence[str] | None = None,
) -> Call[RecallResponse]:
    """Hybrid search (vector + keyword + recency + importance). `budget_chars` is a hard limit on the
    text returned; `as_of` recalls what was valid at that instant; `format="compact"` returns each
    result's text once, the shape to put into a model's context. `rerank` re-scores the best candidates with a
    Bedrock rerank model, `rewrite_query` searches LLM rewrites of the question too (one metered call).
    Critical facts come first (`critical=False`: ranked results only). `trace`: memory ids or phrases
    you expected; the answer's `trace` says where each went. `degraded` says what was missing;
    `recall_id` names the recall in `feedback`."""
    body = _body(
        query=query,
        namespace=namespace,
        namespaces=namespaces,
        tags=tags,
        kinds=kinds,
        conversation_id=conversation_id,
        layers=layers,
        topics=topics,
        source=source,
        since=since,
        until=until,
        limit=limit,
        budget_chars=budget_chars,
        mode=mode,
        diversify=diversify,
        explain=explain,
        touch=touch,
        include_expired=include_expired,
        min_score=min_score,
        as_of=as_of,
        expand=expand,
        rerank=rerank,
        rewrite_query=rewrite_query,
        format=format,
        critical=critical,
        trace={"expected": list(trace)} if trace is not None else None,
    )
    # A search writes nothing but access counters: safe to send again.
    return Call("POST", "/v1/recall", _model(RecallResponse), json=body, retry_safe=True)


def feedback(
    recall_id: str,
    *,
    useful: Sequence[Ref] = (),
    not_useful: Sequence[Ref] = (),
    failure_class: FailureClass | None = None,
    note: str | None = None,
    idempotency_key: str | None = None,
) -> Call[Feedback]:
    """Say which results of a recall helped (`useful`) and which did not, by the ids it returned (memory,
    chunk or message ids), and why it missed: later recalls rank them up or down, bounded, fading with
    time. Once per recall."""
    body = _body(
        recall_id=recall_id,
        useful=[str(_value(i)) for i in useful],
        not_useful=[str(_value(i)) for i in not_useful],
        failure_class=failure_class,
        note=note,
    )
    return Call("POST", "/v1/feedback", _model(Feedback), json=body, headers=_keyed(idempotency_key), retry_safe=True)


# ---- tasks ------------------------------------------------------------------------------------


def start_task(
    goal: str,
    *,
    namespace: str | None = None,
    agent_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> Call[Task]:
    """Start a task run; its events go to a ledger (a conversation, `conversation_id`)."""
    body = _body(goal=goal, namespace=namespace, agent_id=agent_id, metadata=metadata)
    return Call("POST", "/v1/tasks", _model(Task), json=body, headers=_keyed(idempotency_key), retry_safe=True)


def get_task(task_id: Ref) -> Call[Task]:
    return Call("GET", _path("/v1/tasks/{}", task_id), _model(Task), retry_safe=True)


def list_tasks(
    *, namespace: str | None = None, status: str | None = None, limit: int | None = None, cursor: str | None = None
) -> Call[CursorPage[Task]]:
    """One page of task runs, newest first (`iter_tasks` walks every page)."""
    params = _query(namespace=namespace, status=status, limit=limit, cursor=cursor)
    return Call("GET", "/v1/tasks", _model(CursorPage[Task]), params=params, retry_safe=True)


def record_task_events(
    task_id: Ref, messages: Sequence[NewMessage], *, idempotency_key: str | None = None
) -> Call[AppendResult]:
    """Append up to 200 events, messages of the task's ledger (roles user, assistant, tool, agent, system),
    in order, all or none; a retry with the same key (made when none is given) appends nothing twice."""
    body = {"messages": [_value(m) for m in messages]}
    path = _path("/v1/tasks/{}/events", task_id)
    return Call("POST", path, _model(AppendResult), json=body, headers=_keyed(idempotency_key), retry_safe=True)


def list_task_events(
    task_id: Ref, *, from_seq: int | None = None, to_seq: int | None = None, limit: int | None = None
) -> Call[MessagePage]:
    params = _query(from_seq=from_seq, to_seq=to_seq, limit=limit)
    return Call("GET", _path("/v1/tasks/{}/events", task_id), _model(MessagePage), params=params, retry_safe=True)


def redact_task_event(task_id: Ref, seq: int) -> Call[Message]:
    """The event's content is gone from every copy; its place in the ledger stays."""
    path = f"{_path('/v1/tasks/{}/events', task_id)}/{int(seq)}/redact"
    return Call("POST", path, _model(Message), retry_safe=True)


def checkpoint_task(
    task_id: Ref,
    summary: str,
    *,
    completed: Sequence[str] | None = None,
    pending: Sequence[str] | None = None,
    decisions: Sequence[str] | None = None,
    blockers: Sequence[str] | None = None,
    artifacts: Sequence[Mapping[str, Any]] | None = None,
    seq_to: int | None = None,
    idempotency_key: str | None = None,
) -> Call[Checkpoint]:
    """Where the task stands, covering its events up to `seq_to` (default: all so far)."""
    body = _body(
        summary=summary,
        completed=completed,
        pending=pending,
        decisions=decisions,
        blockers=blockers,
        artifacts=artifacts,
        seq_to=seq_to,
    )
    path = _path("/v1/tasks/{}/checkpoints", task_id)
    return Call("POST", path, _model(Checkpoint), json=body, headers=_keyed(idempotency_key), retry_safe=True)


def list_checkpoints(task_id: Ref, *, limit: int | None = None) -> Call[list[Checkpoint]]:
    params = _query(limit=limit)
    path = _path("/v1/tasks/{}/checkpoints", task_id)
    return Call("GET", path, _model(list[Checkpoint]), params=params, retry_safe=True)


def end_task(task_id: Ref, *, status: str | None = None, outcome: str | None = None) -> Call[Task]:
    """End the run (`done`, `failed` or `cancelled`); its ledger takes no more events."""
    return Call("POST", _path("/v1/tasks/{}/end", task_id), _model(Task), json=_body(status=status, outcome=outcome))


def task_context(
    task_id: Ref,
    *,
    query: str | None = None,
    budget_chars: int | None = None,
    shares: Mapping[str, float] | None = None,
) -> Call[TaskContext]:
    """Critical facts, the latest checkpoint, the events since, the relevant memories and their linked ones,
    within `budget_chars` split in `shares` (checkpoint, events, memories, neighbours); `.text` to paste."""
    body = _body(query=query, budget_chars=budget_chars, shares=shares)
    return Call("POST", _path("/v1/tasks/{}/context", task_id), _model(TaskContext), json=body, retry_safe=True)


def task_context_text(
    task_id: Ref,
    *,
    query: str | None = None,
    budget_chars: int | None = None,
    shares: Mapping[str, float] | None = None,
) -> Call[str]:
    """The task context alone, as text to paste into a prompt."""
    body = _body(query=query, budget_chars=budget_chars, shares=shares)
    path = _path("/v1/tasks/{}/context", task_id)
    return Call("POST", path, _text, json=body, params=_query(format="text"), retry_safe=True)


# ---- graph -------------------------------------------------------------------------------------


def link_memories(
    from_id: Ref,
    to_id: Ref,
    relation: Relation,
    *,
    strength: float | None = None,
    valid_from: datetime | str | None = None,
    valid_to: datetime | str | None = None,
    metadata: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> Call[Link]:
    """A typed, directed link ("B supersedes A": from B to A); 409 when the same link already holds."""
    body = _body(
        from_id=from_id,
        to_id=to_id,
        relation=relation,
        strength=strength,
        valid_from=valid_from,
        valid_to=valid_to,
        metadata=metadata,
    )
    return Call("POST", "/v1/links", _model(Link), json=body, headers=_keyed(idempotency_key), retry_safe=True)


def link_memories_batch(items: Sequence[NewLink], *, idempotency_key: str | None = None) -> Call[LinkBatchResult]:
    """Up to 100 links in one transaction, each created or an error on its own."""
    body = {"items": [_value(i) for i in items]}
    return Call(
        "POST", "/v1/links/batch", _model(LinkBatchResult), json=body, headers=_keyed(idempotency_key), retry_safe=True
    )


def list_links(
    *,
    memory_id: Ref | None = None,
    relations: Sequence[Relation] | None = None,
    direction: Direction | None = None,
    include_ended: bool | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[CursorPage[Link]]:
    """One page of links, newest first (`iter_links` walks every page)."""
    params = _query(
        memory_id=memory_id,
        relation=list(relations or []),
        direction=direction,
        include_ended=include_ended,
        limit=limit,
        cursor=cursor,
    )
    return Call("GET", "/v1/links", _model(CursorPage[Link]), params=params, retry_safe=True)


def unlink(link_id: Ref) -> Call[Link]:
    """End a link now; it stays as history (`list_links(include_ended=True)`)."""
    return Call("DELETE", _path("/v1/links/{}", link_id), _model(Link), retry_safe=True)


def traverse(
    memory_id: Ref,
    *,
    depth: int | None = None,
    relations: Sequence[Relation] | None = None,
    direction: Direction | None = None,
    as_of: datetime | str | None = None,
    limit: int | None = None,
) -> Call[Traversal]:
    """The memories reachable from one through its links, breadth first, each once at its smallest depth."""
    params = _query(depth=depth, relation=list(relations or []), direction=direction, as_of=as_of, limit=limit)
    return Call("GET", _path("/v1/memories/{}/links", memory_id), _model(Traversal), params=params, retry_safe=True)


# ---- conversations -----------------------------------------------------------------------------


def create_conversation(
    *,
    title: str | None = None,
    namespace: str | None = None,
    agent_id: str | None = None,
    tags: Sequence[str] | None = None,
    metadata: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> Call[Conversation]:
    """A new conversation to append messages to."""
    body = _body(title=title, namespace=namespace, agent_id=agent_id, tags=tags, metadata=metadata)
    return Call(
        "POST", "/v1/conversations", _model(Conversation), json=body, headers=_keyed(idempotency_key), retry_safe=True
    )


def get_conversation(conversation_id: Ref) -> Call[Conversation]:
    """One conversation (its message count and last message time)."""
    return Call("GET", _path("/v1/conversations/{}", conversation_id), _model(Conversation), retry_safe=True)


def list_conversations(
    *,
    namespace: str | None = None,
    tags: Sequence[str] | None = None,
    agent_id: str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[CursorPage[Conversation]]:
    """One page of conversations (`iter_conversations` walks every page)."""
    params = _query(namespace=namespace, tag=list(tags or []), agent_id=agent_id, limit=limit, cursor=cursor)
    return Call("GET", "/v1/conversations", _model(CursorPage[Conversation]), params=params, retry_safe=True)


def delete_conversation(conversation_id: Ref) -> Call[DeletedConversation]:
    """Delete a conversation with its messages and their chunks."""
    path = _path("/v1/conversations/{}", conversation_id)
    return Call("DELETE", path, _model(DeletedConversation), retry_safe=True)


def append_conversation(
    conversation_id: Ref, messages: Sequence[NewMessage], *, idempotency_key: str | None = None
) -> Call[AppendResult]:
    """Append up to 200 messages atomically, verbatim, numbered in order. An Idempotency-Key is made
    when none is given, so a retry after a lost answer returns the first result (`replayed`) and
    appends nothing twice."""
    path = _path("/v1/conversations/{}/messages", conversation_id)
    body = {"messages": [_value(m) for m in messages]}
    return Call("POST", path, _model(AppendResult), json=body, headers=_keyed(idempotency_key), retry_safe=True)


def list_messages(
    conversation_id: Ref,
    *,
    from_seq: int | None = None,
    to_seq: int | None = None,
    limit: int | None = None,
) -> Call[MessagePage]:
    """Messages by sequence number, `from_seq` to `to_seq` inclusive (`iter_messages` walks them all)."""
    params = _query(from_seq=from_seq, to_seq=to_seq, limit=limit)
    path = _path("/v1/conversations/{}/messages", conversation_id)
    return Call("GET", path, _model(MessagePage), params=params, retry_safe=True)


# ---- documents ---------------------------------------------------------------------------------


def store_document(
    content: str,
    *,
    content_type: str | None = None,
    namespace: str | None = None,
    kind: Kind | None = None,
    importance: float | None = None,
    tags: Sequence[str] | None = None,
    source: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    chunking: Literal["document", "focused"] | None = None,
    idempotency_key: str | None = None,
) -> Call[DocumentWritten]:
    """A document sent inline (up to 5 MiB; larger: `upload_document`), stored in tiers by size."""
    body = _body(
        content=content,
        content_type=content_type,
        namespace=namespace,
        kind=kind,
        importance=importance,
        tags=tags,
        source=source,
        metadata=metadata,
        chunking=chunking,
    )
    return Call(
        "POST", "/v1/documents", _model(DocumentWritten), json=body, headers=_keyed(idempotency_key), retry_safe=True
    )


def create_upload(
    size_bytes: int,
    sha256: str,
    *,
    content_type: str | None = None,
    namespace: str | None = None,
    kind: Kind | None = None,
    importance: float | None = None,
    tags: Sequence[str] | None = None,
    source: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    chunking: Literal["document", "focused"] | None = None,
    idempotency_key: str | None = None,
) -> Call[UploadTicket]:
    """A presigned PUT for a document of up to 50 MiB (`upload_document` does the whole exchange)."""
    body = _body(
        size_bytes=size_bytes,
        sha256=sha256,
        content_type=content_type,
        namespace=namespace,
        kind=kind,
        importance=importance,
        tags=tags,
        source=source,
        metadata=metadata,
        chunking=chunking,
    )
    path = "/v1/documents/uploads"
    return Call("POST", path, _model(UploadTicket), json=body, headers=_keyed(idempotency_key), retry_safe=True)


def get_upload(upload_id: Ref) -> Call[UploadStatus]:
    """An upload's status: pending, ready (with `memory_id`) or failed (with `reason`)."""
    return Call("GET", _path("/v1/documents/uploads/{}", upload_id), _model(UploadStatus), retry_safe=True)


def query_document(
    memory_id: Ref,
    question: str,
    *,
    regex: str | None = None,
    substrings: Sequence[str] | None = None,
    case_sensitive: bool | None = None,
    window_chars: int | None = None,
    token_budget: int | None = None,
    max_spans: int | None = None,
    answer: bool | None = None,
) -> Call[QueryResponse]:
    """Ask a (large) document a question: the ranked spans within a token budget and, when the server
    has an LLM, an answer citing them. `regex` or `substrings` keep only spans that match."""
    filter_ = _body(regex=regex, substrings=substrings, case_sensitive=case_sensitive) or None
    body = _body(
        question=question,
        filter=filter_,
        window_chars=window_chars,
        token_budget=token_budget,
        max_spans=max_spans,
        answer=answer,
    )
    path = _path("/v1/memories/{}/query", memory_id)
    return Call("POST", path, _model(QueryResponse), json=body, retry_safe=True)  # reads only


# ---- topics, resume, prime ---------------------------------------------------------------------


def list_topics(*, namespace: str | None = None, depth: int | None = None) -> Call[TopicTree]:
    """The named topic tree of a namespace (rebuilt by consolidation)."""
    params = _query(namespace=namespace, depth=depth)
    return Call("GET", "/v1/topics", _model(TopicTree), params=params, retry_safe=True)


def lookup_topics(
    ids: Sequence[str],
    *,
    limit: int | None = None,
    offset: int | None = None,
    order: Literal["importance", "newest"] | None = None,
    summary_chars: int | None = None,
) -> Call[TopicLookupResponse]:
    """Topics' names and a page of their member memories each."""
    body = _body(ids=ids, limit=limit, offset=offset, order=order, summary_chars=summary_chars)
    return Call("POST", "/v1/topics/lookup", _model(TopicLookupResponse), json=body, retry_safe=True)


def get_topic(topic_id: str) -> Call[TopicDetail]:
    """One topic: its path, children and first members."""
    return Call("GET", _path("/v1/topics/{}", topic_id), _model(TopicDetail), retry_safe=True)


def resume(
    *, namespace: str | None = None, budget_chars: int | None = None, recent_hours: int | None = None
) -> Call[ResumeResponse]:
    """The session-start briefing: core memories, recent changes, topics and triggers, within a budget."""
    params = _query(namespace=namespace, budget_chars=budget_chars, recent_hours=recent_hours)
    return Call("GET", "/v1/resume", _model(ResumeResponse), params=params, retry_safe=True)


def resume_text(
    *, namespace: str | None = None, budget_chars: int | None = None, recent_hours: int | None = None
) -> Call[str]:
    """The briefing alone, as text to paste into a prompt."""
    params = _query(namespace=namespace, budget_chars=budget_chars, recent_hours=recent_hours, format="text")
    return Call("GET", "/v1/resume", _text, params=params, retry_safe=True)


def prime(
    task: str, *, namespace: str | None = None, budget_chars: int | None = None, limit: int | None = None
) -> Call[PrimeResponse]:
    """Memories relevant to a task and different from each other, within a budget."""
    body = _body(task=task, namespace=namespace, budget_chars=budget_chars, limit=limit)
    return Call("POST", "/v1/prime", _model(PrimeResponse), json=body, retry_safe=True)


# ---- consolidation -----------------------------------------------------------------------------


def consolidate(
    *,
    namespace: str | None = None,
    dry_run: bool | None = None,
    steps: Sequence[ConsolidationStep] | None = None,
    idempotency_key: str | None = None,
) -> Call[Run]:
    """Queue a consolidation run of a namespace (`dry_run`: the plan only). 409 while one is open."""
    body = _body(namespace=namespace, dry_run=dry_run, steps=steps)
    return Call("POST", "/v1/consolidate", _model(Run), json=body, headers=_keyed(idempotency_key), retry_safe=True)


def list_consolidation_runs(
    *, namespace: str | None = None, limit: int | None = None, cursor: str | None = None
) -> Call[CursorPage[Run]]:
    """One page of runs, newest first."""
    params = _query(namespace=namespace, limit=limit, cursor=cursor)
    return Call("GET", "/v1/consolidation-runs", _model(CursorPage[Run]), params=params, retry_safe=True)


def get_consolidation_run(run_id: Ref, *, limit: int | None = None, cursor: str | None = None) -> Call[RunWithActions]:
    """One run with its status, counts per step, LLM use, and a page of its actions."""
    params = _query(limit=limit, cursor=cursor)
    path = _path("/v1/consolidation-runs/{}", run_id)
    return Call("GET", path, _model(RunWithActions), params=params, retry_safe=True)


def list_consolidation_actions(
    run_id: Ref, *, limit: int | None = None, cursor: str | None = None
) -> Call[CursorPage[Action]]:
    """One page of a run's actions (`iter_consolidation_actions` walks them all: a dry run's plan)."""
    read_run = _model(RunWithActions)
    params = _query(limit=limit, cursor=cursor)
    path = _path("/v1/consolidation-runs/{}", run_id)
    return Call("GET", path, lambda response: read_run(response).actions, params=params, retry_safe=True)


def undo_consolidation(run_id: Ref) -> Call[Run]:
    """Put back everything a run changed (409 naming the memories changed since)."""
    return Call("POST", _path("/v1/consolidation-runs/{}/undo", run_id), _model(Run))


# ---- extraction (memories derived from conversations and text) ---------------------------------


def extract(
    *,
    text: str | None = None,
    conversation_id: Ref | None = None,
    seq_from: int | None = None,
    seq_to: int | None = None,
    namespace: str | None = None,
    dry_run: bool | None = None,
) -> Call[ExtractionRunDetail]:
    """Derive memories from any text or a range of a conversation's turns now (one model call; 503
    without an LLM); `dry_run` answers the decisions and writes nothing. Not retried: a retry would
    ask the model again."""
    body = _body(
        text=text,
        conversation_id=conversation_id,
        seq_from=seq_from,
        seq_to=seq_to,
        namespace=namespace,
        dry_run=dry_run,
    )
    return Call("POST", "/v1/extract", _model(ExtractionRunDetail), json=body)


def list_extraction_runs(
    *,
    namespace: str | None = None,
    conversation_id: Ref | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[CursorPage[ExtractionRun]]:
    """One page of extraction runs, newest first (of a namespace or a conversation)."""
    params = _query(namespace=namespace, conversation_id=conversation_id, limit=limit, cursor=cursor)
    return Call("GET", "/v1/extraction/runs", _model(CursorPage[ExtractionRun]), params=params, retry_safe=True)


def get_extraction_run(run_id: Ref) -> Call[ExtractionRunDetail]:
    """One extraction run: its actions, each with the turns it came from, verbatim."""
    return Call("GET", _path("/v1/extraction/runs/{}", run_id), _model(ExtractionRunDetail), retry_safe=True)


def undo_extraction(run_id: Ref) -> Call[ExtractionRunDetail]:
    """Reverse a done run: its memories to the trash, updates and invalidations lifted, restatements
    uncounted, the summary as it was (409 when it is not a done, applied run)."""
    return Call("POST", _path("/v1/extraction/runs/{}/undo", run_id), _model(ExtractionRunDetail))


def get_extraction_settings(namespace: str) -> Call[NamespaceExtraction]:
    """What a namespace extracts (the defaults when nothing is set)."""
    params = _query(namespace=namespace)
    return Call("GET", "/v1/extraction/settings", _model(NamespaceExtraction), params=params, retry_safe=True)


def put_extraction_settings(
    namespace: str,
    *,
    enabled: bool | None = None,
    kinds: Sequence[Literal["fact", "preference", "decision", "event"]] | None = None,
    instructions: str | None = None,
) -> Call[NamespaceExtraction]:
    """Turn extraction on or off for a namespace, choose its kinds, add instructions (admin scope). A
    whole replacement: what is left out takes its default."""
    body = _body(namespace=namespace, enabled=enabled, kinds=kinds, instructions=instructions)
    return Call("PUT", "/v1/extraction/settings", _model(NamespaceExtraction), json=body, retry_safe=True)


# ---- export and import -------------------------------------------------------------------------


def create_export(*, namespace: str | None = None, idempotency_key: str | None = None) -> Call[ExportJob]:
    """Queue an export of this tenant's data (or one namespace) as a JSONL file (`export_to_file`
    waits and downloads it)."""
    body = _body(namespace=namespace)
    return Call("POST", "/v1/exports", _model(ExportJob), json=body, headers=_keyed(idempotency_key), retry_safe=True)


def get_export(export_id: Ref) -> Call[ExportJob]:
    """An export's status and counts; once ready, a presigned `download_url` (fresh on each call)."""
    return Call("GET", _path("/v1/exports/{}", export_id), _model(ExportJob), retry_safe=True)


def create_import(
    size_bytes: int,
    sha256: str | None = None,
    *,
    namespace: str | None = None,
    id_policy: Literal["keep", "map"] | None = None,
    idempotency_key: str | None = None,
) -> Call[ImportTicket]:
    """A presigned PUT for an export file; its arrival imports it, all or nothing (`import_file` does
    the whole exchange)."""
    body = _body(size_bytes=size_bytes, sha256=sha256, namespace=namespace, id_policy=id_policy)
    return Call(
        "POST", "/v1/imports", _model(ImportTicket), json=body, headers=_keyed(idempotency_key), retry_safe=True
    )


def get_import(import_id: Ref) -> Call[ImportJob]:
    """An import's status and report: imported, deduplicated, and every refused line with its reason."""
    return Call("GET", _path("/v1/imports/{}", import_id), _model(ImportJob), retry_safe=True)


# ---- admin -------------------------------------------------------------------------------------


def health() -> Call[dict[str, Any]]:
    """Liveness and database reachability (no key needed)."""
    return Call("GET", "/v1/health", _json_object, retry_safe=True)


def stats() -> Call[dict[str, Any]]:
    """Memory, chunk and pending-embedding counts by namespace."""
    return Call("GET", "/v1/stats", _json_object, retry_safe=True)


def usage(*, since: datetime | str | None = None) -> Call[UsageReport]:
    """LLM calls and tokens by UTC day, component and model (admin scope; default the last 30 days)."""
    return Call("GET", "/v1/usage", _model(UsageReport), params=_query(since=since), retry_safe=True)


def create_key(scopes: Sequence[Scope], *, name: str | None = None) -> Call[IssuedApiKey]:
    """Issue a key for this tenant (admin scope); `api_key` is shown only in this answer."""
    return Call("POST", "/v1/keys", _model(IssuedApiKey), json=_body(scopes=scopes, name=name))


def list_keys() -> Call[list[ApiKeyInfo]]:
    """This tenant's keys, without secrets (admin scope)."""
    return Call("GET", "/v1/keys", _list_of_keys, retry_safe=True)


def revoke_key(key_id: Ref) -> Call[dict[str, Any]]:
    """Revoke a key (admin scope)."""
    return Call("DELETE", _path("/v1/keys/{}", key_id), _json_object, retry_safe=True)


def purge_namespace(namespace: str) -> Call[PurgeResult]:
    """Hard-delete everything in a namespace (admin scope). There is no undo."""
    return Call("POST", _path("/v1/namespaces/{}/purge", namespace), _model(PurgeResult))

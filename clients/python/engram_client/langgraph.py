"""Engram as LangGraph's long-term memory: `EngramStore`, a `BaseStore`.

    from engram_client.langgraph import EngramStore
    agent = create_react_agent(model, tools, store=EngramStore())   # ENGRAM_API_URL, ENGRAM_API_KEY

Install with `pip install 'engram-client[langgraph]'`. Each item is one memory: LangGraph's namespace
tuple is the memory's Engram namespace (labels joined by "/", characters Engram does not take in a
namespace written as _XX), the key is a tag (`lgkey:` and a hash of the key), the value is kept whole
in the memory's metadata and its text (the `index` fields, else `value["content"]` when it is text,
else the value as JSON) is what recall searches. `search` with a `query` is Engram's hybrid recall;
without one it lists newest first. Memories stored by other means (the API, MCP, another SDK) in a
namespace are items too, keyed by their memory id, with `{"content": ...}` as the value.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        validate_op_namespace,
    )
except ImportError as missing:  # pragma: no cover - the message is the point
    raise ImportError("engram_client.langgraph needs LangGraph: pip install 'engram-client[langgraph]'") from missing

from engram_client import endpoints
from engram_client.client import AsyncEngram, Engram
from engram_client.errors import NotFound
from engram_client.models import CursorPage, Memory, RecallHit, RecallResponse
from engram_client.plans import Plan, arun, run

TAG = "langgraph"  # every item this store writes carries it
KEY_TAG = "lgkey:"
RECALL_NAMESPACES = 50  # POST /v1/recall takes at most 50 namespaces at once
RECALL_LIMIT = 100  # and returns at most 100 results
LIST_PAGE = 100
_KEPT = re.compile(r"[A-Za-z0-9:-]")
_ESCAPED = re.compile(r"_([0-9A-F]{2})")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


# ---- names: LangGraph's namespaces and keys as Engram's namespaces and tags ---------------------


def engram_namespace(namespace: tuple[str, ...]) -> str:
    """("memories", "ada@example.com") -> "memories/ada_40example_2Ecom"; InvalidNamespaceError when
    Engram cannot hold it (over 128 characters, or not starting with a letter or digit)."""
    labels = [
        "".join(c if _KEPT.fullmatch(c) else "".join(f"_{b:02X}" for b in c.encode()) for c in label)
        for label in namespace
    ]
    joined = "/".join(labels)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}", joined):
        raise InvalidNamespaceError(
            f"namespace {namespace!r} is {joined!r} in Engram, which takes 1-128 characters starting with a letter"
            " or digit"
        )
    return joined


def langgraph_namespace(namespace: str) -> tuple[str, ...]:
    """The inverse of `engram_namespace` ("default" -> ("default",))."""
    return tuple(
        _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), label).encode("latin-1").decode("utf-8", "replace")
        for label in namespace.split("/")
    )


def key_tag(key: str) -> str:
    """The tag that finds a key: a hash, as keys may be long or hold characters tags do not take."""
    return KEY_TAG + hashlib.sha256(key.encode()).hexdigest()[:40]


def _text(value: dict[str, Any], fields: Sequence[str] | None) -> str:
    """What recall searches: the `index` fields, else value["content"] when it is text, else the JSON."""
    if fields:
        parts = [_field(value, f) for f in fields]
        return "\n".join(p if isinstance(p, str) else json.dumps(p, ensure_ascii=False) for p in parts if p is not None)
    content = value.get("content")
    return content if isinstance(content, str) and content else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _field(value: Any, path: str) -> Any:
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def matches(value: Any, wanted: Any) -> bool:
    """LangGraph's filter: nested equality, lists element by element, and $eq $ne $gt $gte $lt $lte."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_compare(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, dict) and all(matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(matches(v, w) for v, w in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if value is None:
        return False
    ordered = {"$gt": float.__gt__, "$gte": float.__ge__, "$lt": float.__lt__, "$lte": float.__le__}
    if op not in ordered:
        raise ValueError(f"unsupported filter operator {op}")
    return bool(ordered[op](float(value), float(operand)))


def _namespace_matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    sample = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p in ("*", n) for n, p in zip(sample, path, strict=True))


# ---- items ---------------------------------------------------------------------------------------


def _item_parts(memory: Memory) -> tuple[dict[str, Any], str]:
    own = memory.metadata.get(TAG)
    if isinstance(own, dict) and isinstance(own.get("value"), dict) and isinstance(own.get("key"), str):
        return own["value"], own["key"]
    return {"content": memory.content}, memory.id


def to_item(memory: Memory) -> Item:
    value, key = _item_parts(memory)
    return Item(
        value=value,
        key=key,
        namespace=langgraph_namespace(memory.namespace),
        created_at=memory.created_at,
        updated_at=memory.updated_at,
    )


def to_search_item(memory: Memory, score: float | None) -> SearchItem:
    value, key = _item_parts(memory)
    return SearchItem(
        namespace=langgraph_namespace(memory.namespace),
        key=key,
        value=value,
        created_at=memory.created_at,
        updated_at=memory.updated_at,
        score=score,
    )


# ---- the operations, as plans (engram_client.plans) ----------------------------------------------


def _find(namespace: tuple[str, ...], key: str) -> Plan[Memory | None]:
    page: CursorPage[Memory] = yield endpoints.list_memories(
        namespace=engram_namespace(namespace), tags=[key_tag(key)], limit=1
    )
    if page.items:
        return page.items[0]
    if _UUID.match(key):  # a memory stored by other means is keyed by its id
        try:
            memory: Memory = yield endpoints.get_memory(key)
        except NotFound:
            return None
        if memory.namespace == engram_namespace(namespace):
            return memory
    return None


def get_plan(op: GetOp) -> Plan[Item | None]:
    memory = yield from _find(op.namespace, op.key)
    return to_item(memory) if memory else None


def put_plan(op: PutOp, index_fields: Sequence[str] | None) -> Plan[None]:
    existing = yield from _find(op.namespace, op.key)
    if op.value is None:
        if existing is not None:
            yield endpoints.forget(existing.id)
        return None
    value = dict(op.value)
    fields = op.index if isinstance(op.index, list) else index_fields
    text = _text(value, fields)
    metadata = {TAG: {"key": op.key, "value": value}}
    if existing is not None:
        yield endpoints.update_memory(existing.id, content=text, metadata=metadata)
        return None
    namespace = engram_namespace(op.namespace)
    tags = [TAG, key_tag(op.key)]
    written = yield endpoints.store_memory(text, namespace=namespace, tags=tags, metadata=metadata)
    if written.deduplicated:  # the same text under another key: keep both, told apart by the key
        yield endpoints.store_memory(f"{text}\n[{op.key}]", namespace=namespace, tags=tags, metadata=metadata)
    return None


def _namespaces(prefix: tuple[str, ...] = ()) -> Plan[list[str]]:
    """The tenant's Engram namespaces holding memories, whose LangGraph form starts with `prefix`."""
    stats: dict[str, Any] = yield endpoints.stats()
    found = [n["namespace"] for n in stats.get("namespaces", []) if n.get("memories")]
    return sorted(n for n in found if langgraph_namespace(n)[: len(prefix)] == prefix)


def search_plan(op: SearchOp) -> Plan[list[SearchItem]]:
    namespaces = yield from _namespaces(tuple(op.namespace_prefix))
    wanted = op.offset + op.limit
    found: list[SearchItem] = []
    if op.query:
        scored: list[tuple[float, str]] = []
        for start in range(0, len(namespaces), RECALL_NAMESPACES):
            limit = RECALL_LIMIT if op.filter else min(RECALL_LIMIT, wanted)
            batch = namespaces[start : start + RECALL_NAMESPACES]
            answer: RecallResponse = yield endpoints.recall(op.query, namespaces=batch, limit=limit)
            scored += [(h.score, h.memory_id) for h in answer.results if isinstance(h, RecallHit) and h.memory_id]
        for score, memory_id in sorted(scored, key=lambda s: -s[0]):
            memory: Memory = yield endpoints.get_memory(memory_id)
            item = to_search_item(memory, score)
            if not op.filter or matches(item.value, op.filter):
                found.append(item)
            if len(found) >= wanted:
                break
        return found[op.offset : wanted]
    for namespace in namespaces:
        cursor: str | None = None
        while len(found) < wanted:
            listing = endpoints.list_memories(namespace=namespace, limit=LIST_PAGE, cursor=cursor)
            page: CursorPage[Memory] = yield listing
            for memory in page.items:
                item = to_search_item(memory, None)
                if not op.filter or matches(item.value, op.filter):
                    found.append(item)
            cursor = page.next_cursor
            if cursor is None:
                break
    return found[op.offset : wanted]


def list_namespaces_plan(op: ListNamespacesOp) -> Plan[list[tuple[str, ...]]]:
    names = yield from _namespaces()
    found: set[tuple[str, ...]] = set()
    for name in names:
        namespace = langgraph_namespace(name)
        if all(_namespace_matches(namespace, c) for c in op.match_conditions or ()):
            found.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
    return sorted(found)[op.offset : op.offset + op.limit]


def op_plan(op: Op, index_fields: Sequence[str] | None) -> Plan[Result]:
    validate_op_namespace(op)
    if isinstance(op, GetOp):
        return (yield from get_plan(op))
    if isinstance(op, PutOp):
        yield from put_plan(op, index_fields)
        return None
    if isinstance(op, SearchOp):
        return (yield from search_plan(op))
    if isinstance(op, ListNamespacesOp):
        return (yield from list_namespaces_plan(op))
    raise ValueError(f"unknown operation {type(op).__name__}")


class EngramStore(BaseStore):
    """A LangGraph `BaseStore` backed by Engram: `EngramStore()` reads ENGRAM_API_URL and
    ENGRAM_API_KEY; or pass `base_url` and `api_key`, or clients of your own (`client` for the sync
    methods, `async_client` for the async ones).

    `index_fields`: the value's fields recall searches (a dotted path each), for every put that does
    not name its own `index`; default: `value["content"]` when it is text, else the value as JSON.
    TTLs are not supported (`supports_ttl` is False); Engram's consolidation decides what fades."""

    supports_ttl = False

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        client: Engram | None = None,
        async_client: AsyncEngram | None = None,
        index_fields: Sequence[str] | None = None,
    ) -> None:
        self.client = client or Engram(base_url, api_key)
        self.async_client = async_client or AsyncEngram(base_url, api_key)
        self.index_fields = list(index_fields) if index_fields else None

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [run(self.client, op_plan(op, self.index_fields)) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # In order, one after another: a put followed by a get of the same key must see the put.
        return [await arun(self.async_client, op_plan(op, self.index_fields)) for op in ops]

    def close(self) -> None:
        self.client.close()

    async def aclose(self) -> None:
        await self.async_client.aclose()


__all__ = ["EngramStore", "engram_namespace", "key_tag", "langgraph_namespace", "matches"]

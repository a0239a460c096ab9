"""Recall's plan: a request's filters turned into SQL once (RecallPlan), the conditions on chunks `c` that
engram.recall.candidate_store composes its statements from and engram.recall.store counts by."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString
from uuid import UUID

from psycopg import sql

from engram.recall.models import RecallRequest


@dataclass(frozen=True)
class RecallPlan:
    """A request's filters on chunks `c` (`where`: constant conditions, their parameters in `params`) and
    the part of them an index finds rows by (`scope`: the rows an exact scan reads), made once a query.
    `beyond_scope`: the conditions of `where` that `scope` does not hold, so `scope AND beyond_scope`
    reads the scope's rows that pass `where` without saying a condition twice. The planner multiplies a
    condition said twice into its estimate: a namespace and a tag said twice estimated 20 rows of
    1,429, and it read the namespace's 10,000 rows to drop the tag's (16 ms of 20 at 100k).
    `counted_scope`: the same rows said as a count reads them best. A namespace and tag are read by
    their keys (_NAMESPACE_TAGS: the 1,429 rows, 0.2 ms) and counted as themselves, index-only on
    chunks_scope, which carries the tags (10,000 index entries, 1.6 ms, against 4.0 ms reading the
    1,429 rows' heap pages for the tenant and the vector's presence).
    `keyword_where`: `where` as the keyword side reads each query word's rows through the text index,
    a namespace and tag as their keys: at 1M chunks a word's ~5,300 rows met the tag's 142,857 in a
    bitmap (33 ms a word), where the keys leave one namespace's. The vector side's graph walk keeps
    `where`: it checks each row it visits, and the keys would be built for every one."""

    where: sql.Composable
    scope: sql.Composable
    params: dict[str, Any]
    beyond_scope: sql.Composable
    counted_scope: sql.Composable
    keyword_where: sql.Composable


# Where the scope's rows are read: the tenant's rows through a view (migration 0055) rather than the
# table under row-level security. There a condition whose operator is not leakproof (a tag's @>, the
# keys' &&) can not reach an index, so a namespace and tag filter read the namespace's 10,000 rows to
# keep the tag's 1,429 (13.5 ms at 100k); through the view the keys' index (_NAMESPACE_TAGS) reads only
# those, and a tag alone is found by the tags' GIN index (chunks_tags). The rows go on to `found`, which
# reads chunks under row-level security; a grant's namespaces are named in the filters (_within_grant
# in the service).
SCOPE_TABLE: LiteralString = "tenant_chunks"

# The filters the scope holds too (_scope), by the same text.
_NAMESPACES: LiteralString = "c.namespace = ANY(%(namespaces)s)"
_TAGS: LiteralString = "c.tags @> %(tags)s"
_CONVERSATION: LiteralString = "c.conversation_id = %(conversation_id)s"
_EMBEDDED: LiteralString = "c.embedding IS NOT NULL"
# The same condition in a form the planner does not match to a partial index's predicate (it proves
# nothing through IS TRUE), so chunks_scope (partial on _EMBEDDED) is not offered beside the keys.
_EMBEDDED_NOT_INDEXED: LiteralString = "(c.embedding IS NOT NULL) IS TRUE"
# A namespace and tag filter's rows, found by their keys (migration 0060, chunks_namespace_tags): any
# (namespace, tag) pair of the filter's. That is the filter itself when it names one tag; with more,
# _TAGS stays beside it to keep the rows that hold them all (_keyed).
_NAMESPACE_TAGS: LiteralString = (
    "engram_scope_tag_keys(c.tenant_id, ARRAY[c.namespace], c.tags)"
    " && engram_scope_tag_keys(engram_current_tenant(), %(namespaces)s, %(tags)s)"
)


def plan_recall(req: RecallRequest, topic_memories: list[UUID] | None = None) -> RecallPlan:
    """`topic_memories`: the memories of req.topics (engram.topics looks them up in the recall's transaction)."""
    clauses: list[LiteralString] = ["c.active"]
    params: dict[str, Any] = {}
    namespaces = list(req.namespaces or []) + ([req.namespace] if req.namespace else [])
    if namespaces:
        clauses.append(_NAMESPACES)
        params["namespaces"] = namespaces
    if req.tags:
        clauses.append(_TAGS)
        params["tags"] = req.tags
    if req.kinds:  # memory kinds and/or 'conversation' (conversation windows)
        clauses.append("c.kind = ANY(%(kinds)s)")
        params["kinds"] = list(req.kinds)
    if req.conversation_id:
        clauses.append(_CONVERSATION)
        params["conversation_id"] = req.conversation_id
    if req.source:
        clauses.append("c.source = %(source)s")
        params["source"] = req.source
    if req.layers:  # in the query, so matches below the first k are found too; windows have no layer
        clauses.append("EXISTS (SELECT 1 FROM memories m WHERE m.id = c.memory_id AND m.layer = ANY(%(layers)s))")
        params["layers"] = list(req.layers)
    if req.topics:
        clauses.append("c.memory_id = ANY(%(topic_memories)s)")
        params["topic_memories"] = list(topic_memories or [])
    if req.since:
        clauses.append("c.occurred_at >= %(since)s")
        params["since"] = req.since
    if req.until:
        clauses.append("c.occurred_at < %(until)s")
        params["until"] = req.until
    counted = _scope(req)
    scope, keyed = _keyed(counted, req), _keyed(clauses, req)
    beyond = [clause for clause in clauses if clause not in counted]  # the keys hold the namespaces too
    if _NAMESPACE_TAGS in scope:
        # The keys find the rows alone. With chunks_scope's predicate said, the planner met them with the
        # view's tenant in that index, which it prices from a parameter's estimate (1,852 rows): for a
        # tenant of 80,000 it read them all to keep 1,143 (5.7 ms of an 11 ms statement, tenant_scale).
        scope.remove(_EMBEDDED)
        beyond.append(_EMBEDDED_NOT_INDEXED)
    return RecallPlan(
        where=_and(clauses),
        scope=_and(scope),
        params=params,
        beyond_scope=_and(beyond),  # c.active at least
        counted_scope=_and(counted),
        keyword_where=_and(keyed),
    )


def _and(clauses: list[LiteralString]) -> sql.Composed:
    return sql.SQL(" AND ").join(map(sql.SQL, clauses))


def _keyed(clauses: list[LiteralString], req: RecallRequest) -> list[LiteralString]:
    """The clauses with a namespace and tag said as their keys (_NAMESPACE_TAGS). The keys are any pair's,
    so with two tags or more _TAGS stays too (to keep the rows that hold them all)."""
    if _NAMESPACES not in clauses or _TAGS not in clauses:
        return list(clauses)
    several_tags = len(set(req.tags or [])) > 1
    return [_NAMESPACE_TAGS if c == _NAMESPACES else c for c in clauses if c != _TAGS or several_tags]


def _scope(req: RecallRequest) -> list[LiteralString]:
    """The part of the filters an index finds rows by (tenant, namespaces, conversation; tags, which
    chunks_scope carries since migration 0016), as plan_recall says them. `embedding IS NOT NULL` is
    chunks_scope's predicate (migration 0009): only this condition lets a query use that index."""
    clauses: list[LiteralString] = [_EMBEDDED]
    if req.namespaces or req.namespace:
        clauses.append(_NAMESPACES)
    if req.conversation_id:
        clauses.append(_CONVERSATION)
    if req.tags:
        clauses.append(_TAGS)
    return clauses

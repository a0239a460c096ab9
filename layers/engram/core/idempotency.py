"""Idempotency keys of the create and write POSTs (table `idempotency_keys`, migration 0014).

A service given an `IdempotencyKey` calls `replay` first in its write transaction, and returns
the answer it finds there without writing anything; otherwise it writes, then `remember`s its
answer in the same transaction. The key's row is claimed by that transaction's INSERT, so a
concurrent request with the same key waits for it to end: after a commit it finds the answer,
after a rollback (the request failed) it claims the key itself. A write and its remembered answer
therefore commit together or not at all. Keys are per tenant (row-level security and the
primary key) and per confinement (a caller confined to namespaces, an OAuth grant's, never gets an
answer stored for a caller confined otherwise, or not at all: migration 0038), and live for
`idempotency_retention_hours`.

Appending messages keeps its own record (`conversation_appends`, engram.conversations): its keys
belong to a conversation and live as long as it, a retry answers 200 with `replayed: true`, and
the answer is read back from the messages instead of being stored twice.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TypeVar

from psycopg import sql
from psycopg.rows import class_row
from pydantic import BaseModel

from engram.core.config import settings
from engram.core.db import Conn, confined_namespaces
from engram.core.errors import Conflict
from engram.core.select_lists import select_list

HEADER = "Idempotency-Key"
Answer = TypeVar("Answer", bound=BaseModel)


@dataclass(frozen=True)
class _KeyRow:
    """A claimed key as stored: its request, and its answer once the write committed."""

    operation: str
    request_hash: bytes
    answer: str | None  # JSON text


@dataclass(frozen=True)
class IdempotencyKey:
    key: str
    operation: str  # "POST /v1/memories": a key names one request to one route
    request_hash: bytes


def request_key(key: str | None, operation: str, request: BaseModel) -> IdempotencyKey | None:
    """The key of a request, hashed with its operation and its validated body (so key order,
    spacing and defaults written out do not make a retry a different request); None without a key."""
    if key is None:
        return None
    canonical = json.dumps([operation, request.model_dump(mode="json")], sort_keys=True, ensure_ascii=False)
    return IdempotencyKey(key, operation, hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).digest())


def _confined_to() -> str:
    """The request's confinement as the table keeps it: its namespaces sorted, as a JSON array; ''
    for none."""
    namespaces = confined_namespaces()
    return "" if namespaces is None else json.dumps(sorted(set(namespaces)), ensure_ascii=False)


# A live key conflicts; an expired one is taken over as if it were new.
_CLAIM = """
INSERT INTO idempotency_keys AS k (tenant_id, confined_to, idempotency_key, operation, request_hash)
VALUES (engram_current_tenant(), %(confined_to)s, %(key)s, %(operation)s, %(hash)s)
ON CONFLICT (tenant_id, confined_to, idempotency_key) DO UPDATE
  SET operation = excluded.operation, request_hash = excluded.request_hash, answer = NULL, created_at = now()
  WHERE k.created_at < now() - make_interval(hours => %(hours)s)
RETURNING 1
"""
# Expired keys of this tenant, a few at a time; rows another transaction holds are left for later.
_SWEEP = """
DELETE FROM idempotency_keys WHERE (tenant_id, confined_to, idempotency_key) IN (
  SELECT tenant_id, confined_to, idempotency_key FROM idempotency_keys
  WHERE tenant_id = engram_current_tenant() AND created_at < now() - make_interval(hours => %(hours)s)
  ORDER BY created_at LIMIT 100 FOR UPDATE SKIP LOCKED)
"""


def replay(conn: Conn, idempotency: IdempotencyKey | None, answer_type: type[Answer]) -> Answer | None:
    """Claim the key for this transaction and return None (go on and write), or return the first
    answer given under it. The same key with a different request is a 409 naming the header."""
    if idempotency is None:
        return None
    params = {
        "key": idempotency.key,
        "operation": idempotency.operation,
        "hash": idempotency.request_hash,
        "hours": settings().idempotency_retention_hours,
        "confined_to": _confined_to(),
    }
    if conn.execute(_CLAIM, params).fetchone() is not None:
        conn.execute(_SWEEP, params)
        return None
    query = sql.SQL(
        "SELECT {} FROM idempotency_keys"
        " WHERE tenant_id = engram_current_tenant() AND confined_to = %s AND idempotency_key = %s"
    ).format(select_list(_KeyRow, expressions={"answer": sql.SQL("answer::text")}))
    with conn.cursor(row_factory=class_row(_KeyRow)) as cur:
        seen = cur.execute(query, (params["confined_to"], idempotency.key)).fetchone()
    if seen is None or seen.answer is None:  # cannot be, the claim and the answer commit together
        raise Conflict(
            f"the request with this {HEADER} is still being written; retry it",
            {"header": HEADER, "retryable": True},
        )
    if seen.operation != idempotency.operation or bytes(seen.request_hash) != idempotency.request_hash:
        raise Conflict(
            f"the {HEADER} header was used for a different request ({seen.operation}); a new request needs a new key",
            {"header": HEADER, "idempotency_key": idempotency.key, "operation": seen.operation},
        )
    return answer_type.model_validate_json(seen.answer)


def remember(conn: Conn, idempotency: IdempotencyKey | None, answer: BaseModel) -> None:
    """Store the answer under the key `replay` claimed, in the transaction of the write."""
    if idempotency is not None:
        conn.execute(
            "UPDATE idempotency_keys SET answer = %s::json"
            " WHERE tenant_id = engram_current_tenant() AND confined_to = %s AND idempotency_key = %s",
            (answer.model_dump_json(), _confined_to(), idempotency.key),
        )

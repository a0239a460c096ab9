"""The SQL of tenants and API keys: functions that take a connection (owner or tenant transaction).

A key is `egk_<8 hex prefix>_<43 url-safe chars>` (256 random bits). Only its SHA-256 is
stored: with that much entropy a slow hash buys nothing, and lookups stay one index probe.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, scalar_row, tuple_row

from engram.core.db import Conn
from engram.core.errors import Conflict, InvalidField, NotFound
from engram.core.select_lists import select_list
from engram.tenancy.models import ApiKeyInfo, PurgeResult, UsageLine
from engram.tenancy.settings import tenancy_settings

SCOPES = ("read", "write", "admin")


@dataclass(frozen=True)
class Principal:
    """Who is calling: resolved from the key by the authorizer."""

    tenant_id: UUID
    key_id: UUID  # an OAuth token's: the key that granted it
    scopes: frozenset[str]
    # Set for an OAuth access token: its grant, and the namespaces it is confined to (None: all).
    grant_id: UUID | None = None
    namespaces: tuple[str, ...] | None = None


@dataclass(frozen=True)
class IssuedKey:
    key_id: UUID
    tenant_id: UUID
    api_key: str  # shown once
    scopes: tuple[str, ...]


def hash_key(api_key: str) -> bytes:
    return hashlib.sha256(api_key.encode()).digest()


def _new_key() -> tuple[str, str]:
    prefix = secrets.token_hex(4)
    return f"egk_{prefix}_{secrets.token_urlsafe(32)}", prefix


def _check_scopes(scopes: Sequence[str]) -> tuple[str, ...]:
    bad = [s for s in scopes if s not in SCOPES]
    if bad or not scopes:
        raise InvalidField("scopes", f"must be a non-empty subset of {list(SCOPES)}, got {list(scopes)}")
    return tuple(dict.fromkeys(scopes))


def create_tenant(owner: Conn, name: str) -> UUID:
    """Owner connection: tenants are created by operators, not by tenants."""
    if not name.strip() or len(name) > 200:
        raise InvalidField("name", "must be 1-200 characters", limit=200)
    cur = owner.cursor(row_factory=scalar_row)
    tenant_id: UUID | None = cur.execute("INSERT INTO tenants (name) VALUES (%s) RETURNING id", (name,)).fetchone()
    assert tenant_id is not None
    return tenant_id


def issue_key(conn: Conn, tenant_id: UUID, scopes: Sequence[str], name: str = "") -> IssuedKey:
    """Works on an owner connection or inside the tenant's own transaction (admin scope).
    At most `max_active_keys_per_tenant` active keys: past it, 409 until one is revoked."""
    checked = _check_scopes(scopes)
    limit = tenancy_settings().max_active_keys_per_tenant
    # Concurrent issues for one tenant take turns, so the count cannot be raced past the limit.
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('engram.api_keys:' || %s::text, 0))", (tenant_id,))
    cur = conn.cursor(row_factory=scalar_row)
    active = int(
        cur.execute(
            "SELECT count(*) FROM api_keys WHERE tenant_id = %s AND revoked_at IS NULL", (tenant_id,)
        ).fetchone()
        or 0
    )
    if active >= limit:
        raise Conflict(
            f"this tenant has {active} active API keys, the limit is {limit}"
            " (ENGRAM_MAX_ACTIVE_KEYS_PER_TENANT): revoke one (DELETE /v1/keys/{id}) first",
            {"limit": limit, "active": active},
        )
    api_key, prefix = _new_key()
    key_id: UUID | None = cur.execute(
        "INSERT INTO api_keys (tenant_id, name, prefix, key_hash, scopes) VALUES (%s, %s, %s, %s, %s) RETURNING id",
        (tenant_id, name, prefix, hash_key(api_key), list(checked)),
    ).fetchone()
    assert key_id is not None
    return IssuedKey(key_id, tenant_id, api_key, checked)


def revoke_key(conn: Conn, key_id: UUID) -> None:
    row = conn.execute(
        "UPDATE api_keys SET revoked_at = now() WHERE id = %s AND revoked_at IS NULL RETURNING id", (key_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no active key {key_id}")


def list_keys(conn: Conn) -> list[ApiKeyInfo]:
    query = sql.SQL("SELECT {} FROM api_keys ORDER BY created_at").format(select_list(ApiKeyInfo))
    return conn.cursor(row_factory=class_row(ApiKeyInfo)).execute(query).fetchall()


def authenticate(conn: Conn, api_key: str) -> Principal | None:
    # Keys are ASCII (see _new_key): anything else, a lone surrogate included, cannot be one to hash.
    if not api_key.startswith("egk_") or len(api_key) > 200 or not api_key.isascii():
        return None
    cur = conn.cursor(row_factory=tuple_row)
    found: tuple[UUID, UUID, list[str]] | None = cur.execute(
        "SELECT tenant_id, key_id, scopes FROM engram_authenticate(%s)", (hash_key(api_key),)
    ).fetchone()
    if found is None:
        return None
    tenant_id, key_id, scopes = found
    return Principal(tenant_id, key_id, frozenset(scopes))


_USAGE_SUMS = {
    "day": sql.SQL("(created_at AT TIME ZONE 'UTC')::date"),
    "component": sql.SQL("purpose"),
    "calls": sql.SQL("count(*)"),
    "failed_calls": sql.SQL("count(*) FILTER (WHERE NOT ok)"),
    "input_tokens": sql.SQL("COALESCE(sum(input_tokens), 0)::bigint"),
    "output_tokens": sql.SQL("COALESCE(sum(output_tokens), 0)::bigint"),
    "latency_ms": sql.SQL("sum(latency_ms)::bigint"),
}


def llm_usage_by_day(conn: Conn, since: datetime) -> list[UsageLine]:
    """The transaction tenant's LLM calls since `since`, summed by UTC day, purpose and model."""
    query = sql.SQL("SELECT {} FROM llm_usage WHERE created_at >= %s GROUP BY 1, 2, 3 ORDER BY 1, 2, 3").format(
        select_list(UsageLine, expressions=_USAGE_SUMS)
    )
    return conn.cursor(row_factory=class_row(UsageLine)).execute(query, (since,)).fetchall()


def extraction_today(conn: Conn) -> tuple[int, int]:
    """The transaction tenant's tokens spent since midnight UTC by extraction (background jobs,
    POST /v1/extract, session distillation: their llm_usage purposes), and its runs waiting for the budget."""
    cur = conn.cursor(row_factory=tuple_row)
    spent: tuple[int, int] | None = cur.execute(
        "SELECT (SELECT COALESCE(sum(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0)), 0) FROM llm_usage"
        "  WHERE purpose IN ('extraction', 'session_distillation')"
        "  AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),"
        " (SELECT count(*) FROM extraction_runs WHERE status = 'waiting')"
    ).fetchone()
    assert spent is not None
    tokens, waiting = spent
    return int(tokens), int(waiting)


@dataclass
class NamespaceBreakdown:
    """One namespace's active memories by layer and by kind, active documents, chunks waiting for a vector."""

    by_layer: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, int] = field(default_factory=dict)
    documents: int = 0
    embeddings_pending: int = 0


def namespace_breakdown(conn: Conn) -> dict[str, NamespaceBreakdown]:
    """Per namespace: active memories by layer and by kind, active documents, chunks waiting for
    a vector (conversation windows included). Two grouped scans under the caller's tenant."""
    out: dict[str, NamespaceBreakdown] = {}
    query = sql.SQL("SELECT {} FROM memories WHERE status = 'active' GROUP BY namespace, layer, kind").format(
        select_list(
            _MemoryCount,
            expressions={
                "n": sql.SQL("count(*)"),
                "documents": sql.SQL("count(*) FILTER (WHERE document_tier IS NOT NULL)"),
            },
        )
    )
    for c in conn.cursor(row_factory=class_row(_MemoryCount)).execute(query).fetchall():
        e = out.setdefault(c.namespace, NamespaceBreakdown())
        e.by_layer[c.layer] = e.by_layer.get(c.layer, 0) + c.n
        e.by_kind[c.kind] = e.by_kind.get(c.kind, 0) + c.n
        e.documents += c.documents
    cur = conn.cursor(row_factory=tuple_row)
    pending: list[tuple[str, int]] = cur.execute(
        "SELECT namespace, count(*) FROM chunks WHERE embedding IS NULL GROUP BY namespace"
    ).fetchall()
    for namespace, n in pending:
        out.setdefault(namespace, NamespaceBreakdown()).embeddings_pending = n
    return out


@dataclass(frozen=True)
class _MemoryCount:
    """Active memories of one namespace, layer and kind (`n`), and how many of them are documents."""

    namespace: str
    layer: str
    kind: str
    n: int
    documents: int


@dataclass(frozen=True)
class NamespaceMemories:
    namespace: str
    memories: int  # active
    trashed: int


def memories_by_namespace(conn: Conn) -> list[NamespaceMemories]:
    counts = {
        "memories": sql.SQL("count(*) FILTER (WHERE status = 'active')"),
        "trashed": sql.SQL("count(*) FILTER (WHERE status = 'deleted')"),
    }
    query = sql.SQL("SELECT {} FROM memories GROUP BY namespace ORDER BY namespace").format(
        select_list(NamespaceMemories, expressions=counts)
    )
    with conn.cursor(row_factory=class_row(NamespaceMemories)) as cur:
        return cur.execute(query).fetchall()


@dataclass(frozen=True)
class ChunkCounts:
    chunks: int
    pending: int  # without a vector yet


def chunk_counts(conn: Conn) -> ChunkCounts:
    with conn.cursor(row_factory=class_row(ChunkCounts)) as cur:
        counts = {"chunks": sql.SQL("count(*)"), "pending": sql.SQL("count(*) FILTER (WHERE embedding IS NULL)")}
        row = cur.execute(
            sql.SQL("SELECT {} FROM chunks").format(select_list(ChunkCounts, expressions=counts))
        ).fetchone()
    assert row is not None  # an aggregate always answers one row
    return row


_PURGED = {
    "namespace": sql.SQL("%(ns)s"),
    "memories": sql.SQL("(SELECT count(*) FROM memories WHERE namespace = %(ns)s)"),
    "conversations": sql.SQL("(SELECT count(*) FROM conversations WHERE namespace = %(ns)s)"),
    "messages": sql.SQL(
        "(SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.namespace = %(ns)s)"
    ),
    "chunks": sql.SQL("(SELECT count(*) FROM chunks WHERE namespace = %(ns)s)"),
}


def delete_namespace_rows(conn: Conn, namespace: str) -> PurgeResult:
    """The namespace's conversations, extraction runs, memories and chunks (messages and idempotency
    records go with their owners by cascade), with how many of each there were."""
    with conn.cursor(row_factory=class_row(PurgeResult)) as cur:
        counts = cur.execute(
            sql.SQL("SELECT {}").format(select_list(PurgeResult, expressions=_PURGED)), {"ns": namespace}
        ).fetchone()
    conn.execute("DELETE FROM conversations WHERE namespace = %s", (namespace,))
    # Extraction runs over its conversations went with them; runs over pushed texts hold those texts.
    conn.execute("DELETE FROM extraction_runs WHERE namespace = %s", (namespace,))
    conn.execute("DELETE FROM memories WHERE namespace = %s", (namespace,))
    conn.execute("DELETE FROM chunks WHERE namespace = %s", (namespace,))
    assert counts is not None
    return counts

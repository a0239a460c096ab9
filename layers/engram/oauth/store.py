"""The SQL of OAuth: clients and pending authorizations (no tenant yet: the request role reads them
directly), and grants, codes and tokens (a tenant's rows, under row-level security). Codes and tokens
are kept as their SHA-256 only: 256 random bits need no slow hash, and a lookup is one index probe."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, scalar_row, tuple_row
from psycopg.types.json import Jsonb

from engram.core.db import Conn
from engram.core.select_lists import select_list
from engram.oauth.models import ClientRow, CodeRow, GrantInfo, RefreshRow, RequestRow, TokenCaller


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


# Clients.


def client(conn: Conn, client_id: str) -> ClientRow | None:
    query = sql.SQL("SELECT {} FROM oauth_clients WHERE id = %s AND active_until > now()").format(
        select_list(ClientRow, expressions={"approved": sql.SQL("approved_at IS NOT NULL")})
    )
    with conn.cursor(row_factory=class_row(ClientRow)) as cur:
        return cur.execute(query, (client_id,)).fetchone()


def mark_client_approved(conn: Conn, client_id: str) -> None:
    """A person approved this client once: from now on /authorize may send its errors back to it."""
    conn.execute("UPDATE oauth_clients SET approved_at = now() WHERE id = %s AND approved_at IS NULL", (client_id,))


def save_client(
    conn: Conn,
    client_id: str,
    client_name: str,
    redirect_uris: Sequence[str],
    metadata: dict[str, Any],
    metadata_document: bool,
    ttl_s: int,
) -> None:
    """Insert a client kept for `ttl_s`, or (a metadata document fetched again) replace what it says;
    an expired one is taken over as new."""
    conn.execute(
        "INSERT INTO oauth_clients"
        " (id, client_name, redirect_uris, metadata, metadata_document, fetched_at, active_until)"
        " VALUES (%s, %s, %s, %s, %s, CASE WHEN %s THEN now() END, now() + make_interval(secs => %s))"
        " ON CONFLICT (id) DO UPDATE SET client_name = EXCLUDED.client_name, redirect_uris = EXCLUDED.redirect_uris,"
        " metadata = EXCLUDED.metadata, fetched_at = EXCLUDED.fetched_at,"
        " active_until = GREATEST(oauth_clients.active_until, EXCLUDED.active_until)",
        (client_id, client_name, list(redirect_uris), Jsonb(metadata), metadata_document, metadata_document, ttl_s),
    )


def drop_expired_clients(conn: Conn) -> None:
    """Clients past their active_until, a hundred at a time (each registration adds one, so the table
    stays the size of its live clients); their requests and expired grants go with them. Rows another
    transaction holds are left for later."""
    conn.execute(
        "DELETE FROM oauth_clients WHERE id IN (SELECT id FROM oauth_clients WHERE active_until < now()"
        " ORDER BY active_until LIMIT 100 FOR UPDATE SKIP LOCKED)"
    )


def keep_client(conn: Conn, client_id: str, ttl_s: int) -> bool:
    """An /authorize of a live client keeps it `ttl_s` more; False when it is gone or expired."""
    row = conn.execute(
        "UPDATE oauth_clients SET active_until = GREATEST(active_until, now() + make_interval(secs => %s))"
        " WHERE id = %s AND active_until > now() RETURNING id",
        (ttl_s, client_id),
    ).fetchone()
    return row is not None


def keep_client_of_grant(conn: Conn, grant_id: UUID, ttl_s: int) -> None:
    """A grant made or refreshed keeps its client as long as the grant's refresh token lasts (`ttl_s`).
    Written only when that moves it by over a tenth of `ttl_s`: a client shared by many people (a
    metadata document's) is not one row every refresh waits on."""
    conn.execute(
        "UPDATE oauth_clients c SET active_until = now() + make_interval(secs => %(ttl)s)"
        " FROM oauth_grants g WHERE g.id = %(grant)s AND c.id = g.client_id"
        " AND c.active_until < now() + make_interval(secs => %(ttl)s * 0.9)",
        {"ttl": ttl_s, "grant": grant_id},
    )


# Pending authorizations.


def save_request(
    conn: Conn,
    request_id: str,
    client_id: str,
    redirect_uri: str,
    code_challenge: str,
    state: str | None,
    scopes: Sequence[str],
    resource: str,
    ttl_s: int,
) -> None:
    # Expired requests go as new ones come: the table stays the size of ten minutes of traffic.
    conn.execute("DELETE FROM oauth_requests WHERE expires_at < now() - interval '1 hour'")
    conn.execute(
        "INSERT INTO oauth_requests (id, client_id, redirect_uri, code_challenge, state, scopes, resource, expires_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, now() + make_interval(secs => %s))",
        (request_id, client_id, redirect_uri, code_challenge, state, list(scopes), resource, ttl_s),
    )


# A pending request beside its client's name (`r`: the request, `c`: its client).
_REQUEST_FIELDS = select_list(RequestRow, "r", expressions={"client_name": sql.SQL("c.client_name")})
_REQUEST = sql.SQL(
    "SELECT {} FROM oauth_requests r JOIN oauth_clients c ON c.id = r.client_id"
    " WHERE r.id = %s AND r.expires_at > now()"
).format(_REQUEST_FIELDS)


def pending_request(conn: Conn, request_id: str) -> RequestRow | None:
    with conn.cursor(row_factory=class_row(RequestRow)) as cur:
        return cur.execute(_REQUEST, (request_id,)).fetchone()


def take_request(conn: Conn, request_id: str) -> RequestRow | None:
    """The pending request, deleted in the same statement: approving or denying consumes it, once."""
    with conn.cursor(row_factory=class_row(RequestRow)) as cur:
        query = sql.SQL(
            "WITH taken AS (DELETE FROM oauth_requests WHERE id = %s RETURNING *)"
            " SELECT {} FROM taken r JOIN oauth_clients c ON c.id = r.client_id WHERE r.expires_at > now()"
        ).format(_REQUEST_FIELDS)
        return cur.execute(query, (request_id,)).fetchone()


# Grants, codes, tokens (tenant transactions).


def create_grant(
    conn: Conn,
    tenant_id: UUID,
    key_id: UUID,
    client_id: str,
    client_name: str,
    scopes: Sequence[str],
    namespaces: Sequence[str] | None,
    resource: str,
    ttl_s: int,
) -> UUID:
    cur = conn.cursor(row_factory=scalar_row)
    grant_id: UUID | None = cur.execute(
        "INSERT INTO oauth_grants (tenant_id, key_id, client_id, client_name, scopes, namespaces, resource, expires_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, now() + make_interval(secs => %s)) RETURNING id",
        (
            tenant_id,
            key_id,
            client_id,
            client_name,
            list(scopes),
            list(namespaces) if namespaces is not None else None,
            resource,
            ttl_s,
        ),
    ).fetchone()
    assert grant_id is not None
    return grant_id


def save_code(
    conn: Conn, tenant_id: UUID, code: str, grant_id: UUID, redirect_uri: str, code_challenge: str, ttl_s: int
) -> None:
    conn.execute(
        "INSERT INTO oauth_codes (code_hash, tenant_id, grant_id, redirect_uri, code_challenge, expires_at)"
        " VALUES (%s, %s, %s, %s, %s, now() + make_interval(secs => %s))",
        (token_hash(code), tenant_id, grant_id, redirect_uri, code_challenge, ttl_s),
    )


def tenant_of(conn: Conn, secret: str) -> UUID | None:
    """The tenant of a code or a token, before a tenant is known (definer function)."""
    cur = conn.cursor(row_factory=scalar_row)
    tenant_id: UUID | None = cur.execute("SELECT engram_oauth_tenant(%s)", (token_hash(secret),)).fetchone()
    return tenant_id


def code_for_update(conn: Conn, code: str) -> CodeRow | None:
    fields = select_list(
        CodeRow,
        "c",
        expressions={
            "client_id": sql.SQL("g.client_id"),
            "expired": sql.SQL("c.expires_at <= now()"),
            "used": sql.SQL("c.used_at IS NOT NULL"),
            "scopes": sql.SQL("g.scopes"),
            "resource": sql.SQL("g.resource"),
            "grant_revoked": sql.SQL("g.revoked_at IS NOT NULL"),
        },
    )
    query = sql.SQL(
        "SELECT {} FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = %s FOR UPDATE OF c"
    ).format(fields)
    with conn.cursor(row_factory=class_row(CodeRow)) as cur:
        return cur.execute(query, (token_hash(code),)).fetchone()


def mark_code_used(conn: Conn, code: str) -> None:
    conn.execute("UPDATE oauth_codes SET used_at = now() WHERE code_hash = %s", (token_hash(code),))


def refresh_for_update(conn: Conn, token: str) -> RefreshRow | None:
    fields = select_list(
        RefreshRow,
        "t",
        expressions={
            "client_id": sql.SQL("g.client_id"),
            "resource": sql.SQL("g.resource"),
            "expired": sql.SQL("t.expires_at <= now()"),
            "rotated": sql.SQL("t.rotated_at IS NOT NULL"),
            "revoked": sql.SQL("t.revoked_at IS NOT NULL"),
            "grant_revoked": sql.SQL("(g.revoked_at IS NOT NULL OR k.revoked_at IS NOT NULL)"),
            "key_scopes": sql.SQL("k.scopes"),
        },
    )
    query = sql.SQL(
        "SELECT {} FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN api_keys k ON k.id = g.key_id"
        " WHERE t.token_hash = %s FOR UPDATE OF t"
    ).format(fields)
    with conn.cursor(row_factory=class_row(RefreshRow)) as cur:
        return cur.execute(query, (token_hash(token),)).fetchone()


def mark_rotated(conn: Conn, token: str) -> None:
    conn.execute("UPDATE oauth_tokens SET rotated_at = now() WHERE token_hash = %s", (token_hash(token),))


def save_token(
    conn: Conn, tenant_id: UUID, grant_id: UUID, token: str, kind: str, scopes: Sequence[str], ttl_s: int
) -> None:
    conn.execute(
        "INSERT INTO oauth_tokens (token_hash, tenant_id, grant_id, kind, scopes, expires_at)"
        " VALUES (%s, %s, %s, %s, %s, now() + make_interval(secs => %s))",
        (token_hash(token), tenant_id, grant_id, kind, list(scopes), ttl_s),
    )


def drop_expired_tokens(conn: Conn, grant_id: UUID) -> None:
    """A grant's expired tokens: a rotated refresh token is kept until it expires (reuse detection)."""
    conn.execute("DELETE FROM oauth_tokens WHERE grant_id = %s AND expires_at < now()", (grant_id,))


def extend_grant(conn: Conn, grant_id: UUID, ttl_s: int) -> None:
    conn.execute(
        "UPDATE oauth_grants SET expires_at = now() + make_interval(secs => %s) WHERE id = %s", (ttl_s, grant_id)
    )


def revoke_grant(conn: Conn, grant_id: UUID) -> bool:
    """Revoke a grant and every token it issued; False when the tenant has no such grant."""
    row = conn.execute(
        "UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, now()) WHERE id = %s RETURNING id", (grant_id,)
    ).fetchone()
    if row is None:
        return False
    conn.execute("UPDATE oauth_tokens SET revoked_at = now() WHERE grant_id = %s AND revoked_at IS NULL", (grant_id,))
    return True


def revoke_token(conn: Conn, token: str) -> UUID | None:
    """Revoke one token; a refresh token takes its grant with it (RFC 7009 §2.1). Its grant's id."""
    cur = conn.cursor(row_factory=tuple_row)
    revoked: tuple[UUID, str] | None = cur.execute(
        "UPDATE oauth_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE token_hash = %s"
        " RETURNING grant_id, kind",
        (token_hash(token),),
    ).fetchone()
    if revoked is None:
        return None
    grant_id, kind = revoked
    if kind == "refresh":
        revoke_grant(conn, grant_id)
    return grant_id


def list_grants(conn: Conn) -> list[GrantInfo]:
    query = sql.SQL(
        "SELECT {} FROM oauth_grants g JOIN api_keys k ON k.id = g.key_id ORDER BY g.created_at DESC, g.id"
    ).format(select_list(GrantInfo, "g", expressions={"revoked_at": sql.SQL("COALESCE(g.revoked_at, k.revoked_at)")}))
    return conn.cursor(row_factory=class_row(GrantInfo)).execute(query).fetchall()


def authenticate_token(conn: Conn, token: str) -> TokenCaller | None:
    """An active access token's caller (definer function: no tenant is known yet)."""
    with conn.cursor(row_factory=class_row(TokenCaller)) as cur:
        query = sql.SQL("SELECT {} FROM engram_authenticate_token(%s)").format(select_list(TokenCaller))
        return cur.execute(query, (token_hash(token),)).fetchone()

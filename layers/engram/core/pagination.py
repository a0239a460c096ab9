"""Keyset pagination, newest first on (created_at, id): stable while rows are being added,
and each page is one index range scan however deep the caller pages."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from engram.core.errors import InvalidField

MAX_PAGE = 200


def encode_cursor(created_at: datetime, row_id: UUID) -> str:
    return base64.urlsafe_b64encode(f"{created_at.isoformat()}|{row_id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    try:
        created, rid = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        return datetime.fromisoformat(created), UUID(rid)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidField("cursor", "is not a cursor this API returned") from exc


def newest_first(conn: psycopg.Connection, *, select: str, filters: Iterable[tuple[str, Any]],
                 cursor: str | None, limit: int, alias: str = "") -> tuple[list[dict[str, Any]], str | None]:
    """Run `select` with the filters whose value is set; return one page and the next cursor.

    `filters` pairs an SQL condition holding one %s with its value; None/empty values are skipped.
    """
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidField("limit", f"must be between 1 and {MAX_PAGE}", limit=MAX_PAGE)
    col = f"{alias}." if alias else ""
    where, params = ["true"], []
    for clause, value in filters:
        if value:
            where.append(clause)
            params.append(value)
    if cursor:
        where.append(f"({col}created_at, {col}id) < (%s, %s)")
        params += list(decode_cursor(cursor))
    rows = conn.execute(
        f"{select} WHERE {' AND '.join(where)} ORDER BY {col}created_at DESC, {col}id DESC LIMIT %s",
        [*params, limit + 1],
    ).fetchall()
    page = rows[:limit]
    next_cursor = encode_cursor(page[-1]["created_at"], page[-1]["id"]) if len(rows) > limit else None
    return page, next_cursor

"""Keyset pagination, newest first on (created_at, id): stable while rows are being added,
and each page is one index range scan however deep the caller pages."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from datetime import datetime
from typing import Any, LiteralString, Protocol, TypeVar
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row

from engram.core.db import Conn
from engram.core.errors import InvalidField
from engram.core.models import bounded_timestamp

MAX_PAGE = 200


class Keyed(Protocol):
    """A row a page is keyed on."""

    @property
    def created_at(self) -> datetime: ...
    @property
    def id(self) -> UUID: ...


Row = TypeVar("Row", bound=Keyed)


def encode_cursor(created_at: datetime, row_id: UUID) -> str:
    return base64.urlsafe_b64encode(f"{created_at.isoformat()}|{row_id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    try:
        created, rid = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        return bounded_timestamp(datetime.fromisoformat(created)), UUID(rid)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidField("cursor", "is not a cursor this API returned") from exc


def newest_first(
    conn: Conn,
    row_type: type[Row],
    *,
    select: sql.Composable,
    filters: Iterable[tuple[LiteralString, Any]],
    cursor: str | None,
    limit: int,
    alias: str = "",
) -> tuple[list[Row], str | None]:
    """Run `select` with the filters whose value is set; return one page of `row_type` (read with
    class_row: `select` names its fields) and the next cursor.

    `filters` pairs a constant SQL condition with what fills its %s: a value for one, a tuple for
    several, True for a condition without any; a None, False or empty value skips the condition.
    `alias` is the table alias `select` gives the paged table, if any.
    """
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidField("limit", f"must be between 1 and {MAX_PAGE}", limit=MAX_PAGE)
    created_at, row_id = (
        (sql.Identifier(alias, "created_at"), sql.Identifier(alias, "id"))
        if alias
        else (sql.Identifier("created_at"), sql.Identifier("id"))
    )
    where: list[sql.Composable] = [sql.SQL("true")]
    params: list[Any] = []
    for clause, value in filters:
        if not value:
            continue
        where.append(sql.SQL(clause))
        if value is not True:
            params += list(value) if isinstance(value, tuple) else [value]
    if cursor:
        where.append(sql.SQL("({}, {}) < (%s, %s)").format(created_at, row_id))
        params += list(decode_cursor(cursor))
    query = sql.SQL("{select} WHERE {where} ORDER BY {created_at} DESC, {row_id} DESC LIMIT %s").format(
        select=select, where=sql.SQL(" AND ").join(where), created_at=created_at, row_id=row_id
    )
    rows = conn.cursor(row_factory=class_row(row_type)).execute(query, [*params, limit + 1]).fetchall()
    page = rows[:limit]
    next_cursor = encode_cursor(page[-1].created_at, page[-1].id) if len(rows) > limit else None
    return page, next_cursor

"""The SQL of documents, in the caller's transaction: a Tier 2 body (the documents row and its pages;
the memory and its chunks are memories.service's to write), what a question reads back (the memory's
source, its chunks, the pages that can match), and the upload rows. Rows come back typed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, scalar_row

from engram.core.db import Conn
from engram.core.select_lists import select_list
from engram.documents.models import UploadStatus

# Tier-2 pages (migration 0010): 64 Ki characters each, the next page's first 4 Ki repeated so a
# filter substring (<= 200 characters) crossing a border is whole in one page.
PAGE_CHARS = 65_536
PAGE_OVERLAP = 4_096
_WORD = re.compile(r"\w+")


def page_words(text: str) -> list[str]:
    """A page's distinct words as the span ranker sees them: \\w+ runs of the lowered text."""
    return sorted(set(_WORD.findall(text.lower())))


def insert_pages(conn: Conn, tenant_id: UUID, memory_id: UUID, body: str) -> int:
    """The body's pages in one statement. Sliced here: Postgres' substr on a long UTF-8 text walks
    from the first character on every call, which is quadratic over 800 pages."""
    starts = list(range(0, max(1, len(body)), PAGE_CHARS))
    pages = [body[s : s + PAGE_CHARS + PAGE_OVERLAP] for s in starts]
    conn.execute(
        "INSERT INTO document_pages (tenant_id, memory_id, page_no, char_start, text, words)"
        " SELECT %s, %s, p.n - 1, p.start, p.text, array_to_tsvector(string_to_array(p.words, ' '))"
        " FROM unnest(%s::bigint[], %s::text[], %s::text[]) WITH ORDINALITY AS p(start, text, words, n)",
        (tenant_id, memory_id, starts, pages, [" ".join(page_words(p)) for p in pages]),
    )
    return len(starts)


def insert_body(
    conn: Conn,
    tenant_id: UUID,
    memory_id: UUID,
    body: str,
    *,
    byte_size: int,
    sha256: bytes,
    content_type: str,
) -> None:
    """A Tier 2 body (the documents row) and its pages, for a memory written in the caller's transaction."""
    conn.execute(
        "INSERT INTO documents (tenant_id, memory_id, body, byte_size, sha256, content_type)"
        " VALUES (%s, %s, %s, %s, %s, %s)",
        (tenant_id, memory_id, body, byte_size, sha256, content_type),
    )
    insert_pages(conn, tenant_id, memory_id, body)


def count_chunks(conn: Conn, memory_id: UUID) -> int:
    with conn.cursor(row_factory=scalar_row) as cur:
        n: int | None = cur.execute("SELECT count(*) FROM chunks WHERE memory_id = %s", (memory_id,)).fetchone()
    return n or 0


# ---- what a question reads ----------------------------------------------------------------------


@dataclass(frozen=True)
class MemorySource:
    """An active memory's content (a document's synopsis, or its body for Tier 0) and its tier."""

    content: str
    document_tier: int | None


@dataclass(frozen=True)
class BodyPiece:
    """A run of a document's body at its character offset: a chunk, or a Tier-2 page (page_no set)."""

    char_start: int
    text: str
    page_no: int | None = None


@dataclass(frozen=True)
class PageTotals:
    pages: int
    chars: int  # the body's length: where the last page ends


@dataclass(frozen=True)
class TermPages:
    term: str
    pages: int  # how many of the body's pages hold the term (as a word prefix)


def memory_source(conn: Conn, memory_id: UUID) -> MemorySource | None:
    query = sql.SQL("SELECT {} FROM memories WHERE id = %s AND status = 'active'").format(select_list(MemorySource))
    with conn.cursor(row_factory=class_row(MemorySource)) as cur:
        return cur.execute(query, (memory_id,)).fetchone()


def document_body(conn: Conn, memory_id: UUID) -> str | None:
    with conn.cursor(row_factory=scalar_row) as cur:
        body: str | None = cur.execute("SELECT body FROM documents WHERE memory_id = %s", (memory_id,)).fetchone()
    return body


def memory_chunks(conn: Conn, memory_id: UUID) -> list[BodyPiece]:
    """The memory's chunks in body order (overlapping ones, from focused chunking, included)."""
    query = sql.SQL("SELECT {} FROM chunks WHERE memory_id = %s ORDER BY char_start, position").format(
        select_list(BodyPiece, leave_out=("page_no",))
    )
    with conn.cursor(row_factory=class_row(BodyPiece)) as cur:
        return cur.execute(query, (memory_id,)).fetchall()


def page_totals(conn: Conn, memory_id: UUID) -> PageTotals:
    """How many pages the body has (0: stored without pages) and its length in characters."""
    totals = {
        "pages": sql.SQL("count(*)"),
        "chars": sql.SQL(
            "coalesce(max(char_start + char_length(text)) FILTER"
            " (WHERE page_no = (SELECT max(page_no) FROM document_pages WHERE memory_id = %s)), 0)"
        ),
    }
    query = sql.SQL("SELECT {} FROM document_pages WHERE memory_id = %s").format(
        select_list(PageTotals, expressions=totals)
    )
    with conn.cursor(row_factory=class_row(PageTotals)) as cur:
        found = cur.execute(query, (memory_id, memory_id)).fetchone()
    return found or PageTotals(pages=0, chars=0)


def term_pages(conn: Conn, memory_id: UUID, terms: Sequence[str]) -> list[TermPages]:
    """For each term, in order, the number of pages whose words start with it."""
    pages = sql.SQL(
        "(SELECT count(*) FROM document_pages p WHERE p.memory_id = %s"
        " AND p.words @@ (quote_literal(t.term) || ':*')::tsquery)"
    )
    query = sql.SQL("SELECT {} FROM unnest(%s::text[]) AS t(term)").format(
        select_list(TermPages, "t", expressions={"pages": pages})
    )
    with conn.cursor(row_factory=class_row(TermPages)) as cur:
        return cur.execute(query, (memory_id, list(terms))).fetchall()


def matching_pages(
    conn: Conn, memory_id: UUID, terms: Sequence[str], needles: Sequence[str], *, case_sensitive: bool
) -> list[BodyPiece]:
    """The pages holding a term (as a word prefix) or a needle, with their neighbours (so a window
    around a hit is whole), in order; the first page when none holds any."""
    conds: list[sql.Composable] = []
    params: list[Any] = []
    if terms:
        conds.append(
            sql.SQL(
                "words @@ (SELECT string_agg(quote_literal(t) || ':*', ' | ') FROM unnest(%s::text[]) AS t)::tsquery"
            )
        )
        params.append(list(terms))
    for needle in needles:
        if case_sensitive:
            conds.append(sql.SQL("strpos(text, %s) > 0"))
            params.append(needle)
        else:
            conds.append(sql.SQL("strpos(lower(text), %s) > 0"))
            params.append(needle.lower())
    matched = sql.SQL("false") if not conds else sql.SQL(" OR ").join(conds)
    with conn.cursor(row_factory=class_row(BodyPiece)) as cur:
        return cur.execute(
            sql.SQL(
                "WITH hit AS (SELECT page_no FROM document_pages WHERE memory_id = %s AND ({matched}))"
                " SELECT {fields} FROM document_pages"
                " WHERE memory_id = %s AND (page_no IN (SELECT page_no + d FROM hit, (VALUES (-1), (0), (1)) AS v(d))"
                "  OR (page_no = 0 AND NOT EXISTS (SELECT 1 FROM hit)))"
                " ORDER BY page_no"
            ).format(matched=matched, fields=select_list(BodyPiece)),
            [memory_id, *params, memory_id],
        ).fetchall()


# ---- uploads ------------------------------------------------------------------------------------

_UPLOAD_STATUS = select_list(
    UploadStatus, expressions={"upload_id": sql.Identifier("id"), "size_bytes": sql.Identifier("declared_bytes")}
)


@dataclass(frozen=True)
class PendingUpload:
    """What an ingest reads of an upload it holds locked."""

    status: str
    namespace: str
    params: dict[str, Any]
    content_type: str
    declared_bytes: int
    sha256: bytes


def insert_upload(
    conn: Conn,
    tenant_id: UUID,
    *,
    namespace: str,
    size: int,
    sha256: bytes,
    content_type: str,
    params: dict[str, Any],
    expires_at: datetime,
    key_of: Callable[[UUID], str],
) -> UploadStatus:
    """A pending upload, its object key named by `key_of(upload_id)`."""
    with conn.cursor(row_factory=class_row(UploadStatus)) as cur:
        row = cur.execute(
            sql.SQL(
                "INSERT INTO document_uploads (id, tenant_id, namespace, declared_bytes, sha256, content_type,"
                " params, s3_key, expires_at) VALUES (gen_random_uuid(), %s, %s, %s, %s, %s, %s, '', %s)"
                " RETURNING {}"
            ).format(_UPLOAD_STATUS),
            (tenant_id, namespace, size, sha256, content_type, json.dumps(params), expires_at),
        ).fetchone()
    assert row is not None
    conn.execute("UPDATE document_uploads SET s3_key = %s WHERE id = %s", (key_of(row.upload_id), row.upload_id))
    return row


def upload_status(conn: Conn, upload_id: UUID) -> UploadStatus | None:
    with conn.cursor(row_factory=class_row(UploadStatus)) as cur:
        return cur.execute(
            sql.SQL("SELECT {} FROM document_uploads WHERE id = %s").format(_UPLOAD_STATUS), (upload_id,)
        ).fetchone()


def lock_upload(conn: Conn, upload_id: UUID) -> PendingUpload | None:
    """The upload under a row lock: duplicate deliveries of its event wait here, then find it settled."""
    query = sql.SQL("SELECT {} FROM document_uploads WHERE id = %s FOR UPDATE").format(select_list(PendingUpload))
    with conn.cursor(row_factory=class_row(PendingUpload)) as cur:
        return cur.execute(query, (upload_id,)).fetchone()


def fail_upload(conn: Conn, upload_id: UUID, reason: str) -> None:
    conn.execute(
        "UPDATE document_uploads SET status = 'failed', reason = %s, updated_at = now() WHERE id = %s",
        (reason, upload_id),
    )


def mark_upload_ready(conn: Conn, upload_id: UUID, memory_id: UUID, document_tier: int, deduplicated: bool) -> None:
    conn.execute(
        "UPDATE document_uploads SET status = 'ready', reason = NULL, memory_id = %s,"
        " document_tier = %s, deduplicated = %s, updated_at = now() WHERE id = %s",
        (memory_id, document_tier, deduplicated, upload_id),
    )


def expire_upload(conn: Conn, upload_id: UUID, reason: str) -> bool:
    """A pending upload -> failed with `reason`. Skips (False) an upload an ingest holds: it settles it."""
    return (
        conn.execute(
            "UPDATE document_uploads SET status = 'failed', reason = %s, updated_at = now() WHERE id ="
            " (SELECT id FROM document_uploads WHERE id = %s AND status = 'pending' FOR UPDATE SKIP LOCKED)"
            " RETURNING id",
            (reason, upload_id),
        ).fetchone()
        is not None
    )


def claim_resend(conn: Conn, upload_id: UUID, every: timedelta) -> bool:
    """True for the one caller that may send a pending upload's notification again now: none was sent
    in the last `every` (updated_at records the last), and no ingest holds the upload."""
    return (
        conn.execute(
            "UPDATE document_uploads SET updated_at = now() WHERE id ="
            " (SELECT id FROM document_uploads WHERE id = %s AND status = 'pending' AND updated_at < now() - %s"
            " FOR UPDATE SKIP LOCKED) RETURNING id",
            (upload_id, every),
        ).fetchone()
        is not None
    )

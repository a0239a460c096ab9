"""Tier-2 pages on real Postgres: the ingest writes them with the body, the migration's backfill
writes the same pages, and a question reads only the pages that can match (and their neighbours)
yet finds the spans a scan of the whole body finds."""

from __future__ import annotations

import random
import re
from pathlib import Path
from uuid import UUID

import psycopg
import pytest
from psycopg import sql

from engram.core.db import tenant_transaction
from engram.documents.models import QueryFilter, QueryRequest
from engram.documents.query import extract_spans, read_pages
from engram.documents.store import PAGE_CHARS, PAGE_OVERLAP

MIGRATION = Path(__file__).parents[3] / "layers/engram/schema/migrations/0010_document_pages.sql"
WORDS = [
    "river",
    "stone",
    "lantern",
    "harbor",
    "signal",
    "copper",
    "meadow",
    "ledger",
    "orbit",
    "canvas",
    "timber",
    "falcon",
    "quartz",
    "ember",
]


def _body(size: int) -> str:
    rng = random.Random(7)
    parts: list[str] = []
    n = 0
    while n < size:
        s = " ".join(rng.choice(WORDS) for _ in range(12)) + (".\n\n" if rng.random() < 0.2 else ". ")
        parts.append(s)
        n += len(s)
    text = "".join(parts)
    for at, marker in (
        (0.31, "The ferry to Quillon leaves at dawn; ask the pilot."),
        (0.77, "Pilot's call sign: KESTREL-NINE (ferry service)."),
    ):
        cut = int(size * at)
        text = text[:cut] + f"\n\n{marker}\n\n" + text[cut:]
    return text[:size]


@pytest.fixture
def tier2_small(settings_env):
    """Tier 2 from 64 KiB, so an inline body of ~1.5 MiB is paged (24 pages)."""
    settings_env(ENGRAM_DOCUMENT_TIER0_MAX_BYTES=str(16 * 1024), ENGRAM_DOCUMENT_TIER1_MAX_BYTES=str(64 * 1024))


def _pages(stack, memory_id: str) -> list[tuple[int, int, str]]:
    with psycopg.connect(stack.dsn) as conn:
        return [
            (r[0], r[1], r[2])
            for r in conn.execute(
                "SELECT page_no, char_start, text FROM document_pages WHERE memory_id = %s ORDER BY page_no",
                (memory_id,),
            ).fetchall()
        ]


def test_a_question_reads_only_matching_pages_and_finds_the_same_spans(api, tenant, stack, tier2_small):
    body = _body(1_500_000)
    r = api.post("/v1/documents", {"content": body, "namespace": "paged"})
    assert r.status in (200, 201), r.body
    assert r.body["document"]["tier"] == 2
    memory_id = r.body["memory"]["id"]

    pages = _pages(stack, memory_id)
    assert len(pages) == -(-len(body) // PAGE_CHARS)
    for page_no, start, text in pages:
        assert start == page_no * PAGE_CHARS and text == body[start : start + PAGE_CHARS + PAGE_OVERLAP]

    # the migration's backfill writes the same pages
    backfill = MIGRATION.read_text().split("INSERT INTO document_pages", 1)[1].strip().removesuffix(";")
    with psycopg.connect(stack.dsn) as conn:
        words = conn.execute(
            "SELECT array_agg(words::text ORDER BY page_no) FROM document_pages WHERE memory_id = %s", (memory_id,)
        ).fetchone()[0]
        conn.execute("DELETE FROM document_pages WHERE memory_id = %s", (memory_id,))
        conn.execute(
            sql.SQL("INSERT INTO document_pages {} WHERE d.memory_id = %s").format(sql.SQL(backfill)), (memory_id,)
        )
        assert (
            conn.execute(
                "SELECT array_agg(words::text ORDER BY page_no) FROM document_pages WHERE memory_id = %s",
                (memory_id,),
            ).fetchone()[0]
            == words
        )
    assert _pages(stack, memory_id) == pages

    requests = [
        QueryRequest(question="Where does the ferry to Quillon leave from?", answer=False),
        QueryRequest(question="What is the pilot's call sign?", answer=False, max_spans=3),
        QueryRequest(question="call sign", filter=QueryFilter(substrings=["kestrel-nine"]), answer=False),
        QueryRequest(question="ferry", filter=QueryFilter(substrings=["KESTREL"], case_sensitive=True), answer=False),
        QueryRequest(question="zeppelin unicorn", answer=False),  # nothing matches: the opening
    ]
    window = 600
    for req in requests:
        with tenant_transaction(UUID(tenant.id)) as conn:
            paged = read_pages(conn, UUID(memory_id), req, window)
        assert paged is not None and paged.pages_total == len(pages)
        # a hit page and its two neighbours per marker at most; the common words are left out
        assert len(paged.pages_read) <= 6, (req.question, paged.pages_read)
        assert not set(paged.terms) & {"signal", "river"}
        assert extract_spans(paged.runs, req, window, paged) == extract_spans([(0, body)], req, window), req

    # the API answers from the pages
    q = api.post(f"/v1/memories/{memory_id}/query", {"question": "What is the pilot's call sign?", "answer": False})
    assert q.status == 200 and q.body["source"] == "document"
    assert re.search("KESTREL-NINE", q.body["spans"][0]["text"])

    # a regex filter (Python syntax) still scans the whole body
    with tenant_transaction(UUID(tenant.id)) as conn:
        req = QueryRequest(question="sign", filter=QueryFilter(regex=r"KESTREL-\w+"), answer=False)
        assert read_pages(conn, UUID(memory_id), req, window) is None

    # a question word too long for a tsquery: the whole body is scanned, not a 500
    long_word = "kestrel" * 400
    with tenant_transaction(UUID(tenant.id)) as conn:
        assert read_pages(conn, UUID(memory_id), QueryRequest(question=long_word, answer=False), window) is None
    q = api.post(f"/v1/memories/{memory_id}/query", {"question": f"call sign {long_word}", "answer": False})
    assert q.status == 200 and q.body["source"] == "document"

"""Query-document: spans from the right source for the tier, ranked by relevance to the question, cut
to a hard budget, and an answer from Claude that cites them.

Sources: Tier 0 (and plain memories) the content; Tier 1 its chunks, stitched back into the body
by offset; Tier 2 the pages of the body that can match (`document_pages`, see `read_pages`), or
the whole body in `documents`. Candidate windows come from the filter's matches (regex under a
complexity and time guard, or substrings: documents.guard), else from where the question's terms
occur; each is scored BM25-style against the question (documents.ranking).

Budget (issue #195): 4 UTF-8 bytes per token, cut as documents.ranking.apply_budget says.
"""

from __future__ import annotations

import math
import re
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from engram.adapters import llm
from engram.core.db import Conn, tenant_transaction
from engram.core.errors import NotFound
from engram.documents import store
from engram.documents.guard import compile_guarded, regex_anchors, substring_anchors
from engram.documents.models import Citation, LlmInfo, QueryRequest, QueryResponse, Span
from engram.documents.ranking import (
    Piece,
    apply_budget,
    idf_of,
    question_terms,
    rank_windows,
    snap_to_words,
    stitch,
    term_hits,
)
from engram.documents.settings import document_settings

BYTES_PER_TOKEN = 4
_CITE = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")

SYSTEM_PROMPT = (
    "You answer questions about one document using only the numbered excerpts you are given. "
    "Cite the excerpt behind every statement with its number in square brackets, like [2]. "
    "If the excerpts do not contain the answer, say so plainly instead of guessing. Be concise."
)

# Postgres refuses a tsquery word of 2047 bytes or more ("word is too long in tsquery").
MAX_LEXEME = 2047


@dataclass
class Paged:
    """What a Tier-2 question read from `document_pages`: runs of the body (offset, text), the
    question's hits in them and the idf over the whole body's windows."""

    runs: list[tuple[int, str]]
    shared: list[tuple[dict[str, list[int]], dict[str, float]]]
    pages_read: list[int]
    pages_total: int
    terms: list[str]


def _pieces(rows: Iterable[store.BodyPiece]) -> list[tuple[int, str]]:
    """Chunks or pages back into runs of the body."""
    return stitch(Piece(char_start=r.char_start, text=r.text) for r in rows)


def read_pages(conn: Conn, memory_id: UUID, req: QueryRequest, window: int) -> Paged | None:
    """The pages that can hold a question term or a filter substring, and their neighbours (so a
    window around a hit is whole); None when the whole body must be scanned instead: a regex filter
    (Python syntax, no SQL counterpart), a non-ASCII term or case-insensitive non-ASCII substring
    (pages backfilled by migration 0010 and Postgres' lower() in the C locale know ASCII only), a
    term too long for a tsquery, or a body stored without pages.

    Rarity: a term on more than half of the pages is left out, as the whole-body ranker leaves out
    a term with more hits than half its windows; every hit of a kept term is in a page read, so
    its window document frequency (hence its idf) is the one the whole body gives.
    """
    flt = req.filter
    if flt is not None and flt.regex:
        return None
    terms = question_terms(req.question)
    needles = list(flt.substrings or []) if flt is not None else []
    case_sensitive = flt is not None and flt.case_sensitive
    if not all(t.isascii() and len(t) < MAX_LEXEME for t in terms) or (
        flt is not None and not case_sensitive and not all(n.isascii() for n in needles)
    ):
        return None
    totals = store.page_totals(conn, memory_id)
    if totals.pages == 0:
        return None
    kept: list[str] = []
    if terms:
        kept = [t.term for t in store.term_pages(conn, memory_id, terms) if t.pages * 2 <= totals.pages]
    pages = store.matching_pages(conn, memory_id, kept, needles, case_sensitive=case_sensitive)
    runs = _pieces(pages)
    stride = max(1, window // 2)
    n_windows = max(1, math.ceil(totals.chars / stride))
    max_hits = max(1_000, n_windows // 2)
    lowered = [text.lower() for _, text in runs]
    kept = [t for t in kept if sum(low.count(t) for low in lowered) <= max_hits]
    per_run = [term_hits(kept, text) for _, text in runs]
    df: dict[str, set[int]] = defaultdict(set)
    for (offset, _), hits in zip(runs, per_run, strict=True):
        for t, positions in hits.items():
            df[t].update((offset + p) // stride for p in positions)
    idf = idf_of({t: len(w) for t, w in df.items()}, n_windows)
    return Paged(
        runs=runs,
        shared=[(hits, idf) for hits in per_run],
        pages_read=[p.page_no for p in pages if p.page_no is not None],
        pages_total=totals.pages,
        terms=kept,
    )


def _load(
    conn: Conn, memory_id: UUID, req: QueryRequest, window: int
) -> tuple[int, Literal["content", "chunks", "document"], list[tuple[int, str]], Paged | None]:
    source = store.memory_source(conn, memory_id)
    if source is None:
        raise NotFound(f"memory {memory_id} not found")
    tier = source.document_tier or 0
    if tier == 2:
        paged = read_pages(conn, memory_id, req, window)
        if paged is not None:
            return tier, "document", paged.runs, paged
        body = store.document_body(conn, memory_id)
        if body is not None:
            return tier, "document", [(0, body)], None
    if tier == 1:
        chunks = store.memory_chunks(conn, memory_id)
        if chunks:
            return tier, "chunks", _pieces(chunks), None
    return tier, "content", [(0, source.content)], None


def extract_spans(
    segments: list[tuple[int, str]], req: QueryRequest, window: int, paged: Paged | None = None
) -> list[tuple[int, str, float]]:
    """Spans from each segment; with `paged`, the segments are runs of one Tier-2 body, ranked
    with the body's idf and on the body's window grid, so they give the spans the whole body gives."""
    s = document_settings()
    compiled = compile_guarded(req.filter) if req.filter and req.filter.regex else None
    deadline = time.monotonic() + s.query_regex_timeout_s
    ranked: list[tuple[int, str, float]] = []
    for i, (offset, text) in enumerate(segments):
        anchors: list[tuple[int, int]] | None = None
        if compiled is not None:
            anchors = regex_anchors(compiled, text, max(0.01, deadline - time.monotonic()))
        elif req.filter and req.filter.substrings:
            anchors = substring_anchors(req.filter.substrings, text, req.filter.case_sensitive)
        shared = paged.shared[i] if paged is not None else None
        for c in rank_windows(text, req.question, anchors, window, req.max_spans, offset=offset, shared=shared):
            start, end = snap_to_words(text, c.start, c.end)
            ranked.append((offset + start, text[start:end], c.score))
    if paged is not None and not ranked and not (req.filter and req.filter.substrings) and segments:
        offset, text = segments[0]  # nothing matched: the opening, as for the whole body
        if offset == 0 and text:
            start, end = snap_to_words(text, 0, min(len(text), window))
            ranked.append((start, text[start:end], 0.0))
    ranked.sort(key=lambda r: (-r[2], r[0]))
    return ranked[: req.max_spans]


def _citations(answer: str, spans: list[Span]) -> list[Citation]:
    by_n = {s.n: s for s in spans}
    seen: list[int] = []
    for group in _CITE.findall(answer):
        for part in re.split(r"\s*[,;]\s*", group):
            n = int(part)
            if n in by_n and n not in seen:
                seen.append(n)
    return [Citation(n=n, start=by_n[n].start, end=by_n[n].end) for n in seen]


def build_prompt(question: str, spans: list[Span]) -> str:
    parts = [f"Question: {question}", "", "Excerpts from the document:"]
    for s in spans:
        cut = " (cut short)" if s.truncated else ""
        parts.append(f"\n[{s.n}] (characters {s.start}-{s.end}{cut})\n{s.text}")
    parts.append("\nAnswer the question from these excerpts, citing them as [n].")
    return "\n".join(parts)


def query_document(tenant_id: UUID, memory_id: UUID, req: QueryRequest) -> QueryResponse:
    s = document_settings()
    window = req.window_chars or s.query_window_chars
    token_budget = req.token_budget or s.query_token_budget
    budget_bytes = token_budget * BYTES_PER_TOKEN
    if req.filter and req.filter.regex:
        compile_guarded(req.filter)  # a bad pattern is 422 before any body is read
    # A span never needs to be longer than the whole budget (one UTF-8 byte per character at least).
    span_window = max(100, min(window, budget_bytes))
    with tenant_transaction(tenant_id) as conn:
        tier, source, segments, paged = _load(conn, memory_id, req, span_window)
    ranked = extract_spans(segments, req, span_window, paged)
    del segments
    spans, used = apply_budget(ranked, budget_bytes)
    answer, citations, info, reason = None, [], None, None
    if not spans:
        reason = "no_spans: the filter matched nothing in this document"
    elif not req.answer:
        reason = "not_requested: answer=false"
    else:
        reason = llm.llm_unavailable()
        if reason is None:
            try:
                result = llm.complete(
                    tenant_id, "query_document", SYSTEM_PROMPT, build_prompt(req.question, spans), max_tokens=1024
                )
                answer = result.text
                citations = _citations(answer, spans)
                info = LlmInfo(
                    provider=result.provider,
                    model=result.model,
                    input_tokens=result.input_tokens,
                    output_tokens=result.output_tokens,
                    latency_ms=result.latency_ms,
                )
            except llm.LlmError as exc:
                reason = f"llm_error: {exc}"[:300]
    return QueryResponse(
        memory_id=memory_id,
        document_tier=tier,
        source=source,
        question=req.question,
        spans=spans,
        used_bytes=used,
        budget_bytes=budget_bytes,
        token_budget=token_budget,
        truncated=any(sp.truncated for sp in spans),
        answer=answer,
        citations=citations,
        llm=info,
        reason=reason,
    )

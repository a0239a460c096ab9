"""Query-document (seed 000 QueryDocument): spans from the right source for the tier, ranked by
relevance to the question, cut to a hard budget, and an answer from Claude that cites them.

Sources: Tier 0 (and plain memories) the content; Tier 1 its chunks, stitched back into the body
by offset; Tier 2 the pages of the body that can match (`document_pages`, see `read_pages`), or
the whole body in `documents`. Candidate windows come from the filter's matches (regex under a
complexity and time guard, or substrings), else from where the question's terms occur; each is
scored BM25-style against the question (the windows are the "documents").

Budget (issue #195): 4 UTF-8 bytes per token. Spans are taken best first; the one that does not
fit is cut at a character boundary to use what is left and marked `truncated` -- never dropped,
never appended empty.
"""

from __future__ import annotations

import bisect
import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from psycopg import sql

from engram.adapters import llm
from engram.core.config import settings
from engram.core.db import tenant_transaction
from engram.core.errors import InvalidField, NotFound
from engram.core.text import utf8_prefix
from engram.documents.models import Citation, LlmInfo, QueryFilter, QueryRequest, QueryResponse, Span

BYTES_PER_TOKEN = 4
MAX_ANCHORS = 10_000
BM25_K1 = 1.2
_STOP_WORDS = (
    "a an and are as at be but by can could did do does for from had has have how i if in into is it "
    "its me my no not of on or our she should so than that the their them then there these they this "
    "to was we were what when where which who whom why will with would you your about after before"
)
_STOP = frozenset(_STOP_WORDS.split())
_WORD = re.compile(r"\w+")
_SUFFIXES = ("ing", "ed", "es", "s", "ly")
_CITE = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")

SYSTEM_PROMPT = (
    "You answer questions about one document using only the numbered excerpts you are given. "
    "Cite the excerpt behind every statement with its number in square brackets, like [2]. "
    "If the excerpts do not contain the answer, say so plainly instead of guessing. Be concise."
)


class RegexRejected(InvalidField):
    pass


# ---- the regex guard --------------------------------------------------------------------------


def _nested_quantifier(pattern: str) -> bool:
    """True for a quantified group that itself contains a quantifier: (a+)+, (\\w*x)*, (?:a{2,})+ ..."""
    stack: list[bool] = []  # per open group: does it contain a quantifier?
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            stack.append(False)
        elif ch == ")" and stack:
            inner = stack.pop()
            nxt = pattern[i + 1 : i + 2]
            if inner and nxt in ("*", "+", "{"):
                return True
            if stack:
                stack[-1] = stack[-1] or inner
        elif ch in "*+{" and stack:
            stack[-1] = True
        i += 1
    return False


# The regex module unrolls a counted repeat when it compiles: a{99999999} asks for gigabytes.
MAX_REPEAT = 1000
_REPEAT = re.compile(r"\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")


def _largest_repeat(pattern: str) -> int:
    """The largest count of a {n}, {n,} or {n,m} quantifier outside a character class (0: none)."""
    largest, i, in_class = 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "{" and (m := _REPEAT.match(pattern, i)):
            largest = max([largest, *(int(n) for n in m.groups() if n)])
        i += 1
    return largest


def compile_guarded(flt: QueryFilter) -> Any:
    import regex

    pattern = flt.regex or ""
    if _largest_repeat(pattern) > MAX_REPEAT:
        raise RegexRejected(
            "filter.regex", f"a counted repeat like {{n}} or {{n,m}} may count to {MAX_REPEAT}", limit=MAX_REPEAT
        )
    if _nested_quantifier(pattern):
        raise RegexRejected(
            "filter.regex",
            "nested quantifiers like (a+)+ can take exponential time;"
            " rewrite the pattern without a quantified group that contains a quantifier",
        )
    try:
        return regex.compile(pattern, 0 if flt.case_sensitive else regex.IGNORECASE)
    except regex.error as exc:
        raise InvalidField("filter.regex", f"is not a valid regular expression: {exc}") from exc


def regex_anchors(compiled: Any, text: str, timeout_s: float) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    try:
        for m in compiled.finditer(text, timeout=timeout_s, concurrent=True):
            if m.end() > m.start():
                out.append((m.start(), m.end()))
                if len(out) >= MAX_ANCHORS:
                    break
    except TimeoutError as exc:
        raise RegexRejected(
            "filter.regex",
            f"matching took longer than {timeout_s:g} s and was stopped; use a simpler pattern or substrings",
        ) from exc
    return out


def substring_anchors(needles: list[str], text: str, case_sensitive: bool) -> list[tuple[int, int]]:
    hay = text if case_sensitive else text.lower()
    if len(hay) != len(text):  # a few characters change length when lowered: use a regex instead
        pattern = re.compile("|".join(re.escape(n) for n in needles), 0 if case_sensitive else re.IGNORECASE)
        return [(m.start(), m.end()) for m in pattern.finditer(text)][:MAX_ANCHORS]
    out: list[tuple[int, int]] = []
    for needle in needles:
        n = needle if case_sensitive else needle.lower()
        pos = hay.find(n)
        while pos != -1 and len(out) < MAX_ANCHORS:
            out.append((pos, pos + len(n)))
            pos = hay.find(n, pos + 1)
    return sorted(out)


# ---- ranking ----------------------------------------------------------------------------------


def question_terms(question: str) -> list[str]:
    terms: list[str] = []
    for word in _WORD.findall(question.lower()):
        if word in _STOP or len(word) < 2:
            continue
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word = word[: -len(suffix)]
                break
        if word not in terms:
            terms.append(word)
    return terms[:16]


def term_hits(terms: list[str], text: str, max_hits: int | None = None) -> dict[str, list[int]]:
    """Positions where each term (as a word prefix: a crude stemmer) occurs, case-insensitively.

    A term occurring more than `max_hits` times (counted in C first) is left out: it is in most
    windows, so its idf is near zero, and collecting a million positions in Python costs seconds.
    """
    lowered_text = text.lower()  # matching lowered text is ~2x faster than IGNORECASE on 40 MiB
    if max_hits is not None:
        terms = [t for t in terms if lowered_text.count(t) <= max_hits]
    if not terms:
        return {}
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    if len(lowered_text) == len(text):
        pattern, text = re.compile(r"\b(" + alternatives + ")"), lowered_text
    else:  # a few characters change length when lowered: keep offsets exact
        pattern = re.compile(r"\b(" + alternatives + ")", re.IGNORECASE)
    hits: dict[str, list[int]] = defaultdict(list)
    lowered = {t: t for t in terms}
    for m in pattern.finditer(text):
        term = lowered.get(m.group(1).lower())
        if term:
            hits[term].append(m.start())
    return hits


@dataclass
class Candidate:
    start: int
    end: int
    score: float


def _snap(text: str, start: int, end: int, slack: int = 40) -> tuple[int, int]:
    """Move the edges to nearby whitespace so spans start and end on whole words."""
    if start > 0:
        ws = text.find(" ", start, min(end, start + slack))
        nl = text.find("\n", start, min(end, start + slack))
        cut = min(x for x in (ws, nl, end) if x != -1)
        if cut < end:
            start = cut + 1
    if end < len(text):
        cut = max(text.rfind(" ", max(start, end - slack), end), text.rfind("\n", max(start, end - slack), end))
        if cut > start:
            end = cut
    return start, end


def idf_of(df: dict[str, int], n_windows: int) -> dict[str, float]:
    return {t: math.log(1 + (n_windows - d + 0.5) / (d + 0.5)) for t, d in df.items()}


def rank_windows(
    text: str,
    question: str,
    anchors: list[tuple[int, int]] | None,
    window: int,
    max_spans: int,
    *,
    offset: int = 0,
    shared: tuple[dict[str, list[int]], dict[str, float]] | None = None,
) -> list[Candidate]:
    """Best non-overlapping windows. anchors=None: no filter, windows come from the question's terms.

    `text` is the body, or (paged Tier 2) the run of it that starts at `offset`, with `shared`
    giving its hits (positions in `text`) and the idf computed over the whole body's windows.
    """
    stride = max(1, window // 2)
    if shared is None:
        n_windows = max(1, math.ceil(len(text) / stride))
        hits = term_hits(question_terms(question), text, max_hits=max(1_000, n_windows // 2))
        idf = idf_of({t: len({p // stride for p in positions}) for t, positions in hits.items()}, n_windows)
    else:
        hits, idf = shared

    def bm25(start: int, end: int) -> float:
        score = 0.0
        for t, positions in hits.items():
            tf = bisect.bisect_left(positions, end) - bisect.bisect_left(positions, start)
            if tf:
                score += idf[t] * tf * (BM25_K1 + 1) / (tf + BM25_K1)
        return score

    candidates: list[Candidate] = []
    if anchors is not None:
        for a_start, a_end in anchors:
            pad = max(0, window - (a_end - a_start)) // 2
            start = max(0, a_start - pad)
            end = min(len(text), max(a_end, start + window))
            candidates.append(Candidate(start, end, 1.0 + bm25(start, end)))
    else:
        grid = {(offset + p) // stride for positions in hits.values() for p in positions}
        every = sorted(p for positions in hits.values() for p in positions)
        for k in sorted(grid | {g - 1 for g in grid if g > 0}):
            start = max(0, k * stride - offset)
            end = min(len(text), start + window)
            score = bm25(start, end)
            inside = every[bisect.bisect_left(every, start) : bisect.bisect_left(every, end)]
            if inside:  # centre the span on its hits, so a budget cut keeps what matched
                centre = (inside[0] + inside[-1]) // 2
                start = max(0, min(centre - window // 2, len(text) - window))
                end = min(len(text), start + window)
            candidates.append(Candidate(start, end, score))
        if not candidates and text and shared is None:
            candidates.append(Candidate(0, min(len(text), window), 0.0))  # nothing matched: the opening
    return best_disjoint(candidates, max_spans)


def best_disjoint(candidates: list[Candidate], max_spans: int) -> list[Candidate]:
    """Highest score first (earliest on ties), skipping any window that overlaps one already chosen."""
    chosen: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: (-c.score, c.start)):
        if all(c.end <= o.start or c.start >= o.end for o in chosen):
            chosen.append(c)
            if len(chosen) >= max_spans:
                break
    return chosen


def apply_budget(spans: list[tuple[int, str, float]], budget_bytes: int) -> tuple[list[Span], int]:
    """Best first until the budget; the last span is cut at a UTF-8 boundary, never dropped or empty."""
    out: list[Span] = []
    used = 0
    for start, text, score in spans:
        size = len(text.encode())
        room = budget_bytes - used
        if room <= 0:
            break
        if size <= room:
            out.append(
                Span(
                    n=len(out) + 1,
                    start=start,
                    end=start + len(text),
                    text=text,
                    truncated=False,
                    score=round(score, 4),
                )
            )
            used += size
            continue
        cut = utf8_prefix(text, room)
        if cut:  # the guard after the walk-back: no zero-length span
            out.append(
                Span(n=len(out) + 1, start=start, end=start + len(cut), text=cut, truncated=True, score=round(score, 4))
            )
            used += len(cut.encode())
        break
    return out, used


# ---- sources ----------------------------------------------------------------------------------


def _stitch(rows: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """Chunks back into runs of the body: (offset, text); overlapping (focused) chunks are merged."""
    segments: list[tuple[int, list[str], int]] = []
    for r in rows:
        start, text = r["char_start"], r["text"]
        if segments and start <= segments[-1][2]:
            offset, parts, end = segments[-1]
            if start + len(text) > end:
                parts.append(text[end - start :])
                segments[-1] = (offset, parts, start + len(text))
        else:
            segments.append((start, [text], start + len(text)))
    return [(offset, "".join(parts)) for offset, parts, _ in segments]


@dataclass
class Paged:
    """What a Tier-2 question read from `document_pages`: runs of the body (offset, text), the
    question's hits in them and the idf over the whole body's windows."""

    runs: list[tuple[int, str]]
    shared: list[tuple[dict[str, list[int]], dict[str, float]]]
    pages_read: list[int]
    pages_total: int
    terms: list[str]


def _stitch_pages(rows: list[dict[str, Any]]) -> list[tuple[int, str]]:
    return _stitch([{"char_start": r["char_start"], "text": r["text"]} for r in rows])


# Postgres refuses a tsquery word of 2047 bytes or more ("word is too long in tsquery").
MAX_LEXEME = 2047


def read_pages(conn: Any, memory_id: UUID, req: QueryRequest, window: int) -> Paged | None:
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
    if not all(t.isascii() and len(t) < MAX_LEXEME for t in terms) or (
        flt is not None and not flt.case_sensitive and not all(n.isascii() for n in needles)
    ):
        return None
    total = conn.execute(
        "SELECT count(*) AS n, coalesce(max(char_start + char_length(text)) FILTER"
        " (WHERE page_no = (SELECT max(page_no) FROM document_pages WHERE memory_id = %s)), 0) AS chars"
        " FROM document_pages WHERE memory_id = %s",
        (memory_id, memory_id),
    ).fetchone()
    if total is None or total["n"] == 0:
        return None
    n_pages, n_chars = total["n"], total["chars"]
    kept: list[str] = []
    if terms:
        counts = conn.execute(
            "SELECT t.term, (SELECT count(*) FROM document_pages p WHERE p.memory_id = %s"
            "  AND p.words @@ (quote_literal(t.term) || ':*')::tsquery) AS pages"
            " FROM unnest(%s::text[]) AS t(term)",
            (memory_id, terms),
        ).fetchall()
        kept = [r["term"] for r in counts if r["pages"] * 2 <= n_pages]
    conds: list[sql.Composable] = []
    params: list[Any] = []
    if kept:
        conds.append(
            sql.SQL(
                "words @@ (SELECT string_agg(quote_literal(t) || ':*', ' | ') FROM unnest(%s::text[]) AS t)::tsquery"
            )
        )
        params.append(kept)
    for needle in needles:
        if flt is not None and flt.case_sensitive:
            conds.append(sql.SQL("strpos(text, %s) > 0"))
            params.append(needle)
        else:
            conds.append(sql.SQL("strpos(lower(text), %s) > 0"))
            params.append(needle.lower())
    matched = sql.SQL("false") if not conds else sql.SQL(" OR ").join(conds)
    rows = conn.execute(
        sql.SQL(
            "WITH hit AS (SELECT page_no FROM document_pages WHERE memory_id = %s AND ({matched}))"
            " SELECT page_no, char_start, text FROM document_pages"
            " WHERE memory_id = %s AND (page_no IN (SELECT page_no + d FROM hit, (VALUES (-1), (0), (1)) AS v(d))"
            "  OR (page_no = 0 AND NOT EXISTS (SELECT 1 FROM hit)))"
            " ORDER BY page_no"
        ).format(matched=matched),
        [memory_id, *params, memory_id],
    ).fetchall()
    runs = _stitch_pages(rows)
    stride = max(1, window // 2)
    n_windows = max(1, math.ceil(n_chars / stride))
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
        pages_read=[r["page_no"] for r in rows],
        pages_total=n_pages,
        terms=kept,
    )


def _load(
    conn: Any, memory_id: UUID, req: QueryRequest, window: int
) -> tuple[int, Literal["content", "chunks", "document"], list[tuple[int, str]], Paged | None]:
    row = conn.execute(
        "SELECT content, document_tier FROM memories WHERE id = %s AND status = 'active'", (memory_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"memory {memory_id} not found")
    tier = row["document_tier"] or 0
    if tier == 2:
        paged = read_pages(conn, memory_id, req, window)
        if paged is not None:
            return tier, "document", paged.runs, paged
        doc = conn.execute("SELECT body FROM documents WHERE memory_id = %s", (memory_id,)).fetchone()
        if doc is not None:
            return tier, "document", [(0, doc["body"])], None
    if tier == 1:
        rows = conn.execute(
            "SELECT char_start, text FROM chunks WHERE memory_id = %s ORDER BY char_start, position", (memory_id,)
        ).fetchall()
        if rows:
            return tier, "chunks", _stitch(rows), None
    return tier, "content", [(0, row["content"])], None


def extract_spans(
    segments: list[tuple[int, str]], req: QueryRequest, window: int, paged: Paged | None = None
) -> list[tuple[int, str, float]]:
    """Spans from each segment; with `paged`, the segments are runs of one Tier-2 body, ranked
    with the body's idf and on the body's window grid, so they give the spans the whole body gives."""
    s = settings()
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
            start, end = _snap(text, c.start, c.end)
            ranked.append((offset + start, text[start:end], c.score))
    if paged is not None and not ranked and not (req.filter and req.filter.substrings) and segments:
        offset, text = segments[0]  # nothing matched: the opening, as for the whole body
        if offset == 0 and text:
            start, end = _snap(text, 0, min(len(text), window))
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
    s = settings()
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

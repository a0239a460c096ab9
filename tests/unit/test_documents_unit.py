"""Documents without a database: tiering, synopsis, chunking modes, UTF-8 cuts, regex guard, budget."""

from __future__ import annotations

import pytest

from engram.core.errors import InvalidField, TooLarge
from engram.core.text import utf8_prefix
from engram.documents.guard import _nested_quantifier, compile_guarded
from engram.documents.models import HARD_MAX_BYTES, QueryFilter, Span
from engram.documents.prepare import build_synopsis, classify, normalise_content_type
from engram.documents.query import _citations
from engram.documents.ranking import apply_budget, question_terms, rank_windows
from engram.documents.ranking import stitch as _stitch
from engram.indexing.chunking import _TOKEN, chunk, chunk_focused, chunk_text


def test_classify_boundaries():
    assert classify(500 * 1024) == 0 and classify(500 * 1024 + 1) == 1
    assert classify(8 * 1024 * 1024) == 1 and classify(8 * 1024 * 1024 + 1) == 2
    assert classify(HARD_MAX_BYTES) == 2
    with pytest.raises(TooLarge):
        classify(HARD_MAX_BYTES + 1)


def test_thresholds_are_configurable_but_not_the_hard_limit(monkeypatch):
    from engram.core import config

    monkeypatch.setenv("ENGRAM_DOCUMENT_TIER0_MAX_BYTES", "2048")
    monkeypatch.setenv("ENGRAM_DOCUMENT_TIER1_MAX_BYTES", str(100 * 1024 * 1024))
    config.reload_settings()
    try:
        assert classify(2049) == 1 and classify(HARD_MAX_BYTES) == 1
        with pytest.raises(TooLarge):
            classify(HARD_MAX_BYTES + 1)
    finally:
        monkeypatch.undo()
        config.reload_settings()


def test_utf8_prefix_never_splits_a_character():
    text = "ab€😀c"
    assert [utf8_prefix(text, n) for n in range(11)] == [
        "",
        "a",
        "ab",
        "ab",
        "ab",
        "ab€",
        "ab€",
        "ab€",
        "ab€",
        "ab€😀",
        "ab€😀c",
    ]


def test_synopsis_is_8kib_head_and_h1_h2_outline_capped():
    body = "# Title\n" + "é" * 5000 + "\n### not h3\n" + "".join(f"## Heading {i}\n\ntext\n" for i in range(400))
    syn = build_synopsis(body)
    head, marker, outline = syn.partition("\n\n--- Outline ---\n")
    assert marker and body.startswith(head) and len(head.encode()) <= 8192 and len(head.encode()) >= 8190
    lines = outline.split("\n")
    assert lines[0] == "# Title" and lines[1] == "## Heading 0" and "### not h3" not in outline
    assert len(outline.encode()) <= 2048
    assert build_synopsis("plain text, no headings") == "plain text, no headings"


def test_content_types():
    assert normalise_content_type("text/markdown; charset=UTF-8") == "text/markdown"
    assert normalise_content_type("text/plain") == "text/plain"
    for bad in ("application/pdf", "text/html", "text/plain; charset=latin-1"):
        with pytest.raises(Exception) as exc:
            normalise_content_type(bad)
        assert getattr(exc.value, "status", None) == 415


def test_chunk_modes():
    assert len(chunk("short text " * 100)) == 1  # under 8 KB: one chunk, both modes
    assert len(chunk("short text " * 100, "focused")) == 1
    text = "\n\n".join(f"## Part {i}\n\n" + "A sentence with some words in it. " * 40 for i in range(30))
    doc = chunk_text(text)
    assert all(len(c.text) <= 2000 for c in doc) and "".join(c.text for c in doc).strip() == text.strip()
    assert sum(c.text.startswith("## Part") for c in doc) >= 15  # cuts prefer headings
    focused = chunk_focused(text)
    counts = [len(_TOKEN.findall(c.text)) for c in focused]
    assert all(n == 512 for n in counts[:-1]) and counts[-1] <= 512
    first, second = _TOKEN.findall(focused[0].text), _TOKEN.findall(focused[1].text)
    assert first[-50:] == second[:50]
    assert all(text[c.char_start : c.char_start + len(c.text)] == c.text for c in focused)
    with pytest.raises(ValueError):
        chunk(text, "other")


def test_stitch_rebuilds_the_body_from_overlapping_chunks():
    text = "word " * 5000
    rows = [{"char_start": c.char_start, "text": c.text} for c in chunk_focused(text)]
    [(offset, rebuilt)] = _stitch(rows)
    assert offset == 0 and rebuilt == text.rstrip()


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w*x)*", r"(?:a{2,})+", r"((ab)*c)+", r"(a|b+)*"])
def test_nested_quantifiers_are_flagged(pattern):
    assert _nested_quantifier(pattern)
    with pytest.raises(InvalidField):
        compile_guarded(QueryFilter(regex=pattern))


@pytest.mark.parametrize("pattern", [r"error \d+", r"(foo|bar)+", r"[(a+)]+", r"\(a+\)+", r"(ab)?c*"])
def test_ordinary_patterns_pass(pattern):
    assert not _nested_quantifier(pattern)


@pytest.mark.parametrize("pattern", [r"a{99999999}", r"a{2,99999999}", r"(?:ab){0,1001}", r"x{,5000}"])
def test_huge_counted_repeats_are_refused_before_compiling(pattern):
    with pytest.raises(InvalidField):
        compile_guarded(QueryFilter(regex=pattern))


@pytest.mark.parametrize("pattern", [r"a{1000}", r"a{2,}", r"\{99999999}", r"[{99999999}]", r"id-\d{4,8}"])
def test_small_or_literal_counts_pass(pattern):
    assert compile_guarded(QueryFilter(regex=pattern)) is not None


def test_budget_truncates_the_last_span_never_drops_or_empties_it():
    spans = [(0, "x" * 10, 3.0), (100, "日本語テキスト", 2.0), (200, "never reached", 1.0)]
    out, used = apply_budget(spans, 17)  # 10 + 7 bytes: two whole characters (6 bytes) fit, a third would not
    assert [s.text for s in out] == ["x" * 10, "日本"] and out[-1].truncated and used == 16
    out, used = apply_budget(spans, 12)  # 2 bytes left: not even one character -> no empty span
    assert [s.text for s in out] == ["x" * 10] and not out[0].truncated
    out, used = apply_budget([(0, "😀😀", 1.0)], 5)
    assert out[0].text == "😀" and out[0].truncated and out[0].end == 1 and used == 4


def test_ranking_prefers_the_passage_with_more_question_terms():
    text = ("filler " * 300) + "the boiler pressure valve " + ("filler " * 300) + "boiler " + ("filler " * 300)
    best = rank_windows(text, "Where is the boiler pressure valve?", None, 200, 3)
    assert "valve" in text[best[0].start : best[0].end]
    assert question_terms("What is the running status of the deployed services?") == [
        "runn",
        "statu",
        "deploy",
        "servic",
    ]


def test_citations_map_only_to_given_spans():
    spans = [
        Span(n=1, start=0, end=5, text="a", truncated=False, score=1),
        Span(n=2, start=9, end=12, text="b", truncated=False, score=1),
    ]
    cites = _citations("See [2] and [1, 2] but not [7].", spans)
    assert [(c.n, c.start) for c in cites] == [(2, 9), (1, 0)]


def test_a_term_in_every_window_is_left_out_of_scoring_but_the_rare_one_wins():
    from engram.documents.ranking import rank_windows, term_hits

    filler = "sign here and signal there. " * 4000
    text = filler + "The ferry leaves from pier 14. " + filler
    hits = term_hits(["sign", "pier"], text, max_hits=1_000)
    assert set(hits) == {"pier"}  # 16,000 'sign' hits would each have cost Python work, for no weight
    [best, *_] = rank_windows(text, "Which pier must I sign at?", None, 600, 3)
    assert "pier 14" in text[best.start : best.end]

"""Topic distillation's pure parts: which members overlap, which details a distilled text must keep,
and the LLM's answer checked strictly."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from uuid import uuid4

import pytest

from engram.consolidation.distilling import (
    LeafOverlap,
    details,
    distill_prompt,
    leaf_overlap,
    members_to_send,
    missing_details,
    names,
    parse_distillation,
)
from engram.consolidation.memory_store import MemoryRow
from engram.consolidation.merging import UnusableAnswer

A = "The payments service deploys from the release-2025 branch every Tuesday at 14:00 UTC."
B = "Every Tuesday at 14:00 UTC the payments service is deployed from the release-2025 branch."
C = "Maria Lopez owns the payments on-call until 30 November 2026."
D = "The garden robin sings at dawn."


def test_names_are_capitalised_inside_a_sentence_or_inside_a_word() -> None:
    found = names("The VPN gateway of the Berlin office runs PostgreSQL. Use it. Ask Maria; she knows iOS.")
    assert found == {"vpn", "berlin", "postgresql", "maria", "ios"}  # not "The", "Use", "Ask": sentence starts
    assert names("- Deploy on Friday\n- Rollback by Anna") == {"friday", "anna"}


def test_details_are_numbers_ids_and_names() -> None:
    assert details(A) == {"release-2025", "14:00", "tuesday", "utc"}
    assert details(C) >= {"30", "2026", "november", "lopez"}


def test_a_distilled_text_missing_a_detail_is_found_out_case_blind() -> None:
    assert missing_details([A, B], "the PAYMENTS service deploys from release-2025 every tuesday at 14:00 utc") == set()
    assert missing_details([A, C], A) == details(C) - details(A)
    assert missing_details([A], A.replace("14:00 ", "")) == {"14:00"}


def test_members_overlap_by_their_closest_other_member() -> None:
    overlap = leaf_overlap([A, B, C, D], 0.4)
    assert overlap.overlapping == [0, 1]
    assert overlap.best[0] == overlap.best[1] > 0.6 and overlap.best[3] < 0.2
    assert leaf_overlap([A], 0.4).overlapping == []


def test_members_to_send_fit_the_budget_most_overlapping_first() -> None:
    overlap = LeafOverlap(overlapping=[1, 2], best=[0.1, 0.9, 0.8, 0.3])
    texts = ["x" * 100] * 4
    assert members_to_send(texts, overlap, 10_000) == [0, 1, 2, 3]
    assert members_to_send(texts, overlap, 250) == [1, 2]  # the two closest; in the leaf's order
    assert members_to_send(texts, overlap, 10) == [1, 2]  # two go whatever their size


def test_the_prompt_numbers_members_from_one() -> None:
    now = datetime.now(UTC)
    member = MemoryRow(
        id=uuid4(),
        namespace="default",
        kind="semantic",
        layer="working",
        content=A,
        importance=0.5,
        tags=[],
        source=None,
        access_count=0,
        repetition_count=0,
        last_accessed=None,
        created_at=now,
        updated_at=now,
        valid_from=now,
        valid_to=None,
        status="active",
        layer_epoch=None,
        gate_rejections=0,
        gate_retry_epoch=None,
        version=1,
        image={},
    )
    prompt = distill_prompt([member])
    assert "[1] (working, semantic, importance 0.50) " + A in prompt


def _answer(*entries: object) -> str:
    return "Here you are: " + json.dumps({"distilled": list(entries)})


def test_a_good_answer_is_parsed_into_distilled_memories() -> None:
    got = parse_distillation(_answer({"sources": [2, 1], "content": f" {A} "}), [A, B, C], 1000)
    assert [(d.sources, d.content) for d in got] == [([0, 1], A)]
    assert parse_distillation('{"distilled": []}', [A, B], 1000) == []


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("no json here", "no JSON"),
        ('{"merged": []}', '"distilled"'),
        (_answer({"sources": [1], "content": A}), "two or more"),
        (_answer({"sources": [1, 4], "content": A}), "from 1 to 3"),
        (_answer({"sources": [1, 2], "content": A}, {"sources": [2, 3], "content": A + C}), "memory 2 is in two"),
        (_answer({"sources": [1, 2], "content": "  "}), "no content"),
        (_answer({"sources": ["1", "2"], "content": A}), "list of memory numbers"),
        (_answer({"sources": [1, 3], "content": A}), "drops details"),
        (_answer({"sources": [1, 2], "content": A.replace("14:00", "2pm")}), "14:00"),
        (_answer({"sources": [1, 2], "content": A * 40}), "the limit is 1000"),
    ],
)
def test_a_bad_answer_is_refused_with_its_reason(answer: str, why: str) -> None:
    with pytest.raises(UnusableAnswer, match=why):
        parse_distillation(answer, [A, B, C], 1000)


def test_overlap_of_all_pairs_at_once_is_the_pairwise_token_jaccard() -> None:
    import random

    from engram.consolidation.similarity import jaccard, tokens

    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(40)] + ["port 5432", "db-01", "Berlin"]
    texts = [" ".join(rng.sample(vocab, rng.randint(1, 12))) for _ in range(60)] + ["!!!", "?"]
    got = leaf_overlap(texts, 0.3)
    sets = [tokens(t) for t in texts]
    want = [max(jaccard(a, b) if a or b else 0.0 for j, b in enumerate(sets) if j != i) for i, a in enumerate(sets)]
    assert got.best == pytest.approx(want, abs=1e-6)
    assert got.overlapping == [i for i, w in enumerate(want) if w >= 0.3 - 1e-9]


def test_a_date_is_kept_whole_whichever_way_it_is_written() -> None:
    from engram.consolidation.distilling import dates

    assert dates("Until 5 March 2026, then March 7th, 2026, the 3rd of May 2026 and Sept. 9 2025.") == {
        "date:5 mar 2026",
        "date:7 mar 2026",
        "date:3 may 2026",
        "date:9 sep 2025",
    }
    sources = ["Sam owns billing until 5 March 2026.", "Priya owns search until 3 May 2026."]
    reworded = "Sam owns billing until March 5, 2026; Priya owns search until 3 May 2026."
    assert missing_details(sources, reworded) == set()
    # The first date lost its year: "2026" is there once for two dates, and "5 March 2026" not at all.
    assert missing_details(sources, "Sam owns billing until 5 March. Priya owns search until 3 May 2026.") == {
        "date:5 mar 2026",
        "2026",
    }


def test_a_detail_two_different_sources_state_must_be_there_twice() -> None:
    reporting = "Failed reporting calls are retried 4 times, waiting 10 seconds between tries."
    payments = "Failed payments calls are retried 5 times, waiting 10 seconds between tries."
    lossy = "Reporting calls are retried 4 times, waiting seconds. Payments calls: 5 times, 10 seconds apart."
    assert missing_details([reporting, payments], lossy) == {"10"}
    both = "Reporting calls are retried 4 times, 10 seconds apart; payments calls 5 times, 10 seconds apart."
    assert missing_details([reporting, payments], both) == set()
    # A restatement, or a fuller version, of a source counts as that source: one "10" will do.
    fuller = "Failed reporting calls are retried 4 times, waiting 10 seconds, then page Ken Ito."
    restated = "Reporting calls: retried 4 times, 10 seconds between tries."
    assert missing_details([reporting, restated, fuller], fuller) == set()


def test_template_words_common_in_the_namespace_do_not_make_facts_overlap() -> None:
    from engram.consolidation.similarity import common_tokens

    facts = [f"The {s} service caches responses in Redis for {n} seconds." for s, n in (("auth", 30), ("billing", 60))]
    twins = [A, B]
    namespace = facts * 20 + twins
    common = common_tokens(namespace, share=0.005, floor=5)
    assert leaf_overlap(facts, 0.4).overlapping == [0, 1]  # every word but two shared
    assert leaf_overlap(facts, 0.4, common).overlapping == []  # only the service and the number differ
    assert leaf_overlap(twins, 0.4, common).overlapping == [0, 1]

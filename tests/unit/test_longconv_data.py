"""The long-conversation benchmark's data keeps the promises its figures rest on."""

from __future__ import annotations

import hashlib
import re

import pytest

from bench.quality.longconv_data import Conversation, conversations, generate

# Words that carry no content (and the question's own frame words).
STOP = frozenset(
    re.findall(
        r"\w+",
        "a an the and or of in on at to for is are was were be been do does did has have had what which who when where"
        " how this that it its his her their there from with as by not now after before than into",
    )
)


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOP and len(w) > 2}


@pytest.fixture(scope="module")
def splits() -> dict[str, list[Conversation]]:
    return {split: conversations(split) for split in ("train", "heldout")}


def test_deterministic() -> None:
    a, b = generate("heldout", 1), generate("heldout", 1)
    assert [[t.content for t in s] for s in a.sessions] == [[t.content for t in s] for s in b.sessions]
    assert [q.text for q in a.questions] == [q.text for q in b.questions]


def test_long_multi_session_conversations(splits: dict[str, list[Conversation]]) -> None:
    for convs in splits.values():
        for c in convs:
            assert 300 <= c.turns <= 700
            assert len(c.sessions) >= 24
            starts = [s[0].created_at for s in c.sessions]
            assert starts == sorted(starts) and len(set(starts)) == len(starts)


def test_splits_share_no_speaker(splits: dict[str, list[Conversation]]) -> None:
    train = {n for c in splits["train"] for n in c.speakers}
    heldout = {n for c in splits["heldout"] for n in c.speakers}
    assert not train & heldout


def test_every_kind_and_evidence_turns_are_spoken_by_the_person_asked_about(
    splits: dict[str, list[Conversation]],
) -> None:
    for convs in splits.values():
        kinds = {q.qtype for c in convs for q in c.questions}
        assert kinds == {"single", "multi", "temporal", "inference"}
        for c in convs:
            for q in c.questions:
                person = next(n for n in c.speakers if n in q.text)
                for s, seq in q.evidence:
                    assert c.sessions[s][seq - 1].speaker == person, (q.text, c.sessions[s][seq - 1].content)


def test_multi_hop_spans_sessions(splits: dict[str, list[Conversation]]) -> None:
    for c in splits["heldout"]:
        for q in c.questions:
            if q.qtype == "multi":
                assert 2 <= len(q.evidence) <= 4
                assert len({s for s, _ in q.evidence}) == len(q.evidence)


def test_inference_questions_share_no_content_word_with_their_evidence(splits: dict[str, list[Conversation]]) -> None:
    for convs in splits.values():
        for c in convs:
            for q in c.questions:
                if q.qtype != "inference":
                    continue
                asked = content_words(q.text) - {w.lower() for w in c.speakers}
                for s, seq in q.evidence:
                    assert not asked & content_words(c.sessions[s][seq - 1].content), q.text


def filler_turns(c: Conversation) -> list[str]:
    """Every turn no question names as evidence: greetings, small talk, replies, reactions."""
    evidence = {turn for q in c.questions for turn in q.evidence}
    return [
        t.content
        for s, session in enumerate(c.sessions)
        for seq, t in enumerate(session, 1)
        if (s, seq) not in evidence
    ]


def test_no_filler_turn_is_said_twice_in_a_conversation(splits: dict[str, list[Conversation]]) -> None:
    for convs in splits.values():
        for c in convs:
            turns = filler_turns(c)
            repeats = len(turns) - len(set(turns))
            assert repeats / len(turns) < 0.01, repeats


def test_small_talk_rarely_nearly_repeats(splits: dict[str, list[Conversation]]) -> None:
    """Of the turns of six words or more, few share 80% of their words with another turn (a slot
    changed, an opener added): the filler is not one sentence with a name swapped."""
    for convs in splits.values():
        for c in convs:
            words = [frozenset(re.findall(r"[a-z']+", t.lower())) for t in filler_turns(c)]
            long = [i for i, w in enumerate(words) if len(w) >= 6]
            near = sum(
                1
                for i in long
                if any(j != i and len(words[i] & w) / len(words[i] | w) >= 0.8 for j, w in enumerate(words))
            )
            assert near / len(long) < 0.06, near / len(long)


def test_evidence_turns_are_those_of_the_earlier_filler(splits: dict[str, list[Conversation]]) -> None:
    """The filler writes from its own random stream: every question, its evidence turns (place, speaker,
    time, text) and every session's length are what they were when the small talk repeated itself, so
    the rounds measured on either filler ask the same questions about the same turns."""
    expected = {"train": "12b8f71d1c350329", "heldout": "9c96ebbdb8f5bd3f"}
    for split, convs in splits.items():
        h = hashlib.sha256()
        for c in convs:
            for q in c.questions:
                h.update(q.qtype.encode())
                h.update(q.text.encode())
                for s, seq in q.evidence:
                    t = c.sessions[s][seq - 1]
                    h.update(f"{s}|{seq}|{t.speaker}|{t.role}|{t.created_at.isoformat()}|{t.content}\n".encode())
            h.update(str([len(s) for s in c.sessions]).encode())
        assert h.hexdigest()[:16] == expected[split], split

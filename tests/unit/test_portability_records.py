"""The export file's records: each line through the API's own models and limits, refusals that name
the record type, the field and the limit, and the document rules (a Tier 2 body must match its hash)."""

from __future__ import annotations

import hashlib
import json
import uuid

import pytest

from engram.portability.records import LineRefused, MemoryRecord, line, parse_header, parse_record

NOW = "2026-11-01T00:00:00Z"


def _memory(**fields) -> bytes:
    return json.dumps(
        {"type": "memory", "id": str(uuid.uuid4()), "content": "a note", "created_at": NOW, **fields}
    ).encode()


def _refusal(raw: bytes) -> str:
    with pytest.raises(LineRefused) as caught:
        parse_record(raw)
    return str(caught.value)


def test_a_memory_line_reads_back_what_was_written():
    record = parse_record(_memory(tags=["a", "a", "b"], importance=0.3000001, metadata={"k": [1, {"x": None}]}))
    assert isinstance(record, MemoryRecord)
    assert record.tags == ["a", "b"] and record.importance == 0.3 and record.namespace == "default"
    assert record.hash() == hashlib.sha256(b"a note").digest()
    again = parse_record(line(record.model_dump(mode="json")))
    assert again == record


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (_memory(tags=["x" * 65]), "memory.tags.0: String should have at most 64 characters"),
        (_memory(namespace="bad namespace"), "memory.namespace: String should match pattern"),
        (_memory(colour="blue"), "memory.colour: Extra inputs are not permitted"),
        (_memory(content="nul \x00"), "memory.content: must not contain NUL"),
        (_memory(valid_from=NOW, valid_to="2026-10-01T00:00:00Z"), "memory.line: valid_to must not be earlier"),
        (b'{"type": "widget"}', "type: Input tag 'widget' found using 'type' does not match any of the expected"),
        (b"not json", "line: Invalid JSON"),
        (
            json.dumps(
                {
                    "type": "link",
                    "id": str(uuid.uuid4()),
                    "from_id": str(uuid.UUID(int=1)),
                    "to_id": str(uuid.UUID(int=1)),
                    "relation": "relates_to",
                    "valid_from": NOW,
                }
            ).encode(),
            "link.line: a memory cannot be linked to itself",
        ),
        (
            json.dumps(
                {"type": "message", "conversation_id": str(uuid.uuid4()), "seq": 0, "role": "user", "content": "hi"}
            ).encode(),
            "message.seq: Input should be greater than or equal to 1",
        ),
    ],
)
def test_a_bad_line_is_refused_naming_type_field_and_limit(raw, reason):
    assert _refusal(raw).startswith(reason)


def test_a_line_nested_too_deep_for_any_json_parser_is_refused_not_a_crash():
    # the refusal's message reads the line's `type` with the json module, which raised RecursionError
    # here: the import worker failed on every delivery and the job stayed pending
    assert _refusal(b"[" * 100_000 + b"]" * 100_000).startswith("line: ")
    deep = b'{"type": "memory", "metadata": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert _refusal(deep).startswith("line: ")


def test_documents_keep_their_chunks_and_a_tier2_body_must_match_its_hash():
    body = "# Big\n\nbody text"
    sha = hashlib.sha256(body.encode()).hexdigest()
    chunks = [{"position": 0, "char_start": 0, "text": "body text"}]
    tier2 = {"tier": 2, "sha256": sha, "chunks": chunks, "body": body, "content_type": "text/markdown"}
    record = parse_record(_memory(content="synopsis", document=tier2))
    assert record.hash() == bytes.fromhex(sha)  # a document dedupes on its body, not its synopsis
    assert "body does not match sha256" in _refusal(_memory(content="synopsis", document={**tier2, "body": "other"}))
    assert "only for them" in _refusal(_memory(content="synopsis", document={**tier2, "tier": 1}))
    tier0 = {"tier": 0, "sha256": sha, "chunks": chunks}
    assert "must match document.sha256" in _refusal(_memory(content="not the body", document=tier0))


def test_the_header_names_format_and_version():
    header = parse_header(
        json.dumps({"type": "header", "format": "engram-export", "version": 1, "exported_at": NOW}).encode()
    )
    assert header.version == 1 and header.namespace is None
    with pytest.raises(LineRefused, match="version: Input should be 1"):
        parse_header(
            json.dumps({"type": "header", "format": "engram-export", "version": 2, "exported_at": NOW}).encode()
        )

"""An import's validating pass: every line of the file through its model and the API's limits, then
what only the whole file can tell (duplicate ids, links and messages whose other end the file lacks,
gaps in a conversation's numbering). It records where each record type's lines are, so the writing
pass reads them again by offset, and what was refused. No SQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any
from uuid import UUID

from engram.core.config import settings
from engram.core.errors import EngramError, TooLarge
from engram.memories.service import check_content_size
from engram.portability.models import Refusal
from engram.portability.records import (
    RECORD_TYPES,
    CheckpointRecord,
    ConversationRecord,
    ExtractionRunRecord,
    LineRefused,
    LinkRecord,
    MemoryRecord,
    MessageRecord,
    TaskRecord,
    parse_header,
    parse_record,
)

MAX_REFUSALS = 1000  # refused lines listed in a report (all are counted)


class ImportRejected(EngramError):
    """The file cannot be imported at all (size, checksum, header): the job fails with this reason."""


@dataclass
class Plan:
    """What the validating pass learnt: where each record type's lines are, and what was refused."""

    lines: int = 0
    at: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: {t: [] for t in RECORD_TYPES})
    refused: list[Refusal] = field(default_factory=list)
    refused_count: int = 0
    message_counts: dict[UUID, int] = field(default_factory=dict)

    def refuse(self, line_no: int, reason: str) -> None:
        self.refused_count += 1
        if len(self.refused) < MAX_REFUSALS:
            self.refused.append(Refusal(line=line_no, reason=reason))


def _lines(f: IO[bytes]) -> Iterator[tuple[int, int, bytes]]:
    """(1-based line number, byte offset, line) of every non-blank line."""
    f.seek(0)
    offset = 0
    for number, raw in enumerate(iter(f.readline, b""), start=1):
        if raw.strip():
            yield number, offset, raw
        offset += len(raw)


def read_line(f: IO[bytes], offset: int) -> bytes:
    """The line that starts at `offset` (the plan's record of where it was)."""
    f.seek(offset)
    return f.readline()


def _check(record: Any) -> None:
    """Limits the models leave to the service, as the API's own writes check them."""
    if isinstance(record, MemoryRecord) and record.document is None:
        try:
            check_content_size(record.content)
        except TooLarge as exc:
            raise LineRefused(f"memory.{exc.message}") from None
    if isinstance(record, MessageRecord):
        size, limit = len(record.content.encode()), settings().max_message_bytes
        if size > limit:
            raise LineRefused(f"message.content: {size} bytes; the limit is {limit} bytes")


def validate_file(f: IO[bytes]) -> Plan:
    """Every line through its model; then what only the whole file can tell (duplicate ids, a link to a
    memory the file lacks, messages of a conversation it lacks or with gaps in their numbers)."""
    plan = Plan()
    lines = _lines(f)
    first = next(lines, None)
    if first is None:
        raise ImportRejected("the file is empty: the first line must be the export header")
    try:
        parse_header(first[2])
    except LineRefused as exc:
        plan.refuse(first[0], str(exc))
        return plan
    ids: dict[str, set[UUID]] = {"memory": set(), "conversation": set(), "extraction_run": set(), "task": set()}
    refs = _References()
    for number, offset, raw in lines:
        plan.lines += 1
        try:
            record = parse_record(raw)
            _check(record)
        except LineRefused as exc:
            plan.refuse(number, str(exc))
            continue
        plan.at[record.type].append((number, offset))
        if isinstance(record, MemoryRecord | ConversationRecord | ExtractionRunRecord | TaskRecord):
            if record.id in ids[record.type]:
                plan.refuse(number, f"{record.type}.id: {record.id} appears twice in the file")
            ids[record.type].add(record.id)
        refs.note(number, record)
    refs.check(plan, ids["memory"], ids["conversation"])
    for number, task_id in refs.checkpoints:  # a checkpoint's task is a task of the file
        if task_id not in ids["task"]:
            plan.refuse(number, f"checkpoint.task_id: task {task_id} is not in the file")
    plan.refused.sort(key=lambda r: r.line)
    return plan


@dataclass
class _References:
    """What records name of other records, checked once the whole file is read."""

    links: list[tuple[int, UUID, UUID]] = field(default_factory=list)  # line, from_id, to_id
    seqs: dict[UUID, list[tuple[int, int]]] = field(default_factory=dict)  # conversation -> (seq, line)
    cited: list[tuple[int, str, UUID]] = field(default_factory=list)  # line, field, conversation id
    extracted: dict[UUID, tuple[int, int]] = field(default_factory=dict)  # conversation -> (line, extracted_seq)
    checkpoints: list[tuple[int, UUID]] = field(default_factory=list)  # line, task id

    def note(self, number: int, record: Any) -> None:
        if isinstance(record, LinkRecord):
            self.links.append((number, record.from_id, record.to_id))
        elif isinstance(record, MessageRecord):
            self.seqs.setdefault(record.conversation_id, []).append((record.seq, number))
        elif isinstance(record, MemoryRecord):
            cited = dict.fromkeys(e.conversation_id for e in record.evidence)
            self.cited += [(number, "memory.evidence", c) for c in cited]
        elif isinstance(record, ExtractionRunRecord) and record.conversation_id is not None:
            self.cited.append((number, "extraction_run.conversation_id", record.conversation_id))
        elif isinstance(record, TaskRecord):  # a task's ledger is a conversation of the file
            self.cited.append((number, "task.conversation_id", record.conversation_id))
        elif isinstance(record, CheckpointRecord):
            self.checkpoints.append((number, record.task_id))
        elif isinstance(record, ConversationRecord) and record.extracted_seq:
            self.extracted[record.id] = (number, record.extracted_seq)

    def check(self, plan: Plan, memories: set[UUID], conversations: set[UUID]) -> None:
        _check_references(plan, memories, conversations, self.links, self.seqs)
        for number, name, conversation_id in self.cited:
            if conversation_id not in conversations:
                plan.refuse(number, f"{name}: conversation {conversation_id} is not in the file")
        for conversation_id, (number, extracted_seq) in self.extracted.items():
            if extracted_seq > plan.message_counts.get(conversation_id, 0):
                plan.refuse(
                    number,
                    f"conversation.extracted_seq: {extracted_seq} is more than its "
                    f"{plan.message_counts.get(conversation_id, 0)} messages",
                )


def _check_references(
    plan: Plan,
    memories: set[UUID],
    conversations: set[UUID],
    links: list[tuple[int, UUID, UUID]],
    seqs: dict[UUID, list[tuple[int, int]]],
) -> None:
    for number, from_id, to_id in links:
        for name, memory_id in (("from_id", from_id), ("to_id", to_id)):
            if memory_id not in memories:
                plan.refuse(number, f"link.{name}: memory {memory_id} is not in the file")
    for conversation_id, numbered in seqs.items():
        numbered.sort()
        if conversation_id not in conversations:
            plan.refuse(numbered[0][1], f"message.conversation_id: conversation {conversation_id} is not in the file")
            continue
        for expected, (seq, number) in enumerate(numbered, start=1):
            if seq != expected:
                plan.refuse(
                    number,
                    f"message.seq: conversation {conversation_id} must number its messages 1..n "
                    f"without gaps or repeats; expected {expected}, got {seq}",
                )
                break
        plan.message_counts[conversation_id] = len(numbered)

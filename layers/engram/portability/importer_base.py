"""What every part of an import shares: the transaction, the file and its plan, the ids the records
became, and the report's counts (engram.portability.importing writes the records). No SQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import IO, Any
from uuid import UUID, uuid4

from engram.core.db import Conn
from engram.portability import store
from engram.portability.models import ImportCounts
from engram.portability.plan import Plan, read_line
from engram.portability.records import parse_record

WRITE_BATCH = 500  # records per round of statements while importing


@dataclass
class ImportBase:
    conn: Conn
    tenant_id: UUID
    f: IO[bytes]
    plan: Plan
    namespace: str | None
    keep_ids: bool
    imported: ImportCounts = field(default_factory=ImportCounts)
    deduplicated: ImportCounts = field(default_factory=ImportCounts)
    mapped: int = 0
    # A record's id -> the row it became or matched (written or found there already).
    memory_ids: dict[UUID, UUID] = field(default_factory=dict)
    conversation_ids: dict[UUID, UUID] = field(default_factory=dict)
    link_ids: dict[UUID, UUID] = field(default_factory=dict)
    run_ids: dict[UUID, UUID] = field(default_factory=dict)
    written_memories: set[UUID] = field(default_factory=set)  # rows this import wrote (not matched ones)
    found_runs: set[UUID] = field(default_factory=set)  # run records the tenant has already
    # (memory, conversation, turn number, run) as the file names them, written once the runs are.
    evidence: list[tuple[UUID, UUID, int, UUID | None]] = field(default_factory=list)
    chunk_ids: list[UUID] = field(default_factory=list)
    namespaces: set[str] = field(default_factory=set)

    def records(self, record_type: str) -> Iterator[list[tuple[int, Any]]]:
        it = iter(self.plan.at[record_type])
        while batch := list(islice(it, WRITE_BATCH)):
            yield [(number, parse_record(read_line(self.f, offset))) for number, offset in batch]

    def keepable(self, table: str, batch: list[tuple[int, Any]]) -> set[UUID]:
        """The ids of the batch the import may keep: this tenant's own (the export's proof says so) and
        free. Any other id is mapped, held by another tenant or by none: the report never tells which."""
        if not self.keep_ids:
            return set()
        own = store.own_ids(self.conn, [(r.id, r.id_proof) for _, r in batch])
        return own - store.taken_ids(self.conn, table, list(own))

    def new_id(self, record_id: UUID, keepable: set[UUID]) -> UUID:
        if record_id in keepable:
            return record_id
        self.mapped += 1
        return uuid4()

    def ns(self, namespace: str) -> str:
        return self.namespace or namespace

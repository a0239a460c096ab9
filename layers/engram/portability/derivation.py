"""An import's part for what extraction derived: per-namespace settings, runs with their actions, and
derived memories' evidence and metadata, under the ids the conversations, memories, links and runs
got in the importing tenant (kept or mapped alike). No SQL (derivation_store).

Order (importing.Importer.run): settings; conversations; `plan_runs` (the runs' ids, which derived
memories' metadata names); memories (`derived_metadata`, evidence collected); links; `runs`;
`write_evidence` (a turn is found by its number in the conversation as imported)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from engram.portability import derivation_store
from engram.portability.derivation_store import ActionRow, RunRow
from engram.portability.importer_base import ImportBase
from engram.portability.records import ExtractionRunRecord, MemoryRecord

EVIDENCE_BATCH = 5000


class DerivationImport(ImportBase):
    def extraction_settings(self) -> None:
        """A namespace that has settings in the importing tenant keeps them."""
        for batch in self.records("extraction_settings"):
            rows = [(self.ns(r.namespace), r) for _, r in batch]
            written = derivation_store.insert_settings(self.conn, self.tenant_id, rows)
            self.imported.extraction_settings += written
            self.deduplicated.extraction_settings += len(rows) - written

    def plan_runs(self) -> None:
        """The id each run will have, before any memory is written (a derived memory's metadata names
        its run): a run the tenant has already (the same id, or namespace, creation time and trigger)
        keeps its own."""
        for batch in self.records("extraction_run"):
            found = derivation_store.existing_runs(
                self.conn, [(r.id, self.ns(r.namespace), r.created_at, r.trigger) for _, r in batch]
            )
            keepable = self.keepable("extraction_runs", batch)
            for _, r in batch:
                self.run_ids[r.id] = found[r.id] if r.id in found else self.new_id(r.id, keepable)
            self.found_runs |= set(found)

    def derived_metadata(self, record: MemoryRecord) -> dict[str, Any]:
        """A derived memory's metadata names its conversation and run (a summary's, at the top level):
        under their ids here."""
        metadata = record.metadata
        if record.source == "extraction" and isinstance(metadata.get("extraction"), dict):
            return {**metadata, "extraction": self._remapped(metadata["extraction"])}
        if record.source == "conversation_summary":
            return self._remapped(metadata)
        if record.source == "session_distillation" and isinstance(metadata.get("conversations"), list):
            condensed = [self._mapped_conversation(c) for c in metadata["conversations"]]
            return {**metadata, "conversations": condensed}
        return metadata

    def _mapped_conversation(self, value: object) -> object:
        old = _uuid(value)
        return str(self.conversation_ids[old]) if old in self.conversation_ids else value

    def _remapped(self, origin: dict[str, Any]) -> dict[str, Any]:
        out = dict(origin)
        for key, ids in (("conversation_id", self.conversation_ids), ("run_id", self.run_ids)):
            if key in out and (old := _uuid(out[key])) in ids:
                out[key] = str(ids[old])
        return out

    def collect_evidence(self, record: MemoryRecord, written: bool) -> None:
        """A memory this import wrote gets its evidence; one it matched keeps its own (evidence on a
        memory found there would make erasing the conversation erase that memory)."""
        if written:
            self.evidence += [(record.id, e.conversation_id, e.seq, e.run_id) for e in record.evidence]
        else:
            self.deduplicated.evidence += len(record.evidence)

    def _written(self, memory_id: UUID | None) -> UUID | None:
        """A memory a run wrote, if this import wrote it too (undo trashes it: never one found there)."""
        mapped = self.memory_ids.get(memory_id) if memory_id else None
        return mapped if mapped in self.written_memories else None

    def runs(self) -> None:
        """Runs and their actions, once the memories and links they name are written; a conversation
        that has a run of its own over the same window keeps it."""
        for batch in self.records("extraction_run"):
            actions: list[ActionRow] = []
            for _, r in batch:
                if r.id in self.found_runs:
                    self.deduplicated.extraction_runs += 1
                    continue
                if not derivation_store.insert_run(self.conn, self.tenant_id, self._run_row(r)):
                    del self.run_ids[r.id]
                    self.deduplicated.extraction_runs += 1
                    continue
                self.imported.extraction_runs += 1
                actions += [
                    ActionRow(
                        self.run_ids[r.id],
                        self._written(a.memory_id),
                        self.memory_ids.get(a.target_id) if a.target_id else None,
                        self.link_ids.get(a.link_id) if a.link_id else None,
                        a,
                    )
                    for a in r.actions
                ]
            derivation_store.insert_actions(self.conn, self.tenant_id, actions)

    def _run_row(self, r: ExtractionRunRecord) -> RunRow:
        previous = self.memory_ids.get(r.previous_summary_memory_id) if r.previous_summary_memory_id else None
        return RunRow(
            id=self.run_ids[r.id],
            namespace=self.ns(r.namespace),
            conversation_id=self.conversation_ids[r.conversation_id] if r.conversation_id else None,
            summary_memory_id=self._written(r.summary_memory_id),
            previous_summary_memory_id=previous,
            record=r,
        )

    def write_evidence(self) -> None:
        rows = [
            (self.memory_ids[m], self.conversation_ids[c], seq, self.run_ids.get(run) if run else None)
            for m, c, seq, run in self.evidence
        ]
        for start in range(0, len(rows), EVIDENCE_BATCH):
            batch = rows[start : start + EVIDENCE_BATCH]
            written = derivation_store.insert_evidence(self.conn, self.tenant_id, batch)
            self.imported.evidence += written
            self.deduplicated.evidence += len(batch) - written


def _uuid(value: object) -> UUID | None:
    try:
        return UUID(str(value))
    except ValueError:
        return None

"""The export file: JSON Lines, a header line, then one record per line, each with a `type`.

    {"type": "header", "format": "engram-export", "version": 1, "exported_at": ..., "namespace": ...}
    {"type": "memory", "id": ..., "content": ..., "versions": [...], "document": null | {...}}
    {"type": "link", "id": ..., "from_id": ..., "to_id": ..., "relation": ...}
    {"type": "conversation", "id": ..., "title": ...}
    {"type": "message", "conversation_id": ..., "seq": 1, "role": ..., "content": ...}
    {"type": "topic", "id": "t3", "name": ..., "member_ids": [...]}
    {"type": "extraction_settings", "namespace": ..., "enabled": true, "kinds": [...]}
    {"type": "extraction_run", "id": ..., "conversation_id": ..., "status": ..., "actions": [...]}

A derived memory carries its `evidence` (the conversation and the turn's number, not the message's id:
messages are numbered within their conversation, so the evidence follows them into any tenant).

Tenant-free: no tenant id is written, so a file imports into any tenant. Vectors are not written
(the importing side's embed pipeline computes them with its own model). Each record is validated by
the API's own model for that thing (MemoryCreate, LinkCreate, ConversationCreate, MessageCreate),
limits included, plus what only an export carries (ids, times, counters, versions). No SQL here.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field, StringConstraints, TypeAdapter, ValidationError, model_validator
from pydantic import Strict as StrictMode

from engram.conversations.models import ConversationCreate, MessageCreate
from engram.core.models import (
    PG_INTEGER_MAX,
    Importance,
    Kind,
    Layer,
    Metadata,
    Namespace,
    Strict,
    Tags,
    Timestamp,
    UuidField,
)
from engram.core.text import content_hash
from engram.documents.models import HARD_MAX_BYTES
from engram.graph.models import LinkCreate
from engram.memories.models import MemoryCreate

FORMAT = "engram-export"
VERSION = 1
MAX_CHUNKS = 100_000  # a 50 MiB Tier 1 body is ~27,000 chunks of ~2,000 characters
MAX_CHUNK_CHARS = 20_000
MAX_VERSIONS = 10_000
MAX_VERSION = 10**9  # every PATCH raises a memory's version: an imported one leaves room for them in an integer
Count = Annotated[int, Field(ge=0, le=PG_INTEGER_MAX)]
RECORD_TYPES = (
    "memory",
    "link",
    "conversation",
    "message",
    "topic",
    "extraction_settings",
    "extraction_run",
    "task",
    "checkpoint",
)
MAX_EVIDENCE = 10_000  # turns one derived memory cites (a conversation summary cites its window's)
MAX_ACTIONS = 10_000
MAX_SUMMARY_CHARS = 20_000  # a conversation's rolling summary (extraction writes at most 4,000)
MAX_RUN_TEXT_CHARS = 200_000  # a run's pushed text (POST /v1/extract takes at most 50,000)
# The extraction tables' CHECK constraints (engram.extraction is a sibling package: not imported here).
DerivedKind = Literal["fact", "preference", "decision", "event"]
ExtractionActionName = Literal["add", "update", "invalidate", "restate"]


class Header(Strict):
    type: Literal["header"]
    format: Literal["engram-export"]
    version: Literal[1] = Field(description="The format version; an importer refuses versions it does not know")
    exported_at: Timestamp
    namespace: Namespace | None = Field(default=None, description="The namespace exported; null: all of them")
    counts: dict[str, Count] = Field(default_factory=dict)
    embedding_model: str | None = Field(default=None, max_length=200, description="For the reader: not imported")


class VersionRecord(Strict):
    """A previous version of a memory (memory_versions), as GET /v1/memories/{id}/history shows it."""

    version: int = Field(ge=1, le=MAX_VERSION)
    content: str
    kind: Kind
    importance: Importance
    tags: Tags = Field(default_factory=list)
    source: str | None = Field(default=None, max_length=200)
    metadata: Metadata = Field(default_factory=dict)
    valid_from: Timestamp | None = None
    valid_to: Timestamp | None = None
    changed_at: Timestamp


class ChunkRecord(Strict):
    position: int = Field(ge=0, le=PG_INTEGER_MAX)
    char_start: int = Field(ge=0, le=PG_INTEGER_MAX)
    text: str = Field(max_length=MAX_CHUNK_CHARS)


class DocumentRecord(Strict):
    """A document's memory holds its body (Tier 0) or a synopsis (Tiers 1, 2): its chunks are written
    as stored (a Tier 1 body is not kept anywhere, so they cannot be rebuilt), and a Tier 2 body whole."""

    tier: Literal[0, 1, 2]
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the body: the document's dedupe key")
    chunks: list[ChunkRecord] = Field(min_length=1, max_length=MAX_CHUNKS)
    body: str | None = Field(default=None, description="Tier 2 only: the whole body")
    content_type: Literal["text/markdown", "text/plain"] | None = Field(default=None, description="Tier 2 only")

    @model_validator(mode="after")
    def _tier2_body(self) -> DocumentRecord:
        if (self.tier == 2) != (self.body is not None) or (self.tier == 2) != (self.content_type is not None):
            raise ValueError("body and content_type are given for Tier 2 documents, and only for them")
        if self.body is not None:
            size = len(self.body.encode())
            if size > HARD_MAX_BYTES:
                raise ValueError(f"body is {size} bytes; documents are limited to {HARD_MAX_BYTES}")
            if content_hash(self.body).hex() != self.sha256:
                raise ValueError("body does not match sha256")
        return self


IdProof = Annotated[
    str | None,
    Field(
        default=None,
        pattern=r"^[0-9a-f]{32}$",
        description="Written by the export beside the id: an import keeps the id only into the tenant that exported it",
    ),
]


class EvidenceRecord(Strict):
    """One turn a derived memory came from: the conversation (a record of the file) and the turn's number."""

    conversation_id: UuidField
    seq: int = Field(ge=1, le=PG_INTEGER_MAX)
    run_id: UuidField | None = Field(default=None, description="The extraction run that cited it")


class MemoryRecord(MemoryCreate):
    """A memory as it was: MemoryCreate's fields and limits, and its id, layer, times, counters,
    status and previous versions. Content size is checked by the importer (documents may be longer)."""

    type: Literal["memory"]
    id: UuidField
    id_proof: IdProof = None
    layer: Layer = "buffer"
    created_at: Timestamp
    updated_at: Timestamp | None = None
    last_accessed: Timestamp | None = None
    access_count: Count = 0
    repetition_count: Count = 0
    status: Literal["active", "deleted"] = "active"
    deleted_at: Timestamp | None = None
    version: int = Field(default=1, ge=1, le=MAX_VERSION)
    versions: list[VersionRecord] = Field(default_factory=list, max_length=MAX_VERSIONS)
    document: DocumentRecord | None = None
    evidence: list[EvidenceRecord] = Field(default_factory=list, max_length=MAX_EVIDENCE)

    @model_validator(mode="after")
    def _consistent(self) -> MemoryRecord:
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValueError("valid_to must not be earlier than valid_from")
        if (
            self.document is not None
            and self.document.tier == 0
            and content_hash(self.content).hex() != (self.document.sha256)
        ):
            raise ValueError("a Tier 0 document's content is its body: it must match document.sha256")
        return self

    def hash(self) -> bytes:
        """The dedupe key: the content's SHA-256, or for a document its body's."""
        return bytes.fromhex(self.document.sha256) if self.document else content_hash(self.content)


class LinkRecord(LinkCreate):
    type: Literal["link"]
    id: UuidField
    id_proof: IdProof = None
    valid_from: Timestamp  # an export always has it (LinkCreate defaults it to now)
    created_by: Literal["api", "consolidation"] = "api"
    run_id: UuidField | None = None
    created_at: Timestamp | None = None
    ended_at: Timestamp | None = None
    ended_reason: Literal["link_deleted", "memory_deleted"] | None = None
    valid_to_before_end: Timestamp | None = None
    supersede_applied: bool = Field(
        default=False, description="A supersedes link ended its older memory's validity (deleting it gives it back)"
    )
    superseded_valid_to_before: Timestamp | None = Field(default=None, description="The older memory's valid_to before")
    superseded_valid_to_set: Timestamp | None = Field(default=None, description="And the one the link set")

    @model_validator(mode="after")
    def _consistent(self) -> LinkRecord:
        if not self.supersede_applied and (self.superseded_valid_to_before or self.superseded_valid_to_set):
            raise ValueError("superseded_valid_to_before and _set are given for an applied supersession only")
        if self.from_id == self.to_id:
            raise ValueError("a memory cannot be linked to itself")
        if self.valid_to is not None and self.valid_to < self.valid_from:
            raise ValueError("valid_to must not be earlier than valid_from")
        if (self.created_by == "consolidation") != (self.run_id is not None):
            raise ValueError("run_id is given for consolidation links, and only for them")
        if (self.ended_at is None) != (self.ended_reason is None):
            raise ValueError("ended_at and ended_reason are given together")
        return self


class ConversationRecord(ConversationCreate):
    type: Literal["conversation"]
    id: UuidField
    id_proof: IdProof = None
    created_at: Timestamp
    updated_at: Timestamp | None = None
    summary: str | None = Field(default=None, max_length=MAX_SUMMARY_CHARS)
    summary_updated_at: Timestamp | None = None
    extracted_seq: int = Field(
        default=0, ge=0, le=PG_INTEGER_MAX, description="The turns extraction has read (at most its messages)"
    )


class MessageRecord(MessageCreate):
    type: Literal["message"]
    conversation_id: UuidField
    seq: int = Field(ge=1, le=PG_INTEGER_MAX)
    redacted_at: Timestamp | None = None


# A task run and its checkpoints (engram.tasks: the fields of POST /v1/tasks and .../checkpoints). A task's
# events are its conversation's messages; an import gives a task and its checkpoints new ids.
TaskItems = Annotated[list[Annotated[str, StringConstraints(min_length=1, max_length=2000)]], Field(max_length=100)]


class TaskRecord(Strict):
    type: Literal["task"]
    id: UuidField
    conversation_id: UuidField
    namespace: Namespace
    goal: str = Field(min_length=1, max_length=4000)
    agent_id: str | None = Field(default=None, max_length=200)
    status: Literal["running", "done", "failed", "cancelled"] = "running"
    outcome: str | None = Field(default=None, max_length=4000)
    metadata: Metadata = Field(default_factory=dict)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    ended_at: Timestamp | None = None


class CheckpointRecord(Strict):
    type: Literal["checkpoint"]
    task_id: UuidField
    seq_to: int = Field(ge=0, le=PG_INTEGER_MAX)
    summary: str = Field(min_length=1, max_length=8000)
    completed: TaskItems = Field(default_factory=list)
    pending: TaskItems = Field(default_factory=list)
    decisions: TaskItems = Field(default_factory=list)
    blockers: TaskItems = Field(default_factory=list)
    artifacts: list[Metadata] = Field(default_factory=list, max_length=100)
    created_at: Timestamp


class TopicRecord(Strict):
    """For the reader: topics are derived from vectors, so an import leaves them to the next rebuild."""

    type: Literal["topic"]
    id: str = Field(min_length=1, max_length=64)
    namespace: Namespace
    parent_id: str | None = Field(default=None, max_length=64)
    depth: int = Field(ge=0, le=64)
    is_leaf: bool
    name: str = Field(max_length=500)
    keywords: list[str] = Field(default_factory=list, max_length=64)
    member_ids: list[UuidField] = Field(default_factory=list)


class ExtractionSettingsRecord(Strict):
    """What a namespace extracts (PUT /v1/extraction/settings). An import never overwrites a namespace's
    settings that the importing tenant has already."""

    type: Literal["extraction_settings"]
    namespace: Namespace
    enabled: bool = True
    kinds: list[DerivedKind] = Field(min_length=1, max_length=4)
    instructions: str | None = Field(default=None, max_length=2000)
    updated_at: Timestamp | None = None


class ExtractionActionRecord(Strict):
    """One decision of a run, as GET /v1/extraction/runs/{id} shows it, with what undo needs: the
    supersedes link an update made and the validity an invalidation ended. The memories and the link
    are records of the file; one the file lacks (erased since) is left out on import."""

    seq: int = Field(ge=1, le=PG_INTEGER_MAX)
    action: ExtractionActionName
    kind: DerivedKind
    content: str = Field(max_length=MAX_CHUNK_CHARS)
    event_date: Annotated[date, StrictMode(False)] | None = None
    memory_id: UuidField | None = None
    target_id: UuidField | None = None
    link_id: UuidField | None = None
    target_valid_to: Timestamp | None = None
    evidence_seqs: list[Annotated[int, Field(ge=1, le=PG_INTEGER_MAX)]] = Field(default_factory=list, max_length=1000)


class ExtractionRunRecord(Strict):
    """An extraction run: the window of a conversation's turns it read (or the text pushed to it), its
    model calls and tokens, its outcome and its actions; a done run imported stays undoable."""

    type: Literal["extraction_run"]
    id: UuidField
    id_proof: IdProof = None
    namespace: Namespace
    conversation_id: UuidField | None = None
    seq_from: int | None = Field(default=None, ge=1, le=PG_INTEGER_MAX)
    seq_to: int | None = Field(default=None, ge=1, le=PG_INTEGER_MAX)
    input_text: str | None = Field(default=None, max_length=MAX_RUN_TEXT_CHARS)
    trigger: Literal["turns", "quiet", "api"]
    dry_run: bool = False
    status: Literal["queued", "running", "waiting", "done", "failed", "undone"]
    reason: str | None = Field(default=None, max_length=500)
    attempts: Count = 0
    llm_calls: Count = 0
    llm_input_tokens: Annotated[int, Field(ge=0, le=2**62)] = 0
    llm_output_tokens: Annotated[int, Field(ge=0, le=2**62)] = 0
    summary_before: str | None = Field(default=None, max_length=MAX_SUMMARY_CHARS)
    summary_after: str | None = Field(default=None, max_length=MAX_SUMMARY_CHARS)
    summary_memory_id: UuidField | None = None
    previous_summary_memory_id: UuidField | None = None
    created_at: Timestamp
    started_at: Timestamp | None = None
    finished_at: Timestamp | None = None
    undone_at: Timestamp | None = None
    actions: list[ExtractionActionRecord] = Field(default_factory=list, max_length=MAX_ACTIONS)

    @model_validator(mode="after")
    def _consistent(self) -> ExtractionRunRecord:
        if (self.conversation_id is None) == (self.input_text is None):
            raise ValueError("a run reads either a conversation (conversation_id) or a text (input_text)")
        if self.seq_from is not None and self.seq_to is not None and self.seq_to < self.seq_from:
            raise ValueError("seq_to must not be below seq_from")
        return self


Record = Annotated[
    MemoryRecord
    | LinkRecord
    | ConversationRecord
    | MessageRecord
    | TopicRecord
    | ExtractionSettingsRecord
    | ExtractionRunRecord
    | TaskRecord
    | CheckpointRecord,
    Field(discriminator="type"),
]
_records: TypeAdapter[Any] = TypeAdapter(Record)
_header: TypeAdapter[Header] = TypeAdapter(Header)


class LineRefused(ValueError):
    """A line that cannot be imported, and why (names the field and the limit, as the API would)."""


def _reason(exc: ValidationError, prefix: str = "") -> str:
    first = exc.errors()[0]
    loc = [str(p) for p in first["loc"]]
    if loc and loc[0] in RECORD_TYPES:
        loc = loc[1:]  # the discriminator's tag: the record's type is said once, in front
    field = ".".join(loc) or "line"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{prefix}{field}: {message}"


def record_type(raw: bytes) -> str:
    """The `type` of a line's object, for the error message of a line that fails to parse."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # pydantic refused it first; a line nested too deep lands here
        return ""
    return str(value.get("type", "")) if isinstance(value, dict) else ""


def parse_header(raw: bytes) -> Header:
    try:
        return _header.validate_json(raw)
    except ValidationError as exc:
        raise LineRefused(
            f"the first line must be the header of an {FORMAT} file, version {VERSION}: {_reason(exc)}"
        ) from None


def parse_record(raw: bytes) -> Any:
    """One record line -> its model, or LineRefused naming the record type, the field and the limit."""
    try:
        return _records.validate_json(raw)
    except ValidationError as exc:
        kind = record_type(raw)
        if kind not in RECORD_TYPES:
            raise LineRefused(_reason(exc).replace("line:", "type:", 1) if kind else _reason(exc)) from None
        raise LineRefused(_reason(exc, f"{kind}.")) from None


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")


def line(record: dict[str, Any]) -> bytes:
    """One record as a line of the file (UTF-8, compact, newline-terminated)."""
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=_json_default) + "\n").encode()


def header_line(exported_at: datetime, namespace: str | None, embedding_model: str | None) -> bytes:
    return line(
        {
            "type": "header",
            "format": FORMAT,
            "version": VERSION,
            "exported_at": exported_at,
            "namespace": namespace,
            "embedding_model": embedding_model,
        }
    )

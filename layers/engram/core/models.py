"""The base model and field types every capability's edge models share, and the memory record
itself: memories, documents (and later consolidation) all write and return memories."""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Annotated, Any, Literal, get_args
from uuid import UUID

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic import Strict as StrictMode

from engram.core.text import storable_text

NAMESPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$"
MAX_TAGS = 32
# The largest PostgreSQL integer: counters (an increment or a merge's sum stops here instead of
# overflowing; an import may bring a count already at the edge), message seqs, chunk offsets.
PG_INTEGER_MAX = 2**31 - 1

Namespace = Annotated[str, StringConstraints(pattern=NAMESPACE_PATTERN)]
# No comma (tags travel comma-separated), no control character (C0, DEL, C1: U+0085 is a line break),
# no line or paragraph separator, and no whitespace first. Spelled out, not `\s`: JSON Schema's
# ECMA-262 `\s` takes U+FEFF but not U+0085, the server's (Rust, as Python's) the other way round.
TAG_PATTERN = (
    r"^[^,\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
    r"[^,\x00-\x1f\x7f-\x9f\u2028\u2029]*$"
)
Tag = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=TAG_PATTERN)]
Kind = Literal["semantic", "episodic", "procedural"]
Layer = Literal["buffer", "working", "core"]


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


Tags = Annotated[list[Tag], Field(max_length=MAX_TAGS), AfterValidator(_unique)]


def _searchable(value: str) -> str:
    if not value.strip():
        raise ValueError("must contain more than whitespace: something to search for")
    return value


# A question or task recall searches with: words, not only whitespace.
SearchText = Annotated[str, AfterValidator(_searchable)]

# Timestamps: what PostgreSQL's timestamptz round-trips and every JSON client parses. A value is
# refused unless it lies in years 1..9999 once converted to UTC, with an offset of at most 14 hours
# (the widest in use); a value without an offset is UTC. Values are stored and returned in UTC.
MAX_UTC_OFFSET = timedelta(hours=14)
TIMESTAMP_RANGE = "0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999Z"


def bounded_timestamp(value: datetime) -> datetime:
    offset = value.utcoffset()
    if offset is None:
        return value.replace(tzinfo=UTC)
    if abs(offset) > MAX_UTC_OFFSET:
        raise ValueError("UTC offset must be within -14:00..+14:00")
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"must lie within {TIMESTAMP_RANGE} once converted to UTC") from None


def _timestamp_text(value: Any) -> Any:
    # Lax datetime parsing would take a number as Unix seconds: `"valid_to": 0` is a mistake, not 1970,
    # and so is the string "0" (a query string's `until=0`): ISO 8601 starts with the year.
    if isinstance(value, datetime) or (isinstance(value, str) and _ISO_DATE_START.match(value)):
        return value
    raise ValueError("must be an ISO 8601 date-time string")


_ISO_DATE_START = re.compile(r"[0-9]{4}-")


Timestamp = Annotated[
    datetime,
    StrictMode(False),
    BeforeValidator(_timestamp_text),
    AfterValidator(bounded_timestamp),
    Field(description=f"ISO 8601; UTC when no offset is given; offset within +-14:00; {TIMESTAMP_RANGE} in UTC"),
]

# A UUID sent as a JSON string (strict models would otherwise want a UUID object).
UuidField = Annotated[UUID, StrictMode(False)]

# Metadata: any JSON object, bounded so that every row written can be read back and serialized.
METADATA_MAX_KEYS = 64
METADATA_MAX_DEPTH = 16  # objects and arrays nested inside the metadata object
METADATA_MAX_BYTES = 64 * 1024  # serialized as compact UTF-8 JSON


def bounded_json(value: dict[str, Any]) -> dict[str, Any]:
    """Depth first, without recursion: a deep value must be refused, not crash the check."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > METADATA_MAX_DEPTH:
                raise ValueError(f"is nested deeper than {METADATA_MAX_DEPTH} levels")
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, float) and not math.isfinite(item):
            raise ValueError("numbers must be finite")
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))
    if size > METADATA_MAX_BYTES:
        raise ValueError(f"is {size} bytes as JSON; the limit is {METADATA_MAX_BYTES}")
    return value


Metadata = Annotated[
    dict[str, Any],
    Field(max_length=METADATA_MAX_KEYS),
    AfterValidator(bounded_json),
    Field(
        description=f"A JSON object: <= {METADATA_MAX_KEYS} keys, nested <= {METADATA_MAX_DEPTH} levels, "
        f"<= {METADATA_MAX_BYTES // 1024} KiB as JSON"
    ),
]


def _importance(value: float) -> float:
    # Stored as `real`: rounding to 6 places keeps what is read back equal to what was written, and a
    # value too small for `real` (1e-320) becomes 0 instead of an error in the database.
    return round(value, 6)


Importance = Annotated[
    float, Field(ge=0.0, le=1.0, description="0..1, rounded to 6 decimal places"), AfterValidator(_importance)
]
# The relations a link between two memories can have (engram.graph); recall expands and reports them.
Relation = Literal[
    "supersedes", "caused_by", "relates_to", "implements", "reverts", "contradicts", "derived_from", "part_of"
]
RELATIONS: tuple[str, ...] = get_args(Relation)

# Importance as read back. Arithmetic in the database (the recall boost, decay) leaves `real` noise
# (0.53 + 0.03 reads 0.55999994): rounded to the same 6 places, every answer shows the value meant.
StoredImportance = Annotated[float, AfterValidator(_importance)]


def not_null_in_schema(schema: dict[str, Any]) -> None:
    """For a field that may be omitted but not sent as null: the document shows no null."""
    variants = [v for v in schema.pop("anyOf", []) if v.get("type") != "null"]
    if len(variants) == 1:
        schema.update(variants[0])
    elif variants:
        schema["anyOf"] = variants


@cache
def _integer_fields(model: type[BaseModel]) -> frozenset[str]:
    """The names (as sent) of a model's `int` and `int | None` fields."""
    fields = model.model_fields.items()
    return frozenset(f.alias or n for n, f in fields if f.annotation is int or int in get_args(f.annotation))


class Strict(BaseModel):
    """Unknown fields are an error, not silently dropped: a typo must not lose data. Every string,
    however deep, must be storable. Types are strict: `false` is not a number, `"1"` not an integer
    (timestamps and UUIDs are parsed from their JSON strings). An integer field takes `473.0`: JSON
    has one number type, JSON Schema's `integer` includes it, and clients whose numbers are doubles
    send it so."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _integral_floats(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        whole = {k: int(v) for k in _integer_fields(cls) if isinstance(v := data.get(k), float) and v.is_integer()}
        return {**data, **whole} if whole else data

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        return storable_text(value)


class MemoryFields(Strict):
    """What describes a memory, whichever way it arrives (a memory, a document)."""

    namespace: Namespace = "default"
    kind: Kind = "semantic"
    importance: Importance = 0.5
    tags: Tags = Field(default_factory=list)
    source: str | None = Field(default=None, max_length=200)
    metadata: Metadata = Field(default_factory=dict)


class Memory(BaseModel):
    id: UUID
    namespace: str
    kind: Kind
    layer: Layer
    content: str
    importance: StoredImportance
    tags: list[str]
    source: str | None
    metadata: dict[str, Any]
    access_count: int
    repetition_count: int
    last_accessed: datetime | None
    created_at: datetime
    updated_at: datetime
    valid_from: datetime | None
    valid_to: datetime | None
    status: Literal["active", "deleted"]
    deleted_at: datetime | None
    document_tier: int | None
    version: int
    embedding_status: Literal["pending", "ready"] = "ready"
    critical: bool = Field(default=False, description="Recalled and briefed ahead of everything else in its namespace")
    conflict_key: str | None = Field(
        default=None, description="The slot this fact fills: writing another with the key supersedes it"
    )


class EvidenceTurn(BaseModel):
    """A conversation turn a derived memory came from, word for word: why we believe it."""

    conversation_id: UUID
    message_id: UUID
    seq: int
    role: str
    content: str
    created_at: datetime
    metadata: Any = Field(default=None, description="The message's metadata, as it was sent")


class MemoryDetail(Memory):
    evidence: list[EvidenceTurn] = Field(
        default_factory=list,
        description="For a memory extraction derived from conversations (source 'extraction'): the turns it came "
        "from, verbatim",
    )


class NewMemory(BaseModel):
    """A memory to write, already validated by its writer (a memory, a document, a consolidation merge):
    what `memories.service.write_memory` takes."""

    model_config = ConfigDict(frozen=True)

    namespace: str = "default"
    content: str
    kind: Kind = "semantic"
    layer: Layer = "buffer"
    importance: float = 0.5
    tags: list[str] = Field(default_factory=list)
    source: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    document_tier: int | None = None
    # A document's memory holds a synopsis: it dedupes on the content hash of the whole body and is
    # chunked from `chunk_source` (the body or the synopsis) in `chunking` mode.
    content_hash: bytes | None = None
    chunk_source: str | None = None
    chunking: str = "document"  # indexing.chunking.chunk mode: "document" or "focused"
    # An import restores a memory as it was exported: its id (when free in every tenant), times,
    # counters and status, and a document's chunks as stored (a Tier 1 body is not kept, so its
    # chunks cannot be rebuilt from the memory). None / the defaults: a new memory, chunked here.
    id: UUID | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_accessed: datetime | None = None
    access_count: int = 0
    repetition_count: int = 0
    status: Literal["active", "deleted"] = "active"
    deleted_at: datetime | None = None
    version: int = 1
    chunks: list[tuple[int, int, str]] | None = None  # (position, char_start, text)
    critical: bool = False
    conflict_key: str | None = None


class MemoryWrite(BaseModel):
    """What `write_memory` did: a new row (its chunk ids, to enqueue after commit) or the active
    duplicate it bumped (no chunks)."""

    id: UUID
    inserted: bool
    chunk_ids: list[UUID] = Field(default_factory=list)

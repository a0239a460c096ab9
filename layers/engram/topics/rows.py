"""The rows the topics store returns: typed, so a renamed column is the type checker's to find."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import numpy as np
import numpy.typing as npt

from engram.topics.models import NamedBy


@dataclass
class MemoryVectors:
    ids: list[UUID]
    texts: list[str]
    vectors: npt.NDArray[np.float32]  # one row per memory, not yet normalised


@dataclass(frozen=True)
class PreviousTopic:
    """A topic of the tree a rebuild replaces."""

    id: str
    parent_id: str | None
    is_leaf: bool
    name: str
    named_by: NamedBy
    keywords: list[str]
    created_at: datetime


@dataclass(frozen=True)
class TopicRecord:
    """A published topic as the routes and resume read it."""

    id: str
    namespace: str
    parent_id: str | None
    depth: int
    is_leaf: bool
    name: str
    keywords: list[str]
    named_by: NamedBy
    member_count: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class TreeInfo:
    namespace: str
    version: int
    model_id: str
    memories: int
    leaves: int
    built_at: datetime


@dataclass(frozen=True)
class MemberRow:
    """One member of a topic's page (`member_pages`)."""

    root: str  # the topic asked for
    id: UUID  # the memory
    namespace: str
    kind: str
    layer: str
    tags: list[str]
    importance: float
    created_at: datetime
    summary: str
    truncated: bool
    topic_id: str  # the leaf holding it
    similarity: float | None
    n: int  # its place in the topic's order


@dataclass(frozen=True)
class Unplaced:
    """A memory left without a leaf by `assign_new_members`: its mean vector in pgvector's text form."""

    id: UUID
    namespace: str
    v: str


@dataclass
class TopicRow:
    id: str
    parent_id: str | None
    depth: int
    is_leaf: bool
    name: str
    keywords: list[str]
    named_by: NamedBy
    member_count: int
    centroid: str  # pgvector text form
    created_at: datetime | None

"""Edge models of topics: the tree, a topic, lookups of topics' members."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

from pydantic import BaseModel, Field, StringConstraints

from engram.core.models import StoredImportance, Strict

TOPIC_ID_PATTERN = r"^t[1-9][0-9]{0,17}$"
TopicId = Annotated[str, StringConstraints(pattern=TOPIC_ID_PATTERN)]
MAX_LOOKUP_IDS = 20
MAX_MEMBERS_PAGE = 100
MAX_OFFSET = 100_000
NamedBy = Literal["keywords", "llm"]  # who gave a topic its name


@dataclass(frozen=True)
class LeafMembers:
    """A leaf topic and its memories (consolidation distills a large one)."""

    id: str
    name: str
    memory_ids: list[UUID]


@dataclass(frozen=True)
class HeldTopic:
    """A topic holding memories an erasure deletes, and how many of them (`erased`)."""

    id: str
    parent_id: str | None
    is_leaf: bool
    name: str
    keywords: list[str]
    named_by: NamedBy
    erased: int


@dataclass
class ErasedFromTopics:
    """What an erasure changed in the topic tree: the names that held an erased word, the topics emptied."""

    renamed: list[tuple[str, str, str]] = field(default_factory=list)  # (topic id, old name, new name)
    removed: int = 0


class TopicNode(BaseModel):
    id: str
    name: str
    keywords: list[str] = Field(description="Distinctive words of the topic against its siblings")
    named_by: NamedBy
    depth: int = Field(description="0: a top-level topic")
    parent_id: str | None
    is_leaf: bool
    member_count: int
    samples: list[str] = Field(default_factory=list, description="The start of a few member memories")
    children: list[TopicNode] = Field(default_factory=list)


class TopicTree(BaseModel):
    namespace: str
    built_at: datetime | None = Field(description="When the tree was last rebuilt; null: no tree yet")
    version: int = 0
    memories: int = Field(default=0, description="Memories the last rebuild clustered")
    leaves: int = 0
    topics: list[TopicNode]


class TopicMember(BaseModel):
    memory_id: UUID
    namespace: str
    kind: str
    layer: str
    tags: list[str]
    importance: StoredImportance
    created_at: datetime
    summary: str = Field(description="The start of the content")
    truncated: bool
    leaf_id: str
    similarity: float | None = Field(description="Cosine to the leaf's centroid when the memory joined it")


class TopicMembers(BaseModel):
    id: str
    name: str
    member_count: int
    memories: list[TopicMember]
    next_offset: int | None = Field(description="Pass as offset for the next page; null: no more")


class TopicLookupRequest(Strict):
    ids: list[TopicId] = Field(min_length=1, max_length=MAX_LOOKUP_IDS)
    limit: int = Field(default=20, ge=1, le=MAX_MEMBERS_PAGE, description="Members per topic")
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET, description="Members to skip (next_offset of a page)")
    order: Literal["importance", "newest"] = "importance"
    summary_chars: int = Field(default=300, ge=20, le=4000, description="Characters of each member's content")


class TopicLookupResponse(BaseModel):
    topics: list[TopicMembers]
    missing: list[str] = Field(description="Ids that name no topic of yours (any more)")


class TopicDetail(TopicNode):
    path: list[str] = Field(description="Ids from the top-level topic down to this one")
    namespace: str
    memories: TopicMembers

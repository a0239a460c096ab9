"""Pydantic models of recall: the request and the ranked, budgeted results."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field, StringConstraints, model_validator

from engram.core.models import (
    EvidenceTurn,
    Layer,
    Namespace,
    Relation,
    SearchText,
    StoredImportance,
    Strict,
    Tags,
    Timestamp,
    UuidField,
)

# Results one recall returns at most (the default when a budget decides instead).
RECALL_LIMIT_MAX = 100

RecallKind = Literal["semantic", "episodic", "procedural", "conversation"]


# Topic ids as engram.topics gives them (t12): a capability does not import another's models.
TopicId = Annotated[str, StringConstraints(pattern=r"^t[1-9][0-9]{0,17}$")]


class RecallExpand(Strict):
    """Follow each result's links (either way) and attach the memories they reach."""

    relations: list[Relation] | None = Field(
        default=None, min_length=1, max_length=8, description="Leave out for every relation; never empty"
    )
    depth: int = Field(default=1, ge=1, le=3, description="Links to follow from each result")
    limit: int = Field(default=5, ge=1, le=20, description="Linked memories per result, nearest and strongest first")


class RecallRequest(Strict):
    query: SearchText = Field(min_length=1, max_length=4000)
    namespace: Namespace | None = None
    namespaces: list[Namespace] | None = Field(default=None, max_length=50)
    tags: Tags | None = Field(default=None, description="Every tag must be present")
    kinds: list[RecallKind] | None = Field(
        default=None, description="Memory kinds and/or 'conversation' (conversation windows); default all"
    )
    conversation_id: UuidField | None = Field(default=None, description="Only windows of this conversation")
    layers: list[Layer] | None = None
    topics: list[TopicId] | None = Field(
        default=None, max_length=20, description="Only memories of these topics (GET /v1/topics), nodes included"
    )
    source: str | None = Field(default=None, max_length=200)
    since: Timestamp | None = None
    until: Timestamp | None = None
    limit: int = Field(
        default=10,
        ge=1,
        le=RECALL_LIMIT_MAX,
        description="Results at most; unset with budget_chars: 100, and the budget decides how many fit",
    )
    budget_chars: int | None = Field(
        default=None, ge=100, le=200_000, description="Characters of text returned at most (a hard limit)"
    )
    mode: Literal["hybrid", "vector", "keyword"] = "hybrid"
    diversify: bool = Field(
        default=False,
        description="MMR: a result that nearly repeats an earlier one (cosine above 0.9) waits behind one that "
        "says something else; false (the default) ranks by score alone",
    )
    explain: bool = False
    touch: bool = True
    include_expired: bool = Field(default=False, description="Also memories whose valid_to has passed; not with as_of")
    min_score: float | None = Field(
        default=None,
        ge=0.0,
        le=2.0,
        description="Drop results scoring below this (the scale of `score`): no filler when little is relevant",
    )
    as_of: Timestamp | None = Field(
        default=None,
        description="What was valid at this instant: valid_from (or creation) <= as_of < valid_to; not with"
        " include_expired",
    )
    expand: RecallExpand | None = Field(
        default=None, description="Attach each result's linked memories (summaries, inside budget_chars)"
    )
    rerank: bool = Field(
        default=False,
        description="Re-score the best fused candidates with a Bedrock rerank model and order by its relevance "
        "(`score` becomes it); without a configured reranker the results come unreranked, `degraded` says so",
    )
    rewrite_query: bool = Field(
        default=False,
        description="The LLM rewrites the question into up to 3 paraphrases and keyword lists, searched with it and "
        "fused in (one metered LLM call); unavailable, recall answers without them and `degraded` says so",
    )
    critical: bool = Field(
        default=True,
        description="The critical memories of the namespaces read come first, whatever the query, within "
        "recall_critical_share of budget_chars (ENGRAM_RECALL_CRITICAL_SHARE); false: ranked results only",
    )
    trace: RecallTraceRequest | None = Field(
        default=None,
        description="Say where each expected memory (an id or a phrase) went: its rank in the vector and keyword "
        "lists, or why it was not a candidate, its fused rank and score, and why it was not returned",
    )
    format: Literal["full", "compact"] = Field(
        default="full",
        description="full: every field, conversation results with their original messages; "
        "compact: each result's text once with its id, score, namespace and time",
    )

    @model_validator(mode="after")
    def _one_time_view(self) -> RecallRequest:
        if self.as_of is not None and self.include_expired:
            raise ValueError("as_of reads one instant; include_expired reads all time: give one of them")
        return self

    @model_validator(mode="after")
    def _budget_decides(self) -> RecallRequest:
        # A caller who gives a budget asks for that much context: ten short turns would fill a tenth of 8,000.
        if self.budget_chars is not None and "limit" not in self.model_fields_set:
            self.limit = RECALL_LIMIT_MAX
        return self


class RecallTraceRequest(Strict):
    """What the caller expected recall to find: it says where each went."""

    expected: list[Annotated[str, StringConstraints(min_length=1, max_length=200)]] = Field(
        min_length=1,
        max_length=10,
        description="Memory ids, or phrases the expected text holds (case-insensitive; up to 3 matches each)",
    )


class TracedItem(BaseModel):
    """Where one expected memory or conversation window went in this recall."""

    expected: str = Field(description="The id or phrase as given")
    memory_id: UUID | None = None
    conversation_id: UUID | None = None
    chunk_id: UUID | None = Field(default=None, description="Its best chunk (a conversation window: the window)")
    returned: bool = False
    rank: int | None = Field(default=None, description="Its place in `results` (1 = first)")
    vector_rank: int | None = Field(default=None, description="Its place in the vector list, searched to `depth`")
    keyword_rank: int | None = Field(default=None, description="Its place in the keyword list, searched to `depth`")
    candidate: bool = Field(default=False, description="Within the candidates each list gives fusion")
    fused_rank: int | None = Field(default=None, description="Its place after fusion (and rerank or MMR)")
    score: float | None = None
    reasons: list[str] = Field(
        default_factory=list,
        description="Why it was not a candidate or not returned: not_found, in_trash, superseded, expired, "
        "not_valid_yet, filtered_by_namespace / tag / kind / source / layer / conversation / topic / time, "
        "no_vector_yet, no_keyword_match, vector_rank_beyond_candidates, keyword_rank_beyond_candidates, "
        "below_min_score, past_limit, past_budget, cut_by_rerank_or_diversify",
    )


class RecallTrace(BaseModel):
    candidates_per_list: int = Field(description="Candidates each list (vector, keyword) gives fusion")
    depth: int = Field(description="How far down each list the trace searched")
    items: list[TracedItem]


class ScoreParts(BaseModel):
    vector: float | None
    keyword: float | None
    recency: float
    importance: float
    fused: float
    rewrites: float | None = Field(
        default=None, description="With rewrite_query: the part of `fused` the rewrites' lists gave"
    )
    rerank: float | None = Field(default=None, description="With rerank: the reranker's relevance (the `score`)")
    feedback: float | None = Field(
        default=None, description="Feedback's ranking factor (0.5..2) that multiplied `fused`, when there was feedback"
    )


class RecalledChunk(BaseModel):
    id: UUID
    text: str
    position: int
    char_start: int
    truncated: bool = Field(default=False, description="Cut to fit budget_chars")
    seq_from: int | None = Field(default=None, description="Conversation windows: first message seq")
    seq_to: int | None = Field(default=None, description="Conversation windows: last message seq")


class RecalledMessage(BaseModel):
    """An original conversation turn, word for word, as a conversation recall result carries it."""

    id: UUID
    seq: int
    role: str
    content: str
    tool_call_id: str | None = None
    tool_name: str | None = None
    created_at: datetime
    metadata: Any = None


class GraphNeighbour(BaseModel):
    """A memory linked to a result: what the link says, and the start of the memory's content."""

    memory_id: UUID
    relation: Relation
    direction: Literal["out", "in"] = Field(
        description="out: the link goes from the memory before it on the path to this one; in: the other way"
    )
    depth: int
    path: list[UUID] = Field(description="Memory ids from the result to this one")
    link_id: UUID
    strength: float
    namespace: str
    kind: str
    created_at: datetime
    summary: str | None = Field(description="The start of the content; null when budget_chars left no room")
    truncated: bool = Field(description="The summary is shorter than the content")


class RecallHit(BaseModel):
    type: Literal["memory", "conversation"] = "memory"
    memory_id: UUID | None = Field(default=None, description="Set for memory results")
    conversation_id: UUID | None = Field(default=None, description="Set for conversation results")
    messages: list[RecalledMessage] | None = Field(
        default=None, description="Conversation results: the window's original messages, verbatim"
    )
    namespace: str
    kind: str
    layer: str | None
    tags: list[str]
    importance: StoredImportance
    source: str | None
    created_at: datetime
    chunk: RecalledChunk
    score: float
    critical: bool = Field(default=False, description="A critical fact, returned ahead of the ranked results")
    explain: ScoreParts | None = None
    conflicts: list[GraphNeighbour] = Field(
        default_factory=list, description="Memories linked to this one by `contradicts`, always flagged"
    )
    linked: list[GraphNeighbour] | None = Field(default=None, description="With `expand`: the linked memories")
    evidence: list[EvidenceTurn] | None = Field(
        default=None,
        description="A memory derived from conversations: the turns it came from, verbatim (inside budget_chars)",
    )


class CompactHit(BaseModel):
    """A result in the compact form: the evidence once (a conversation window's turns are the lines of
    its text, so its messages are not repeated), with what identifies and ranks it."""

    type: Literal["memory", "conversation"]
    id: UUID = Field(description="The memory id; for a conversation window, the conversation id")
    text: str
    score: float
    namespace: str
    created_at: datetime
    seq_from: int | None = Field(default=None, description="Conversation windows: first message seq")
    seq_to: int | None = Field(default=None, description="Conversation windows: last message seq")
    truncated: bool = Field(default=False, description="Cut to fit budget_chars")
    critical: bool = Field(default=False, description="A critical fact, returned ahead of the ranked results")
    explain: ScoreParts | None = None
    conflicts: list[GraphNeighbour] | None = Field(default=None, description="Only when there are some")
    linked: list[GraphNeighbour] | None = Field(default=None, description="With `expand`: the linked memories")
    evidence: list[EvidenceTurn] | None = Field(
        default=None, description="A memory derived from conversations: its turns, verbatim (inside budget_chars)"
    )


class RecallResponse(BaseModel):
    results: list[RecallHit | CompactHit] = Field(description="RecallHit with format full, CompactHit with compact")
    degraded: list[str] = Field(description="Parts of the search that were unavailable, if any")
    budget_chars: int | None = None
    used_chars: int = 0
    query_rewrites: list[str] | None = Field(
        default=None, description="With rewrite_query: the rewrites searched with the question"
    )
    recall_id: UUID | None = Field(
        default=None,
        description="Name this recall in POST /v1/feedback (null for a read-only key, or with feedback retention 0)",
    )
    trace: RecallTrace | None = Field(default=None, description="With `trace`: where each expected item went")

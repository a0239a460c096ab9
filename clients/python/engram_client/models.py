"""What the API returns, as pydantic models (the server's OpenAPI components, by the same names).

Results accept fields this version does not know (a newer server adds fields; an older client
keeps working) and keep them as extras. Enumerations in results are plain strings for the same
reason; the Literal types below are for what a caller sends.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["semantic", "episodic", "procedural"]
RecallKind = Literal["semantic", "episodic", "procedural", "conversation"]
Layer = Literal["buffer", "working", "core"]
Relation = Literal[
    "supersedes", "caused_by", "relates_to", "implements", "reverts", "contradicts", "derived_from", "part_of"
]
Direction = Literal["out", "in", "both"]
Role = Literal["user", "assistant", "system", "tool", "agent"]
Scope = Literal["read", "write", "admin"]
ConsolidationStep = Literal[
    "decay", "promote", "gate", "demote", "dedupe", "reconcile", "buffer_cap", "drop_decayed", "distill", "topics"
]

ItemT = TypeVar("ItemT")


class Result(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Page(Result, Generic[ItemT]):
    """One page of a listing."""

    items: list[ItemT]

    def next_page(self) -> dict[str, Any] | None:
        """The arguments that fetch the next page, or None on the last one."""
        raise NotImplementedError


class CursorPage(Page[ItemT], Generic[ItemT]):
    """A page of a listing with a cursor: `next_cursor` is None on the last one."""

    next_cursor: str | None

    def next_page(self) -> dict[str, Any] | None:
        return {"cursor": self.next_cursor} if self.next_cursor else None


# ---- memories ----------------------------------------------------------------------------------


class Memory(Result):
    id: str
    namespace: str
    kind: str
    layer: str
    content: str
    importance: float
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
    status: str
    deleted_at: datetime | None
    document_tier: int | None
    version: int
    embedding_status: str = "ready"
    critical: bool = False
    conflict_key: str | None = None


class MemoryWritten(Result):
    memory: Memory
    deduplicated: bool
    superseded: list[str] = []  # with conflict_key: the memories this one replaced


class BatchItemResult(Result):
    index: int
    status: str  # created | deduplicated | error
    memory_id: str | None = None
    error: dict[str, Any] | None = None
    superseded: list[str] = []


class BatchResult(Result):
    results: list[BatchItemResult]
    created: int
    deduplicated: int
    failed: int


class MemorySummary(Result):
    id: str
    namespace: str
    kind: str
    summary: str
    truncated: bool
    tags: list[str]
    importance: float
    created_at: datetime
    valid_from: datetime | None
    valid_to: datetime | None


class MemoryVersion(Result):
    version: int
    content: str
    kind: str
    importance: float
    tags: list[str]
    source: str | None
    metadata: dict[str, Any]
    valid_from: datetime | None
    valid_to: datetime | None
    changed_at: datetime | None


# ---- graph -------------------------------------------------------------------------------------


class Link(Result):
    id: str
    from_id: str
    to_id: str
    relation: str
    strength: float
    valid_from: datetime
    valid_to: datetime | None
    metadata: dict[str, Any]
    created_by: str
    run_id: str | None
    created_at: datetime
    ended_at: datetime | None = None
    ended_reason: str | None = None


class LinkBatchItemResult(Result):
    index: int
    status: str  # created | error
    link: Link | None = None
    error: dict[str, Any] | None = None


class LinkBatchResult(Result):
    results: list[LinkBatchItemResult]
    created: int
    failed: int


class ChainLink(Result):
    memory: MemorySummary
    link: Link


class MemoryHistory(Result):
    memory_id: str
    versions: list[MemoryVersion]
    supersedes: list[ChainLink]
    superseded_by: list[ChainLink]


class TraversalNode(Result):
    memory: MemorySummary
    depth: int
    path: list[str]
    via: Link


class Traversal(Result):
    root: MemorySummary
    nodes: list[TraversalNode]
    truncated: bool
    as_of: datetime


# ---- recall ------------------------------------------------------------------------------------


class ScoreParts(Result):
    vector: float | None
    keyword: float | None
    recency: float
    importance: float
    fused: float
    rewrites: float | None = None
    rerank: float | None = None
    feedback: float | None = None


class GraphNeighbour(Result):
    memory_id: str
    relation: str
    direction: str
    depth: int
    path: list[str]
    link_id: str
    strength: float
    namespace: str
    kind: str
    created_at: datetime
    summary: str | None
    truncated: bool


class RecalledChunk(Result):
    id: str
    text: str
    position: int
    char_start: int
    truncated: bool = False
    seq_from: int | None = None
    seq_to: int | None = None


class RecalledMessage(Result):
    id: str
    seq: int
    role: str
    content: str
    tool_call_id: str | None = None
    tool_name: str | None = None
    created_at: datetime
    metadata: Any = None


class EvidenceTurn(Result):
    """A conversation turn a derived memory came from, verbatim."""

    conversation_id: str
    message_id: str
    seq: int
    role: str
    content: str
    created_at: datetime
    metadata: Any = None


class MemoryDetail(Memory):
    """One memory as GET /v1/memories/{id} returns it: a derived one with its evidence turns."""

    evidence: list[EvidenceTurn] = []  # why do we believe this? The turns it came from, verbatim


class RecallHit(Result):
    """A result of `format="full"`: the memory's summary, its best chunk, the score."""

    type: str = "memory"  # memory | conversation
    memory_id: str | None = None
    conversation_id: str | None = None
    messages: list[RecalledMessage] | None = None
    namespace: str
    kind: str
    layer: str | None
    tags: list[str]
    importance: float
    source: str | None
    created_at: datetime
    chunk: RecalledChunk
    score: float
    critical: bool = False
    explain: ScoreParts | None = None
    conflicts: list[GraphNeighbour] = []
    linked: list[GraphNeighbour] | None = None
    evidence: list[EvidenceTurn] | None = None  # a derived memory's turns (source "extraction")

    @property
    def text(self) -> str:
        return self.chunk.text


class CompactHit(Result):
    """A result of `format="compact"`: the text once, with the fields a model's context needs."""

    type: str
    id: str
    text: str
    score: float
    namespace: str
    created_at: datetime
    seq_from: int | None = None
    seq_to: int | None = None
    truncated: bool = False
    critical: bool = False
    explain: ScoreParts | None = None
    conflicts: list[GraphNeighbour] | None = None
    linked: list[GraphNeighbour] | None = None
    evidence: list[EvidenceTurn] | None = None


class TracedItem(Result):
    """Where one expected memory went in a recall (`trace`)."""

    expected: str
    memory_id: str | None = None
    conversation_id: str | None = None
    chunk_id: str | None = None
    returned: bool = False
    rank: int | None = None
    vector_rank: int | None = None
    keyword_rank: int | None = None
    candidate: bool = False
    fused_rank: int | None = None
    score: float | None = None
    reasons: list[str] = []


class RecallTrace(Result):
    candidates_per_list: int
    depth: int
    items: list[TracedItem]


class RecallResponse(Result):
    # A full hit is tried first and a compact one (no `chunk`) fails it at once: 2.6x faster than
    # pydantic's default "smart" union on full hits (0.36 vs 0.93 ms per 100), the same on compact.
    results: list[Annotated[RecallHit | CompactHit, Field(union_mode="left_to_right")]]
    degraded: list[str]
    budget_chars: int | None = None
    used_chars: int = 0
    query_rewrites: list[str] | None = None
    recall_id: str | None = None  # name it in `feedback`
    trace: RecallTrace | None = None


class Task(Result):
    id: str
    conversation_id: str  # the ledger
    namespace: str
    goal: str
    agent_id: str | None
    status: str  # running | done | failed | cancelled
    outcome: str | None
    metadata: dict[str, Any]
    event_count: int
    checkpoint_count: int
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None


class Checkpoint(Result):
    id: str
    task_id: str
    seq_to: int
    summary: str
    completed: list[str]
    pending: list[str]
    decisions: list[str]
    blockers: list[str]
    artifacts: list[dict[str, Any]]
    created_at: datetime


class ContextEvent(Result):
    seq: int
    role: str
    text: str
    created_at: datetime
    truncated: bool
    redacted: bool


class ContextMemory(Result):
    memory_id: str
    text: str
    score: float
    critical: bool
    truncated: bool


class ContextNeighbour(Result):
    memory_id: str
    relation: str
    of: str
    text: str
    truncated: bool


class ContextSection(Result):
    budget_chars: int
    used_chars: int
    omitted: int


class TaskContext(Result):
    """What to know to take a task up again; `text` is the whole of it, to paste into a prompt."""

    task: Task
    query: str
    budget_chars: int
    used_chars: int
    checkpoints: list[Checkpoint]
    events: list[ContextEvent]
    critical: list[ContextMemory]
    memories: list[ContextMemory]
    neighbours: list[ContextNeighbour]
    sections: dict[str, ContextSection]
    degraded: list[str]
    text: str


class FeedbackWeight(Result):
    id: str
    weight: float
    ranking_factor: float


class Feedback(Result):
    id: str
    recall_id: str
    failure_class: str | None
    note: str | None
    created_at: datetime
    weights: list[FeedbackWeight]


# ---- conversations -----------------------------------------------------------------------------


class Conversation(Result):
    id: str
    namespace: str
    title: str | None
    agent_id: str | None
    tags: list[str]
    metadata: dict[str, Any]
    message_count: int
    last_message_at: datetime | None
    created_at: datetime
    updated_at: datetime
    summary: str | None = None  # the rolling summary extraction keeps
    summary_updated_at: datetime | None = None
    extracted_seq: int = 0
    extraction: str | None = None  # GET: "on" or "off: <why>"


class DeletedConversation(Result):
    id: str
    deleted: bool = True
    messages: int
    chunks: int


class Message(Result):
    id: str
    conversation_id: str
    seq: int
    role: str
    content: str
    tool_call_id: str | None
    tool_name: str | None
    metadata: Any
    created_at: datetime
    redacted_at: datetime | None = None


class AppendResult(Result):
    conversation_id: str
    seq_from: int
    seq_to: int
    count: int
    replayed: bool
    messages: list[Message]


class MessagePage(Page[Message]):
    """Messages by sequence number; the next page starts at `next_from_seq`."""

    next_from_seq: int | None

    def next_page(self) -> dict[str, Any] | None:
        return {"from_seq": self.next_from_seq} if self.next_from_seq is not None else None


# ---- documents ---------------------------------------------------------------------------------


class DocumentInfo(Result):
    tier: int
    bytes: int
    sha256: str
    content_type: str
    chunks: int
    chunking: str
    synopsis: bool


class DocumentWritten(Result):
    memory: Memory
    document: DocumentInfo
    deduplicated: bool


class UploadStatus(Result):
    upload_id: str
    status: str  # pending | ready | failed
    reason: str | None
    memory_id: str | None
    document_tier: int | None
    deduplicated: bool | None
    namespace: str
    size_bytes: int
    content_type: str
    expires_at: datetime
    created_at: datetime
    updated_at: datetime


class UploadTicket(UploadStatus):
    url: str
    method: str = "PUT"
    headers: dict[str, str]


class Span(Result):
    n: int
    start: int
    end: int
    text: str
    truncated: bool
    score: float


class Citation(Result):
    n: int
    start: int
    end: int


class LlmInfo(Result):
    provider: str
    model: str
    input_tokens: int
    output_tokens: int
    latency_ms: int


class QueryResponse(Result):
    memory_id: str
    document_tier: int
    source: str
    question: str
    spans: list[Span]
    used_bytes: int
    budget_bytes: int
    token_budget: int
    truncated: bool
    answer: str | None
    citations: list[Citation]
    llm: LlmInfo | None
    reason: str | None


# ---- topics, resume, prime ---------------------------------------------------------------------


class TopicNode(Result):
    id: str
    name: str
    keywords: list[str]
    named_by: str
    depth: int
    parent_id: str | None
    is_leaf: bool
    member_count: int
    samples: list[str] = []
    children: list[TopicNode] = []


class TopicTree(Result):
    namespace: str
    built_at: datetime | None
    version: int = 0
    memories: int = 0
    leaves: int = 0
    topics: list[TopicNode]


class TopicMember(Result):
    memory_id: str
    namespace: str
    kind: str
    layer: str
    tags: list[str]
    importance: float
    created_at: datetime
    summary: str
    truncated: bool
    leaf_id: str
    similarity: float | None


class TopicMembers(Result):
    id: str
    name: str
    member_count: int
    memories: list[TopicMember]
    next_offset: int | None


class TopicLookupResponse(Result):
    topics: list[TopicMembers]
    missing: list[str]


class TopicDetail(TopicNode):
    path: list[str]
    namespace: str
    memories: TopicMembers


class ResumeMemory(Result):
    memory_id: str
    namespace: str
    kind: str
    layer: str
    importance: float
    updated_at: datetime
    text: str
    truncated: bool


class ResumeTopic(Result):
    id: str
    name: str
    member_count: int
    namespace: str


class ResumeTrigger(Result):
    trigger: str
    access_count: int
    memories: int


class ResumeSection(Result):
    budget_chars: int
    used_chars: int
    omitted: int


class ResumeSession(Result):
    """A conversation's rolling summary, or (conversation_id None) the project status distilled from them."""

    conversation_id: str | None
    title: str | None
    namespace: str
    summary: str
    updated_at: datetime


class ResumeResponse(Result):
    namespaces: list[str]
    budget_chars: int
    used_chars: int
    recent_hours: int
    critical: list[ResumeMemory] = []
    core: list[ResumeMemory]
    sessions: list[ResumeSession] = []
    recent: list[ResumeMemory]
    topics: list[ResumeTopic]
    triggers: list[ResumeTrigger]
    sections: dict[str, ResumeSection]
    text: str


class PrimeTopic(Result):
    id: str
    name: str


class PrimedMemory(Result):
    memory_id: str
    namespace: str
    kind: str
    layer: str | None
    importance: float
    tags: list[str]
    created_at: datetime
    score: float
    text: str
    truncated: bool
    critical: bool = False
    topic: PrimeTopic | None


class PrimeResponse(Result):
    results: list[PrimedMemory]
    topics: list[PrimeTopic]
    budget_chars: int
    used_chars: int
    degraded: list[str]


# ---- consolidation -----------------------------------------------------------------------------


class StepCounts(Result):
    step: str
    actions: int = 0
    candidates: int = 0
    skipped: str | None = None
    seconds: float = 0.0


class Run(Result):
    id: str
    namespace: str
    status: str  # queued | running | done | failed | undone
    dry_run: bool
    trigger: str
    steps: list[str]
    step_counts: list[StepCounts]
    epoch: int | None
    llm_calls: int
    llm_input_tokens: int
    llm_output_tokens: int
    llm_capped: str | None
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    undone_at: datetime | None
    erased_memories: list[str] = []  # erased since the run: its undo cannot bring them back

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed", "undone")


class ExtractionRun(Result):
    """One extraction job: a window of a conversation's turns (or a pushed text), its model calls and
    tokens, its outcome, and its actions counted by name."""

    id: str
    namespace: str
    conversation_id: str | None
    seq_from: int | None
    seq_to: int | None
    trigger: str  # turns | quiet | api
    dry_run: bool
    status: str  # queued | running | waiting | done | failed | undone
    reason: str | None  # why it waits, or why it failed
    attempts: int
    llm_calls: int
    llm_input_tokens: int
    llm_output_tokens: int
    summary_after: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    undone_at: datetime | None
    counts: dict[str, int] = {}  # actions by name: add, update, invalidate, restate

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed", "undone")


class ExtractionAction(Result):
    """One decision of a run, with the turns it came from (`evidence`, in a run's detail)."""

    seq: int
    action: str  # add | update | invalidate | restate
    kind: str  # fact | preference | decision | event
    content: str
    event_date: date | None
    memory_id: str | None  # the memory written (add, update)
    target_id: str | None  # the stored memory acted on (update, invalidate, restate)
    evidence_seqs: list[int]
    evidence: list[EvidenceTurn] = []


class ExtractionRunDetail(ExtractionRun):
    actions: list[ExtractionAction]


class NamespaceExtraction(Result):
    """What a namespace extracts (no settings stored: the defaults, `updated_at` None)."""

    namespace: str
    enabled: bool
    kinds: list[str]
    instructions: str | None
    updated_at: datetime | None


class Action(Result):
    seq: int
    step: str
    action: str
    memory_ids: list[str]
    reason: str
    details: dict[str, Any]
    applied: bool
    created_at: datetime


class RunWithActions(Run):
    actions: CursorPage[Action]


# ---- export and import -------------------------------------------------------------------------


class ExportCounts(Result):
    memories: int = 0
    versions: int = 0
    documents: int = 0
    links: int = 0
    conversations: int = 0
    messages: int = 0
    topics: int = 0
    evidence: int = 0  # turns cited as derived memories' evidence
    extraction_settings: int = 0
    extraction_runs: int = 0
    tasks: int = 0
    checkpoints: int = 0


class ExportJob(Result):
    id: str
    status: str  # queued | running | ready | failed
    namespace: str | None
    counts: ExportCounts | None
    bytes: int | None
    error: str | None
    download_url: str | None  # a presigned GET of the JSONL file once ready; it expires (get the job again)
    expires_at: datetime | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class ImportCounts(Result):
    memories: int = 0
    versions: int = 0
    documents: int = 0
    links: int = 0
    conversations: int = 0
    messages: int = 0
    evidence: int = 0
    extraction_settings: int = 0
    extraction_runs: int = 0
    tasks: int = 0
    checkpoints: int = 0


class Refusal(Result):
    line: int
    reason: str


class ImportReport(Result):
    lines: int
    imported: ImportCounts
    deduplicated: ImportCounts
    mapped_ids: int
    topics_skipped: int
    refused: list[Refusal]
    refused_count: int


class ImportJob(Result):
    id: str
    status: str  # pending | done | failed
    namespace: str | None
    id_policy: str
    size_bytes: int
    error: str | None
    report: ImportReport | None
    expires_at: datetime
    created_at: datetime
    updated_at: datetime


class ImportTicket(ImportJob):
    upload_url: str
    headers: dict[str, str]


# ---- admin -------------------------------------------------------------------------------------


class UsageLine(Result):
    day: date
    component: str
    model: str
    calls: int
    failed_calls: int
    input_tokens: int
    output_tokens: int
    latency_ms: int


class ExtractionSpend(Result):
    """Today's spend against background extraction's daily token budget."""

    tokens_today: int  # every purpose: what the budget counts
    extraction_tokens_today: int
    daily_tokens: int
    over_budget: bool  # background extraction jobs wait
    waiting_runs: int


class UsageReport(Result):
    since: datetime
    until: datetime
    calls: int
    input_tokens: int
    output_tokens: int
    lines: list[UsageLine]
    extraction: ExtractionSpend | None = None  # servers before extraction leave it out


class ApiKeyInfo(Result):
    id: str
    name: str
    prefix: str
    scopes: list[str]
    created_at: datetime
    revoked_at: datetime | None


class IssuedApiKey(Result):
    key_id: str
    api_key: str
    scopes: list[str]


class PurgeResult(Result):
    namespace: str
    memories: int
    conversations: int
    messages: int
    chunks: int

// EngramRoutes: a method for every route an agent uses. Body fields keep the API's names (snake_case, as in
// docs/api.md) and the generated types; fields left undefined are not sent, so the server's defaults
// apply. Names follow the Python SDK's (camelCase) and the MCP tools'.
import { type Call, Transport, path } from "./transport.js";
import type {
  ActionPage,
  ApiKeyInfo,
  AppendResult,
  BatchResult,
  CallOptions,
  CompactHit,
  Conversation,
  ConversationPage,
  DeletedConversation,
  DocumentWritten,
  Erasure,
  Checkpoint,
  ExportJob,
  Feedback,
  Fields,
  ImportJob,
  ImportTicket,
  IssuedApiKey,
  Link,
  LinkBatchResult,
  LinkPage,
  Memory,
  MemoryHistory,
  MemoryPage,
  MemoryWritten,
  Message,
  MessagePage,
  NewLink,
  NewMemory,
  NewMessage,
  Page,
  PrimeResponse,
  PurgeResult,
  Query,
  QueryResponse,
  RecallHit,
  RecallResponse,
  ResumeResponse,
  Run,
  RunPage,
  RunWithActions,
  Schema,
  Scope,
  Task,
  TaskContext,
  TaskPage,
  TopicDetail,
  TopicLookupResponse,
  TopicTree,
  Traversal,
  UploadStatus,
  UploadTicket,
  UsageReport,
  WriteOptions,
} from "./types.js";

/** Query options whose date-time values may also be Dates. */
type Dated<T> = { [K in keyof T]?: T[K] | (T[K] extends string | null | undefined ? Date : never) };

type Opts<Fields> = Fields & WriteOptions;

export type RecallOptions = Fields<"RecallRequest"> & CallOptions;
/** A recall's answer with the results of its format. */
export type Recalled<Hit> = Omit<RecallResponse, "results"> & { results: Hit[] };

/** The call options out of an options object; what is left is the request's fields. */
export function split<T extends WriteOptions>(options: T | undefined): [Omit<T, keyof WriteOptions>, WriteOptions] {
  const { signal, timeoutMs, idempotencyKey, ...fields } = options ?? ({} as T);
  return [fields, { signal, timeoutMs, idempotencyKey }];
}

/** The Idempotency-Key of a create: the caller's, or a new one its retries share. */
export function keyFor(options: WriteOptions): string {
  return options.idempotencyKey ?? `sdk-${crypto.randomUUID()}`;
}

export type ListOptions<Op extends keyof import("./openapi.js").operations> = Dated<Query<Op>> & CallOptions;

export class EngramRoutes extends Transport {
  /** Send a create with its Idempotency-Key: retried safely, the server answering a repeat with the first answer. */
  protected create<T>(method: "POST", route: string, body: unknown, options: WriteOptions): Promise<T> {
    return this.send<T>({ method, path: route, body, idempotencyKey: keyFor(options), retrySafe: true }, options);
  }

  protected read<T>(route: string, query?: Call["query"], options?: CallOptions): Promise<T> {
    return this.send<T>({ method: "GET", path: route, query, retrySafe: true }, options);
  }

  /** Every item of every page, fetching the next page only when the caller gets there. */
  protected async *pages<Item>(fetchPage: (after: Record<string, unknown>) => Promise<Page<Item>>): AsyncGenerator<Item> {
    let after: Record<string, unknown> = {};
    for (;;) {
      const page = await fetchPage(after);
      yield* page.items;
      if (page.next_cursor) after = { cursor: page.next_cursor };
      else if (page.next_from_seq !== undefined && page.next_from_seq !== null) after = { from_seq: page.next_from_seq };
      else return;
    }
  }

  // ---- memories

  /** Store one memory (<= 16,000 characters; larger text: `storeDocument`). The same content in the same
   * namespace is not stored twice: the answer says `deduplicated`. Retried with one Idempotency-Key. */
  storeMemory(content: string, options?: Opts<Fields<"MemoryCreate">>): Promise<MemoryWritten> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/memories", { ...fields, content }, call);
  }

  /** Store up to 100 memories in one transaction; each item is created, deduplicated or an error. */
  storeMemories(items: NewMemory[], options?: WriteOptions): Promise<BatchResult> {
    return this.create("POST", "/v1/memories/batch", { items }, options ?? {});
  }

  /** One memory by id (NotFound when missing or not this tenant's). */
  getMemory(memoryId: string, options?: CallOptions): Promise<Memory> {
    return this.read(path("/v1/memories/{}", memoryId), undefined, options);
  }

  /** Change the given fields (`version` grows); `source`, `valid_from` and `valid_to` are cleared with null.
   * Not retried after an unknown outcome (the route takes no Idempotency-Key). */
  updateMemory(memoryId: string, changes: Fields<"MemoryPatch">, options?: CallOptions): Promise<Memory> {
    const route = path("/v1/memories/{}", memoryId);
    return this.send({ method: "PATCH", path: route, body: changes, retrySafe: false }, options);
  }

  /** Move a memory to the trash (its links end; `restoreMemory` brings both back). */
  forget(memoryId: string, options?: CallOptions): Promise<Memory> {
    return this.send({ method: "DELETE", path: path("/v1/memories/{}", memoryId), retrySafe: true }, options);
  }

  /** Bring a memory back from the trash (Conflict when an identical active memory exists meanwhile). */
  restoreMemory(memoryId: string, options?: CallOptions): Promise<Memory> {
    const route = path("/v1/memories/{}/restore", memoryId);
    return this.send({ method: "POST", path: route, retrySafe: false }, options);
  }

  /** One page of memories, newest first (`iterMemories` walks every page). Every `tag` must match. */
  listMemories(options?: ListOptions<"list_memories_v1_memories_get">): Promise<MemoryPage> {
    const [query, call] = split(options);
    return this.read("/v1/memories", query, call);
  }

  iterMemories(options?: ListOptions<"list_memories_v1_memories_get">): AsyncGenerator<Memory> {
    return this.pages((after) => this.listMemories({ ...options, ...after }));
  }

  /** One page of the trash, most recently deleted first. */
  listTrash(options?: ListOptions<"list_trash_v1_trash_get">): Promise<MemoryPage> {
    const [query, call] = split(options);
    return this.read("/v1/trash", query, call);
  }

  iterTrash(options?: ListOptions<"list_trash_v1_trash_get">): AsyncGenerator<Memory> {
    return this.pages((after) => this.listTrash({ ...options, ...after }));
  }

  /** Every version of a memory and its supersession chain both ways, oldest first. */
  memoryHistory(memoryId: string, options?: CallOptions): Promise<MemoryHistory> {
    return this.read(path("/v1/memories/{}/history", memoryId), undefined, options);
  }

  // ---- recall

  /** Hybrid search (vector + keyword + recency + importance). `budget_chars` is a hard limit on the text
   * returned; `format: "compact"` returns each result's text once (the shape to put into a model's
   * context); `degraded` says what was missing. A search writes nothing but access counters: retried
   * as safe. */
  recall(query: string, options: RecallOptions & { format: "compact" }): Promise<Recalled<CompactHit>>;
  recall(query: string, options?: RecallOptions & { format?: "full" }): Promise<Recalled<RecallHit>>;
  recall(query: string, options?: RecallOptions): Promise<RecallResponse> {
    const [fields, call] = split(options);
    return this.send({ method: "POST", path: "/v1/recall", body: { ...fields, query }, retrySafe: true }, call);
  }

  /** Say which results of a recall helped (`useful`) and which did not, by the ids it returned (memory,
   * chunk or message ids), and why it missed: later recalls rank them up or down, bounded and fading with
   * time. Once per recall. */
  feedback(recallId: string, options?: Opts<Fields<"FeedbackCreate">>): Promise<Feedback> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/feedback", { ...fields, recall_id: recallId }, call);
  }

  // ---- tasks

  /** Start a task run; its events go to a ledger (a conversation, `conversation_id`). */
  startTask(goal: string, options?: Opts<Fields<"TaskCreate">>): Promise<Task> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/tasks", { ...fields, goal }, call);
  }

  getTask(taskId: string, options?: CallOptions): Promise<Task> {
    return this.read(path("/v1/tasks/{}", taskId), undefined, options);
  }

  /** One page of task runs, newest first (`iterTasks` walks every page). */
  listTasks(options?: ListOptions<"list_tasks_v1_tasks_get">): Promise<TaskPage> {
    const [query, call] = split(options);
    return this.read("/v1/tasks", query, call);
  }

  iterTasks(options?: ListOptions<"list_tasks_v1_tasks_get">): AsyncGenerator<Task> {
    return this.pages((after) => this.listTasks({ ...options, ...after }));
  }

  /** Append up to 200 events (roles user, assistant, tool, agent, system), in order, all or none; a retry
   * after a lost answer appends nothing twice. */
  recordTaskEvents(taskId: string, messages: NewMessage[], options?: WriteOptions): Promise<AppendResult> {
    return this.create("POST", path("/v1/tasks/{}/events", taskId), { messages }, options ?? {});
  }

  listTaskEvents(
    taskId: string,
    options?: ListOptions<"list_events_v1_tasks__task_id__events_get">,
  ): Promise<MessagePage> {
    const [query, call] = split(options);
    return this.read(path("/v1/tasks/{}/events", taskId), query, call);
  }

  /** The event's content is gone from every copy (and what was learned from it); its place stays. */
  redactTaskEvent(taskId: string, seq: number, options?: CallOptions): Promise<Message> {
    const route = `${path("/v1/tasks/{}/events", taskId)}/${seq}/redact`;
    return this.send({ method: "POST", path: route, retrySafe: true }, options);
  }

  /** Where the task stands, covering its events up to `seq_to` (default: all so far). */
  checkpointTask(taskId: string, summary: string, options?: Opts<Fields<"CheckpointCreate">>): Promise<Checkpoint> {
    const [fields, call] = split(options);
    return this.create("POST", path("/v1/tasks/{}/checkpoints", taskId), { ...fields, summary }, call);
  }

  listCheckpoints(
    taskId: string,
    options?: ListOptions<"list_checkpoints_v1_tasks__task_id__checkpoints_get">,
  ): Promise<Checkpoint[]> {
    const [query, call] = split(options);
    return this.read(path("/v1/tasks/{}/checkpoints", taskId), query, call);
  }

  /** End the run (`done`, `failed` or `cancelled`); its ledger takes no more events. */
  endTask(taskId: string, options?: Fields<"TaskEnd"> & CallOptions): Promise<Task> {
    const [fields, call] = split(options);
    return this.send({ method: "POST", path: path("/v1/tasks/{}/end", taskId), body: fields, retrySafe: false }, call);
  }

  /** Critical facts, the latest checkpoint, the events since, the relevant memories and their linked ones,
   * within `budget_chars` split in `shares`. A read: retried as safe. */
  taskContext(taskId: string, options?: Fields<"TaskContextRequest"> & CallOptions): Promise<TaskContext> {
    const [fields, call] = split(options);
    return this.send({ method: "POST", path: path("/v1/tasks/{}/context", taskId), body: fields, retrySafe: true }, call);
  }

  /** The task context alone, as text to paste into a prompt. */
  taskContextText(taskId: string, options?: Fields<"TaskContextRequest"> & CallOptions): Promise<string> {
    const [fields, call] = split(options);
    const route = path("/v1/tasks/{}/context", taskId);
    return this.send({ method: "POST", path: route, query: { format: "text" }, body: fields, retrySafe: true, answer: "text" }, call);
  }

  // ---- graph

  /** A typed, directed link ("B supersedes A": from B to A); Conflict when the same link already holds. */
  linkMemories(
    fromId: string,
    toId: string,
    relation: Link["relation"],
    options?: Opts<Fields<"LinkCreate">>,
  ): Promise<Link> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/links", { ...fields, from_id: fromId, to_id: toId, relation }, call);
  }

  /** Up to 100 links in one transaction, each created or an error on its own. */
  linkMemoriesBatch(items: NewLink[], options?: WriteOptions): Promise<LinkBatchResult> {
    return this.create("POST", "/v1/links/batch", { items }, options ?? {});
  }

  /** One page of links, newest first (`iterLinks` walks every page). */
  listLinks(options?: ListOptions<"list_links_v1_links_get">): Promise<LinkPage> {
    const [query, call] = split(options);
    return this.read("/v1/links", query, call);
  }

  iterLinks(options?: ListOptions<"list_links_v1_links_get">): AsyncGenerator<Link> {
    return this.pages((after) => this.listLinks({ ...options, ...after }));
  }

  /** End a link now; it stays as history (`listLinks({ include_ended: true })`). */
  unlink(linkId: string, options?: CallOptions): Promise<Link> {
    return this.send({ method: "DELETE", path: path("/v1/links/{}", linkId), retrySafe: true }, options);
  }

  /** The memories reachable from one through its links, breadth first, each once at its smallest depth. */
  traverse(memoryId: string, options?: ListOptions<"traverse_v1_memories__memory_id__links_get">): Promise<Traversal> {
    const [query, call] = split(options);
    return this.read(path("/v1/memories/{}/links", memoryId), query, call);
  }

  // ---- conversations

  /** A new conversation to append messages to. */
  createConversation(options?: Opts<Fields<"ConversationCreate">>): Promise<Conversation> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/conversations", fields, call);
  }

  /** The MCP tool's name of `createConversation`. */
  startConversation(options?: Opts<Fields<"ConversationCreate">>): Promise<Conversation> {
    return this.createConversation(options);
  }

  /** One conversation (its message count and last message time). */
  getConversation(conversationId: string, options?: CallOptions): Promise<Conversation> {
    return this.read(path("/v1/conversations/{}", conversationId), undefined, options);
  }

  /** One page of conversations (`iterConversations` walks every page). */
  listConversations(options?: ListOptions<"list_conversations_v1_conversations_get">): Promise<ConversationPage> {
    const [query, call] = split(options);
    return this.read("/v1/conversations", query, call);
  }

  iterConversations(options?: ListOptions<"list_conversations_v1_conversations_get">): AsyncGenerator<Conversation> {
    return this.pages((after) => this.listConversations({ ...options, ...after }));
  }

  /** Delete a conversation with its messages and their chunks. */
  deleteConversation(conversationId: string, options?: CallOptions): Promise<DeletedConversation> {
    const route = path("/v1/conversations/{}", conversationId);
    return this.send({ method: "DELETE", path: route, retrySafe: true }, options);
  }

  /** Append up to 200 messages atomically, verbatim, numbered in order. A retry after a lost answer
   * returns the first result (`replayed: true`) and appends nothing twice. */
  appendConversation(conversationId: string, messages: NewMessage[], options?: WriteOptions): Promise<AppendResult> {
    return this.create("POST", path("/v1/conversations/{}/messages", conversationId), { messages }, options ?? {});
  }

  /** Messages by sequence number, `from_seq` to `to_seq` inclusive (`iterMessages` walks them all). */
  listMessages(
    conversationId: string,
    options?: ListOptions<"list_messages_v1_conversations__conversation_id__messages_get">,
  ): Promise<MessagePage> {
    const [query, call] = split(options);
    return this.read(path("/v1/conversations/{}/messages", conversationId), query, call);
  }

  iterMessages(
    conversationId: string,
    options?: ListOptions<"list_messages_v1_conversations__conversation_id__messages_get">,
  ): AsyncGenerator<Schema<"Message">> {
    return this.pages((after) => this.listMessages(conversationId, { ...options, ...after }));
  }

  // ---- documents

  /** A document sent inline (up to 5 MiB; larger: `uploadDocument`), stored in tiers by size. */
  storeDocument(content: string, options?: Opts<Fields<"DocumentCreate">>): Promise<DocumentWritten> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/documents", { ...fields, content }, call);
  }

  /** A presigned PUT for a document of up to 50 MiB (`uploadDocument` does the whole exchange). */
  createUpload(sizeBytes: number, sha256: string, options?: Opts<Fields<"UploadCreate">>): Promise<UploadTicket> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/documents/uploads", { ...fields, size_bytes: sizeBytes, sha256 }, call);
  }

  /** An upload's status: pending, ready (with `memory_id`) or failed (with `reason`). */
  getUpload(uploadId: string, options?: CallOptions): Promise<UploadStatus> {
    return this.read(path("/v1/documents/uploads/{}", uploadId), undefined, options);
  }

  /** Ask a (large) document a question: the ranked spans within a token budget and, when the server has
   * an LLM, an answer citing them. `filter` keeps only spans matching a regex or substrings. */
  queryDocument(memoryId: string, question: string, options?: Fields<"QueryRequest"> & CallOptions): Promise<QueryResponse> {
    const [fields, call] = split(options);
    const route = path("/v1/memories/{}/query", memoryId);
    return this.send({ method: "POST", path: route, body: { ...fields, question }, retrySafe: true }, call);
  }

  // ---- topics, resume, prime

  /** The named topic tree of a namespace (rebuilt by consolidation). */
  listTopics(options?: ListOptions<"list_topics_v1_topics_get">): Promise<TopicTree> {
    const [query, call] = split(options);
    return this.read("/v1/topics", query, call);
  }

  /** Topics' names and a page of their member memories each. */
  lookupTopics(ids: string[], options?: Fields<"TopicLookupRequest"> & CallOptions): Promise<TopicLookupResponse> {
    const [fields, call] = split(options);
    return this.send({ method: "POST", path: "/v1/topics/lookup", body: { ...fields, ids }, retrySafe: true }, call);
  }

  /** One topic: its path, children and first members. */
  getTopic(topicId: string, options?: CallOptions): Promise<TopicDetail> {
    return this.read(path("/v1/topics/{}", topicId), undefined, options);
  }

  /** The session-start briefing: core memories, recent changes, topics and triggers, within a budget. */
  resume(options?: ListOptions<"get_resume_v1_resume_get">): Promise<ResumeResponse> {
    const [query, call] = split(options);
    return this.read("/v1/resume", { ...query, format: undefined }, call);
  }

  /** The briefing alone, as text to paste into a prompt. */
  resumeText(options?: ListOptions<"get_resume_v1_resume_get">): Promise<string> {
    const [query, call] = split(options);
    return this.send({ method: "GET", path: "/v1/resume", query: { ...query, format: "text" }, retrySafe: true, answer: "text" }, call);
  }

  /** Memories relevant to a task and different from each other, within a budget. */
  prime(task: string, options?: Fields<"PrimeRequest"> & CallOptions): Promise<PrimeResponse> {
    const [fields, call] = split(options);
    return this.send({ method: "POST", path: "/v1/prime", body: { ...fields, task }, retrySafe: true }, call);
  }

  // ---- consolidation

  /** Queue a consolidation run of a namespace (`dry_run`: the plan only). Conflict while one is open. */
  consolidate(options?: Opts<Fields<"ConsolidateRequest">>): Promise<Run> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/consolidate", fields, call);
  }

  /** One page of runs, newest first. */
  listConsolidationRuns(options?: ListOptions<"list_runs_v1_consolidation_runs_get">): Promise<RunPage> {
    const [query, call] = split(options);
    return this.read("/v1/consolidation-runs", query, call);
  }

  iterConsolidationRuns(options?: ListOptions<"list_runs_v1_consolidation_runs_get">): AsyncGenerator<Run> {
    return this.pages((after) => this.listConsolidationRuns({ ...options, ...after }));
  }

  /** One run with its status, counts per step, LLM use, and a page of its actions. */
  getConsolidationRun(
    runId: string,
    options?: ListOptions<"get_run_v1_consolidation_runs__run_id__get">,
  ): Promise<RunWithActions> {
    const [query, call] = split(options);
    return this.read(path("/v1/consolidation-runs/{}", runId), query, call);
  }

  /** One page of a run's actions (`iterConsolidationActions` walks them all: a dry run's plan). */
  async listConsolidationActions(
    runId: string,
    options?: ListOptions<"get_run_v1_consolidation_runs__run_id__get">,
  ): Promise<ActionPage> {
    return (await this.getConsolidationRun(runId, options)).actions;
  }

  iterConsolidationActions(
    runId: string,
    options?: ListOptions<"get_run_v1_consolidation_runs__run_id__get">,
  ): AsyncGenerator<Schema<"Action">> {
    return this.pages((after) => this.listConsolidationActions(runId, { ...options, ...after }));
  }

  /** Put back everything a run changed (Conflict naming the memories changed since). Not retried. */
  undoConsolidation(runId: string, options?: CallOptions): Promise<Run> {
    const route = path("/v1/consolidation-runs/{}/undo", runId);
    return this.send({ method: "POST", path: route, retrySafe: false }, options);
  }

  // ---- extraction (memories derived from conversations and text)

  /** Derive memories from any text or a range of a conversation's turns now (`dry_run`: the decisions only). */
  extract(options: Opts<Fields<"ExtractRequest">>): Promise<Schema<"ExtractionRunDetail">> {
    const [fields, call] = split(options);
    return this.send({ method: "POST", path: "/v1/extract", body: fields, retrySafe: false }, call);
  }

  /** One page of extraction runs, newest first (of a namespace or a conversation). */
  listExtractionRuns(
    options?: ListOptions<"list_runs_v1_extraction_runs_get">,
  ): Promise<Schema<"ExtractionRunPage">> {
    const [query, call] = split(options);
    return this.read("/v1/extraction/runs", query, call);
  }

  /** One extraction run: its actions, each with the turns it came from. */
  getExtractionRun(runId: string, options?: CallOptions): Promise<Schema<"ExtractionRunDetail">> {
    return this.read(path("/v1/extraction/runs/{}", runId), {}, options);
  }

  /** Undo an extraction run (its memories to the trash, updates and invalidations reversed). Not retried. */
  undoExtraction(runId: string, options?: CallOptions): Promise<Schema<"ExtractionRunDetail">> {
    const route = path("/v1/extraction/runs/{}/undo", runId);
    return this.send({ method: "POST", path: route, retrySafe: false }, options);
  }

  /** What a namespace extracts. */
  getExtractionSettings(namespace: string, options?: CallOptions): Promise<Schema<"NamespaceExtraction">> {
    return this.read("/v1/extraction/settings", { namespace }, options);
  }

  /** Turn extraction on or off for a namespace, choose its kinds, add instructions (admin scope). */
  putExtractionSettings(
    settings: Fields<"ExtractionSettingsUpdate">,
    options?: CallOptions,
  ): Promise<Schema<"NamespaceExtraction">> {
    return this.send({ method: "PUT", path: "/v1/extraction/settings", body: settings, retrySafe: true }, options);
  }

  // ---- export and import

  /** Queue an export of this tenant's data (or one namespace) as a JSONL file (`exportData` waits and
   * downloads it). */
  createExport(options?: Opts<Fields<"ExportCreate">>): Promise<ExportJob> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/exports", fields, call);
  }

  /** An export's status and counts; once ready, a presigned `download_url` (fresh on each call). */
  getExport(exportId: string, options?: CallOptions): Promise<ExportJob> {
    return this.read(path("/v1/exports/{}", exportId), undefined, options);
  }

  /** A presigned PUT for an export file; its arrival imports it, all or nothing (`importData` does the
   * whole exchange). */
  createImport(sizeBytes: number, options?: Opts<Fields<"ImportCreate">>): Promise<ImportTicket> {
    const [fields, call] = split(options);
    return this.create("POST", "/v1/imports", { ...fields, size_bytes: sizeBytes }, call);
  }

  /** An import's status and report: imported, deduplicated, and every refused line with its reason. */
  getImport(importId: string, options?: CallOptions): Promise<ImportJob> {
    return this.read(path("/v1/imports/{}", importId), undefined, options);
  }

  // ---- erasure

  /** Erase a memory for good (active or in the trash) from every copy; idempotent, so retried. */
  eraseMemory(memoryId: string, options?: ListOptions<"erase_memory_v1_memories__memory_id__erase_post">): Promise<Erasure> {
    const [query, call] = split(options);
    const route = path("/v1/memories/{}/erase", memoryId);
    return this.send({ method: "POST", path: route, query, retrySafe: true }, call);
  }

  /** Erase everything a selector covers (memories, documents, conversations; admin scope). `dry_run`
   * lists what would go. Not retried after an unknown outcome: read `getErasure` or run it again. */
  erase(selector: Schema<"Selector">, options?: Fields<"ErasureCreate"> & CallOptions): Promise<Erasure> {
    const [fields, call] = split(options);
    return this.send({ method: "POST", path: "/v1/erasures", body: { ...fields, selector }, retrySafe: false }, call);
  }

  /** An erasure's audit record (admin scope). */
  getErasure(erasureId: string, options?: CallOptions): Promise<Erasure> {
    return this.read(path("/v1/erasures/{}", erasureId), undefined, options);
  }

  /** Erase this tenant: every row, key and object (admin scope; `confirm` is the tenant's id). No undo. */
  eraseTenant(confirm: string, options?: CallOptions): Promise<Erasure> {
    return this.send({ method: "POST", path: "/v1/tenant/erase", body: { confirm }, retrySafe: false }, options);
  }

  // ---- admin

  /** Liveness and database reachability (no key needed). */
  health(options?: CallOptions): Promise<Record<string, unknown>> {
    return this.read("/v1/health", undefined, options);
  }

  /** Liveness alone: the API answers without touching the database (no key needed; for uptime probes). */
  live(options?: CallOptions): Promise<Record<string, unknown>> {
    return this.read("/v1/health/live", undefined, options);
  }

  /** Memory, chunk and pending-embedding counts by namespace. */
  stats(options?: CallOptions): Promise<Record<string, unknown>> {
    return this.read("/v1/stats", undefined, options);
  }

  /** LLM calls and tokens by UTC day, component and model (admin scope; default the last 30 days). */
  usage(options?: ListOptions<"tenant_usage_v1_usage_get">): Promise<UsageReport> {
    const [query, call] = split(options);
    return this.read("/v1/usage", query, call);
  }

  /** Issue a key for this tenant (admin scope); `api_key` is shown only in this answer. Not retried. */
  createKey(scopes: Scope[], options?: { name?: string } & CallOptions): Promise<IssuedApiKey> {
    const [fields, call] = split(options);
    return this.send({ method: "POST", path: "/v1/keys", body: { ...fields, scopes }, retrySafe: false }, call);
  }

  /** This tenant's keys, without secrets (admin scope). */
  listKeys(options?: CallOptions): Promise<ApiKeyInfo[]> {
    return this.read("/v1/keys", undefined, options);
  }

  /** Revoke a key (admin scope). */
  revokeKey(keyId: string, options?: CallOptions): Promise<Record<string, string>> {
    return this.send({ method: "DELETE", path: path("/v1/keys/{}", keyId), retrySafe: true }, options);
  }

  /** Hard-delete everything in a namespace (admin scope). There is no undo; not retried. */
  purgeNamespace(namespace: string, options?: CallOptions): Promise<PurgeResult> {
    const route = path("/v1/namespaces/{}/purge", namespace);
    return this.send({ method: "POST", path: route, retrySafe: false }, options);
  }
}

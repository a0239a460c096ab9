// The API's types, named: every one is an alias of the generated src/openapi.ts, so a change of the
// document changes them (and `tsc` shows what it breaks).
import type { components, operations } from "./openapi.js";

type Schemas = components["schemas"];
/** A schema of docs/openapi.json by name: `Schema<"Memory">`. */
export type Schema<Name extends keyof Schemas> = Schemas[Name];
/** The query parameters of an operation of docs/openapi.json. */
export type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;
/** Every field optional, in nested objects too (the generated types mark a field with a default as
 * present, which an answer's is; a request leaves it out and the server fills it in). */
export type Optional<T> = T extends readonly (infer Item)[]
  ? Optional<Item>[]
  : T extends Record<string, unknown>
    ? { [K in keyof T]?: Optional<T[K]> }
    : T;
/** A request body's fields, every one optional: the server fills in its defaults. */
export type Fields<Name extends keyof Schemas> = Optional<Schemas[Name]>;

export type Memory = Schema<"Memory">;
export type MemoryWritten = Schema<"MemoryWritten">;
export type MemoryPage = Schema<"MemoryPage">;
export type MemoryHistory = Schema<"MemoryHistory">;
export type BatchResult = Schema<"BatchResult">;
export type RecallResponse = Schema<"RecallResponse">;
export type RecallHit = Schema<"RecallHit">;
export type CompactHit = Schema<"CompactHit">;
export type Link = Schema<"Link">;
export type LinkPage = Schema<"LinkPage">;
export type LinkBatchResult = Schema<"LinkBatchResult">;
export type Traversal = Schema<"Traversal">;
export type Conversation = Schema<"Conversation">;
export type ConversationPage = Schema<"ConversationPage">;
export type DeletedConversation = Schema<"DeletedConversation">;
export type AppendResult = Schema<"AppendResult">;
export type Message = Schema<"Message">;
export type MessagePage = Schema<"MessagePage">;
export type DocumentWritten = Schema<"DocumentWritten">;
export type UploadTicket = Schema<"UploadTicket">;
export type UploadStatus = Schema<"UploadStatus">;
export type QueryResponse = Schema<"QueryResponse">;
export type TopicTree = Schema<"TopicTree">;
export type TopicDetail = Schema<"TopicDetail">;
export type TopicLookupResponse = Schema<"TopicLookupResponse">;
export type ResumeResponse = Schema<"ResumeResponse">;
export type PrimeResponse = Schema<"PrimeResponse">;
export type Run = Schema<"Run">;
export type RunPage = Schema<"RunPage">;
export type RunWithActions = Schema<"RunWithActions">;
export type Action = Schema<"Action">;
export type ActionPage = Schema<"ActionPage">;
export type ExportJob = Schema<"ExportJob">;
export type ImportTicket = Schema<"ImportTicket">;
export type ImportJob = Schema<"ImportJob">;
export type Erasure = Schema<"Erasure">;
export type UsageReport = Schema<"UsageReport">;
export type ApiKeyInfo = Schema<"ApiKeyInfo">;
export type IssuedApiKey = Schema<"IssuedApiKey">;
export type PurgeResult = Schema<"PurgeResult">;
export type Feedback = Schema<"Feedback">;
export type Task = Schema<"Task">;
export type TaskPage = Schema<"TaskPage">;
export type Checkpoint = Schema<"Checkpoint">;
export type TaskContext = Schema<"TaskContext">;
export type ErrorEnvelope = Schema<"ErrorEnvelope">;

export type Kind = Memory["kind"];
export type Layer = Memory["layer"];
export type Relation = Link["relation"];
export type Role = Message["role"];
export type Scope = NonNullable<Schema<"KeyCreate">["scopes"]>[number];

/** One item of `storeMemories`: the fields of `storeMemory`. */
export type NewMemory = Fields<"MemoryCreate"> & { content: string };
/** One item of `linkMemoriesBatch`: the fields of `linkMemories`. */
export type NewLink = Fields<"LinkCreate"> & Pick<Schema<"LinkCreate">, "from_id" | "to_id" | "relation">;
/** One message of `appendConversation`; `created_at` defaults to the time of the append. */
export type NewMessage = Fields<"MessageCreate"> & Pick<Schema<"MessageCreate">, "role" | "content">;

/** A page of a list: its items and what `iter*` needs to fetch the next one. */
export interface Page<Item> {
  items: Item[];
  next_cursor?: string | null;
  next_from_seq?: number | null;
}

/** Options every call takes. */
export interface CallOptions {
  /** Cancels the call (and any wait between its retries); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Milliseconds for each attempt (default: the client's `timeoutMs`). */
  timeoutMs?: number;
}

/** Options of the calls that create: the Idempotency-Key their retries resend. */
export interface WriteOptions extends CallOptions {
  /** A key of your own (1-200 printable characters) makes the call safe to repeat across processes;
   * without one, each call gets a new key that its retries share. */
  idempotencyKey?: string;
}

// Engram as LangGraph.js's long-term memory: EngramStore, a BaseStore. The same mapping as the Python
// SDK's engram_client.langgraph, so a Python and a TypeScript agent share items: the namespace array
// is the memory's Engram namespace (labels joined by "/", other characters written as _XX), the key a
// tag (`lgkey:` and a hash), the value kept whole in the memory's metadata, and its text (the `index`
// fields, else `value.content` when it is text, else the JSON) what recall searches.
import {
  BaseStore,
  type GetOperation,
  InvalidNamespaceError,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import { Engram } from "../client.js";
import { NotFound } from "../errors.js";
import type { EngramOptions } from "../transport.js";
import type { Memory, RecallHit } from "../types.js";

const TAG = "langgraph";
const KEY_TAG = "lgkey:";
const RECALL_NAMESPACES = 50;
const RECALL_LIMIT = 100;
const LIST_PAGE = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** ["memories", "ada@example.com"] -> "memories/ada_40example_2Ecom". */
export function engramNamespace(namespace: string[]): string {
  const encoder = new TextEncoder();
  const labels = namespace.map((label) =>
    Array.from(label, (c) =>
      /[A-Za-z0-9:-]/.test(c)
        ? c
        : Array.from(encoder.encode(c), (b) => `_${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
    ).join(""),
  );
  const joined = labels.join("/");
  if (!/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/.test(joined)) {
    throw new InvalidNamespaceError(
      `namespace ${JSON.stringify(namespace)} is ${JSON.stringify(joined)} in Engram, which takes 1-128 characters starting with a letter or digit`,
    );
  }
  return joined;
}

/** The inverse of `engramNamespace`. */
export function langgraphNamespace(namespace: string): string[] {
  return namespace.split("/").map((label) => {
    const bytes: number[] = [];
    for (let i = 0; i < label.length; i++) {
      const escaped = label[i] === "_" ? /^[0-9A-F]{2}/.exec(label.slice(i + 1)) : null;
      if (escaped) {
        bytes.push(Number.parseInt(escaped[0], 16));
        i += 2;
      } else bytes.push(label.charCodeAt(i));
    }
    return new TextDecoder().decode(new Uint8Array(bytes));
  });
}

export async function keyTag(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return KEY_TAG + Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("").slice(0, 40);
}

function field(value: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, part) => (v && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined), value);
}

function textOf(value: Record<string, unknown>, fields: string[] | undefined): string {
  if (fields?.length) {
    return fields
      .map((f) => field(value, f))
      .filter((v) => v !== undefined && v !== null)
      .map((v) => (typeof v === "string" ? v : JSON.stringify(v)))
      .join("\n");
  }
  return typeof value.content === "string" && value.content ? value.content : JSON.stringify(value);
}

/** LangGraph's filter: nested equality, arrays element by element, and $eq $ne $gt $gte $lt $lte. */
export function matches(value: unknown, wanted: unknown): boolean {
  if (wanted && typeof wanted === "object" && !Array.isArray(wanted)) {
    const entries = Object.entries(wanted);
    if (entries.some(([k]) => k.startsWith("$"))) return entries.every(([op, operand]) => compare(value, op, operand));
    return Boolean(value && typeof value === "object") && entries.every(([k, v]) => matches((value as Record<string, unknown>)[k], v));
  }
  if (Array.isArray(wanted)) {
    return Array.isArray(value) && value.length === wanted.length && wanted.every((w, i) => matches(value[i], w));
  }
  return value === wanted;
}

function compare(value: unknown, op: string, operand: unknown): boolean {
  if (op === "$eq") return matches(value, operand);
  if (op === "$ne") return !matches(value, operand);
  if (value === undefined || value === null) return false;
  const [a, b] = [Number(value), Number(operand)];
  if (op === "$gt") return a > b;
  if (op === "$gte") return a >= b;
  if (op === "$lt") return a < b;
  if (op === "$lte") return a <= b;
  throw new Error(`unsupported filter operator ${op}`);
}

function namespaceMatches(namespace: string[], condition: MatchCondition): boolean {
  const path = condition.path;
  if (namespace.length < path.length) return false;
  const sample = condition.matchType === "prefix" ? namespace.slice(0, path.length) : namespace.slice(namespace.length - path.length);
  return path.every((p, i) => p === "*" || p === sample[i]);
}

function toItem(memory: Memory, score?: number): SearchItem {
  const own = (memory.metadata as Record<string, unknown>)[TAG] as { key?: unknown; value?: unknown } | undefined;
  const mine = own && typeof own.key === "string" && own.value && typeof own.value === "object";
  const item: SearchItem = {
    value: mine ? (own.value as Record<string, unknown>) : { content: memory.content },
    key: mine ? (own.key as string) : memory.id,
    namespace: langgraphNamespace(memory.namespace),
    createdAt: new Date(memory.created_at),
    updatedAt: new Date(memory.updated_at),
  };
  if (score !== undefined) item.score = score;
  return item;
}

export interface EngramStoreOptions extends EngramOptions {
  /** A client of your own (else one is made from the other options, or ENGRAM_API_URL / ENGRAM_API_KEY). */
  client?: Engram;
  /** The value's fields recall searches, for every put that names no `index` of its own. */
  indexFields?: string[];
}

/** A LangGraph.js `BaseStore` backed by Engram: `new EngramStore()` reads ENGRAM_API_URL and ENGRAM_API_KEY. */
export class EngramStore extends BaseStore {
  readonly client: Engram;
  readonly indexFields: string[] | undefined;

  constructor(options: EngramStoreOptions = {}) {
    super();
    const { client, indexFields, ...clientOptions } = options;
    this.client = client ?? new Engram(clientOptions);
    this.indexFields = indexFields;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) results.push(await this.run(op)); // in order: a put then a get sees the put
    return results as OperationResults<Op>;
  }

  private run(op: Operation): Promise<unknown> {
    if ("value" in op) return this.runPut(op);
    if ("namespacePrefix" in op) return this.runSearch(op);
    if ("key" in op) return this.runGet(op);
    return this.runListNamespaces(op as ListNamespacesOperation);
  }

  private async find(namespace: string[], key: string): Promise<Memory | null> {
    const engramNs = engramNamespace(namespace);
    const page = await this.client.listMemories({ namespace: engramNs, tag: [await keyTag(key)], limit: 1 });
    if (page.items[0]) return page.items[0];
    if (!UUID.test(key)) return null;
    try {
      const memory = await this.client.getMemory(key); // a memory stored by other means is keyed by its id
      return memory.namespace === engramNs ? memory : null;
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw error;
    }
  }

  private async runGet(op: GetOperation): Promise<Item | null> {
    const memory = await this.find(op.namespace, op.key);
    return memory ? toItem(memory) : null;
  }

  private async runPut(op: PutOperation): Promise<void> {
    const existing = await this.find(op.namespace, op.key);
    if (op.value === null) {
      if (existing) await this.client.forget(existing.id);
      return;
    }
    const text = textOf(op.value, Array.isArray(op.index) ? op.index : this.indexFields);
    const metadata = { [TAG]: { key: op.key, value: op.value } };
    if (existing) {
      await this.client.updateMemory(existing.id, { content: text, metadata });
      return;
    }
    const options = { namespace: engramNamespace(op.namespace), tags: [TAG, await keyTag(op.key)], metadata };
    const written = await this.client.storeMemory(text, options);
    // the same text under another key: keep both, told apart by the key
    if (written.deduplicated) await this.client.storeMemory(`${text}\n[${op.key}]`, options);
  }

  private async namespaces(prefix: string[] = []): Promise<string[]> {
    const stats = (await this.client.stats()) as { namespaces?: { namespace: string; memories: number }[] };
    return (stats.namespaces ?? [])
      .filter((n) => n.memories > 0)
      .map((n) => n.namespace)
      .filter((n) => prefix.every((label, i) => langgraphNamespace(n)[i] === label))
      .sort();
  }

  private async runSearch(op: SearchOperation): Promise<SearchItem[]> {
    const namespaces = await this.namespaces(op.namespacePrefix);
    const [offset, limit] = [op.offset ?? 0, op.limit ?? 10];
    const wanted = offset + limit;
    const found: SearchItem[] = [];
    const keep = (item: SearchItem) => (!op.filter || matches(item.value, op.filter) ? found.push(item) : 0);
    if (op.query) {
      const scored: [number, string][] = [];
      for (let start = 0; start < namespaces.length; start += RECALL_NAMESPACES) {
        const answer = await this.client.recall(op.query, {
          namespaces: namespaces.slice(start, start + RECALL_NAMESPACES),
          limit: op.filter ? RECALL_LIMIT : Math.min(RECALL_LIMIT, wanted),
        });
        for (const hit of answer.results as RecallHit[]) if (hit.memory_id) scored.push([hit.score, hit.memory_id]);
      }
      for (const [score, id] of scored.sort((a, b) => b[0] - a[0])) {
        keep(toItem(await this.client.getMemory(id), score));
        if (found.length >= wanted) break;
      }
      return found.slice(offset, wanted);
    }
    for (const namespace of namespaces) {
      for await (const memory of this.client.iterMemories({ namespace, limit: LIST_PAGE })) {
        keep(toItem(memory));
        if (found.length >= wanted) return found.slice(offset, wanted);
      }
    }
    return found.slice(offset, wanted);
  }

  private async runListNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    const seen = new Map<string, string[]>();
    for (const name of await this.namespaces()) {
      const namespace = langgraphNamespace(name);
      if (!(op.matchConditions ?? []).every((c) => namespaceMatches(namespace, c))) continue;
      const cut = op.maxDepth === undefined ? namespace : namespace.slice(0, op.maxDepth);
      seen.set(JSON.stringify(cut), cut);
    }
    const sorted = [...seen.values()].sort((a, b) => (a.join("\u0000") < b.join("\u0000") ? -1 : 1));
    return sorted.slice(op.offset, op.offset + op.limit);
  }
}

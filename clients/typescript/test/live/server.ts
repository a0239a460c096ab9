// The local server the live tests run against: tests/e2e/test_sdk_typescript.py starts it (the same
// local stack and fixtures as the Python SDK's tests) and passes its URL and two tenants' admin keys.
import { Engram, type EngramOptions } from "../../src/index.js";

export const url = process.env.ENGRAM_API_URL ?? "";
export const key = process.env.ENGRAM_API_KEY ?? "";
export const otherKey = process.env.ENGRAM_OTHER_API_KEY ?? "";
/** Live tests are skipped without a server; the pytest run that starts one fails on any skip. */
export const live = Boolean(url && key && otherKey);

export function client(apiKey = key, options: EngramOptions = {}): Engram {
  return new Engram({ baseUrl: url, apiKey, ...options });
}

/** A namespace of this run alone: the tests share a tenant. */
export function ns(name: string): string {
  return `${name}-${crypto.randomUUID().slice(0, 8)}`;
}

export async function waitEmbedded(engram: Engram, ids: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const statuses = await Promise.all(ids.map(async (id) => (await engram.getMemory(id)).embedding_status));
    if (statuses.every((s) => s === "ready")) return;
    if (Date.now() > deadline) throw new Error("embeddings never became ready");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

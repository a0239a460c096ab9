// Every call is a documented route sending only documented fields, and every route an agent uses has a
// call; the generated types (src/openapi.ts) are the document's, or the gate fails.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { committed, generate } from "../../scripts/openapi-types.mjs";
import { Engram } from "../../src/index.js";
import { fakeFetch, json, type Sent } from "./fake-fetch.js";

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: { "application/json": { schema: { $ref: string } } } };
}
const document = JSON.parse(readFileSync(new URL("../../../../docs/openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
};

// Not an agent's: the document itself, and OAuth's consent flow and grants (a person's, in the console).
const NOT_FOR_AGENTS = /^\/(\.well-known|oauth)\/|^\/v1\/(openapi\.json|grants)/;

function route(sent: Sent): [string, Operation] {
  for (const [template, methods] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    const operation = methods[sent.method.toLowerCase()];
    if (pattern.test(sent.url.pathname) && operation) return [`${sent.method} ${template}`, operation];
  }
  throw new Error(`${sent.method} ${sent.url.pathname} is not a documented route`);
}

const ID = "00000000-0000-4000-8000-000000000000";
const PAGE = { items: [], next_cursor: null, next_from_seq: null };

test("every call is a documented route with documented query parameters and body fields", async () => {
  const fake = fakeFetch([], () => json(200, { ...PAGE, actions: PAGE }));
  const engram = new Engram({ baseUrl: "http://engram.test", apiKey: "egk_x", fetch: fake.fetch });
  const calls: Promise<unknown>[] = [
    engram.storeMemory("c", { namespace: "n", kind: "semantic", importance: 0.5, tags: ["t"], source: "s", metadata: {}, valid_from: null, valid_to: null }),
    engram.storeMemories([{ content: "c", namespace: "n" }]),
    engram.getMemory(ID),
    engram.updateMemory(ID, { content: "c", kind: "episodic", importance: 1, tags: [], source: null, metadata: {}, valid_from: null, valid_to: null }),
    engram.forget(ID),
    engram.restoreMemory(ID),
    engram.listMemories({ namespace: "n", tag: ["t"], kind: "semantic", layer: "core", since: "2026-01-01", until: "2026-01-02", limit: 1, cursor: "c" }),
    engram.listTrash({ namespace: "n", limit: 1, cursor: "c" }),
    engram.memoryHistory(ID),
    engram.feedback(ID, { useful: [ID], not_useful: [ID], failure_class: "stale_ranking", note: "n" }),
    engram.startTask("g", { namespace: "n", agent_id: "a", metadata: {} }),
    engram.getTask(ID),
    engram.listTasks({ namespace: "n", status: "running", limit: 1, cursor: "c" }),
    engram.recordTaskEvents(ID, [{ role: "agent", content: "step" }]),
    engram.listTaskEvents(ID, { from_seq: 1, to_seq: 2, limit: 1 }),
    engram.redactTaskEvent(ID, 1),
    engram.checkpointTask(ID, "s", { completed: ["a"], pending: ["b"], decisions: [], blockers: [], artifacts: [{ name: "x" }], seq_to: 0 }),
    engram.listCheckpoints(ID, { limit: 1 }),
    engram.endTask(ID, { status: "done", outcome: "o" }),
    engram.taskContext(ID, { query: "q", budget_chars: 1000, shares: { checkpoint: 0.3 } }),
    engram.taskContextText(ID, { query: "q" }),
    engram.recall("q", { namespace: "n", namespaces: ["n"], tags: ["t"], kinds: ["semantic"], layers: ["core"], limit: 1, budget_chars: 100, mode: "hybrid", diversify: true, explain: true, touch: false, format: "compact", expand: { depth: 1 } }),
    engram.linkMemories(ID, ID, "supersedes", { strength: 1, valid_from: null, valid_to: null, metadata: {} }),
    engram.linkMemoriesBatch([{ from_id: ID, to_id: ID, relation: "relates_to" }]),
    engram.listLinks({ memory_id: ID, relation: ["supersedes"], direction: "both", include_ended: true, limit: 1, cursor: "c" }),
    engram.unlink(ID),
    engram.traverse(ID, { depth: 2, relation: ["supersedes"], direction: "out", as_of: "2026-01-01", limit: 5 }),
    engram.createConversation({ title: "t", namespace: "n", agent_id: "a", tags: ["t"], metadata: {} }),
    engram.getConversation(ID),
    engram.listConversations({ namespace: "n", tag: ["t"], agent_id: "a", limit: 1, cursor: "c" }),
    engram.deleteConversation(ID),
    engram.appendConversation(ID, [{ role: "user", content: "hi", metadata: {} }]),
    engram.listMessages(ID, { from_seq: 1, to_seq: 2, limit: 1 }),
    engram.storeDocument("# d", { content_type: "text/markdown", namespace: "n", tags: ["t"], chunking: "document" }),
    engram.createUpload(10, "a".repeat(64), { content_type: "text/plain", namespace: "n" }),
    engram.getUpload(ID),
    engram.queryDocument(ID, "q", { filter: { substrings: ["x"] }, window_chars: 100, token_budget: 100, max_spans: 2, answer: false }),
    engram.listTopics({ namespace: "n", depth: 2 }),
    engram.lookupTopics(["t1"], { limit: 1, offset: 0, order: "newest", summary_chars: 10 }),
    engram.getTopic("t1"),
    engram.resume({ namespace: "n", budget_chars: 100, recent_hours: 1 }),
    engram.resumeText({ namespace: "n" }),
    engram.prime("task", { namespace: "n", budget_chars: 100, limit: 1 }),
    engram.consolidate({ namespace: "n", dry_run: true, steps: ["decay"] }),
    engram.listConsolidationRuns({ namespace: "n", limit: 1, cursor: "c" }),
    engram.getConsolidationRun(ID, { limit: 1, cursor: "c" }),
    engram.undoConsolidation(ID),
    engram.extract({ text: "t", namespace: "n", dry_run: true }),
    engram.listExtractionRuns({ namespace: "n", conversation_id: ID, limit: 1, cursor: "c" }),
    engram.getExtractionRun(ID),
    engram.undoExtraction(ID),
    engram.getExtractionSettings("n"),
    engram.putExtractionSettings({ namespace: "n", enabled: true, kinds: ["fact"], instructions: "i" }),
    engram.createExport({ namespace: "n" }),
    engram.getExport(ID),
    engram.createImport(10, { sha256: "a".repeat(64), namespace: "n", id_policy: "map" }),
    engram.getImport(ID),
    engram.eraseMemory(ID, { cascade: "none" }),
    engram.erase({ namespace: "n" }, { dry_run: true, cascade: "erase" }),
    engram.getErasure(ID),
    engram.eraseTenant(ID),
    engram.health(),
    engram.live(),
    engram.stats(),
    engram.usage({ since: "2026-01-01" }),
    engram.createKey(["read"], { name: "k" }),
    engram.listKeys(),
    engram.revokeKey(ID),
    engram.purgeNamespace("n"),
  ];
  await Promise.all(calls);
  const covered = new Set<string>();
  for (const sent of fake.sent) {
    const [name, operation] = route(sent);
    covered.add(name);
    const queryNames = new Set((operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name));
    for (const key of sent.url.searchParams.keys()) expect(queryNames, `${name} ?${key}`).toContain(key);
    const ref = operation.requestBody?.content["application/json"].schema.$ref;
    if (sent.body === undefined) continue;
    expect(ref, `${name} sends a body`).toBeDefined();
    const properties = Object.keys(document.components.schemas[ref?.split("/").pop() ?? ""]?.properties ?? {});
    for (const key of Object.keys(sent.body as object)) expect(properties, `${name} body.${key}`).toContain(key);
  }
  const documented = Object.entries(document.paths)
    .filter(([template]) => !NOT_FOR_AGENTS.test(template))
    .flatMap(([template, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${template}`));
  expect([...covered].sort()).toEqual(documented.sort());
});

describe("generated types", () => {
  test("src/openapi.ts is what docs/openapi.json generates (`make openapi` writes it)", async () => {
    const [wanted, present] = await Promise.all([generate(), committed()]);
    expect(present === wanted, "clients/typescript/src/openapi.ts is stale: run `make openapi`").toBe(true);
  });
});

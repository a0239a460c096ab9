// The TypeScript SDK against the local server over real HTTP: the walk of tests/e2e/test_sdk.py
// (every capability an agent uses, pagination, typed errors, uploads, jobs) in TypeScript.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  Conflict,
  Forbidden,
  InvalidField,
  NotFound,
  type RecallHit,
  Unauthorized,
  UploadFailed,
  type UploadProgress,
  WaitTimedOut,
} from "../../src/index.js";
import { client, collect, live, ns, otherKey, url, waitEmbedded } from "./server.js";

const engram = client();
const sha256 = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex");

describe.skipIf(!live)("the TypeScript SDK against the local server", () => {
  test("the README's example runs as written", async () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const example = readme.split("```ts\n", 2)[1]?.split("```", 1)[0] ?? "";
    const lines: string[] = [];
    const run = new Function("Engram", "console", `return (async () => {\n${example.replace(/^import .*$/m, "")}\n})();`);
    const { Engram } = await import("../../src/index.js");
    const Configured = class extends Engram {
      constructor(options: ConstructorParameters<typeof Engram>[0]) {
        super({ ...options, baseUrl: url, apiKey: otherKey });
      }
    };
    await run(Configured, { log: (...parts: unknown[]) => lines.push(parts.join(" ")) });
    expect(lines).toEqual(["The deploy freeze starts on Friday."]);
  });

  test("memories round trip", async () => {
    const ops = ns("ops");
    const written = await engram.storeMemory("The deploy freeze starts on Friday at 18:00.", {
      namespace: ops,
      tags: ["process"],
      source: "standup",
    });
    expect(written.deduplicated).toBe(false);
    expect(written.memory.layer).toBe("buffer");
    const memory = written.memory;
    const again = await engram.storeMemory("The deploy freeze starts on Friday at 18:00.", { namespace: ops });
    expect([again.deduplicated, again.memory.id, again.memory.repetition_count]).toEqual([true, memory.id, 1]);

    const got = await engram.getMemory(memory.id);
    expect([got.content, got.tags]).toEqual([memory.content, ["process"]]);
    expect(Number.isNaN(Date.parse(got.created_at))).toBe(false);

    const changed = await engram.updateMemory(memory.id, { content: "The deploy freeze starts on Friday at 17:00.", source: null });
    expect([changed.version, changed.source, changed.tags]).toEqual([2, null, ["process"]]);
    const untouched = await engram.updateMemory(memory.id, { importance: 0.9 });
    expect([untouched.importance, untouched.tags]).toEqual([0.9, ["process"]]);

    const history = await engram.memoryHistory(memory.id);
    expect(history.versions[0]?.content).toBe("The deploy freeze starts on Friday at 18:00.");

    expect((await engram.forget(memory.id)).status).toBe("deleted");
    expect((await collect(engram.iterTrash({ namespace: ops }))).map((m) => m.id)).toEqual([memory.id]);
    expect((await engram.restoreMemory(memory.id)).status).toBe("active");
  });

  test("iterators walk every page", async () => {
    const inv = ns("inv");
    const batch = await engram.storeMemories([
      ...Array.from({ length: 7 }, (_, i) => ({ content: `Inventory note number ${i}.`, namespace: inv, tags: ["stock"] })),
      { content: "x", namespace: inv, tags: ["a".repeat(70)] }, // a tag over 64 characters: this item fails alone
    ]);
    expect([batch.created, batch.failed]).toEqual([7, 1]);
    expect(batch.results[7]?.status).toBe("error");

    const first = await engram.listMemories({ namespace: inv, limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.next_cursor).toBeTruthy();
    const walked = await collect(engram.iterMemories({ namespace: inv, tag: ["stock"], limit: 3 }));
    expect(walked.map((m) => m.content).sort()).toEqual(Array.from({ length: 7 }, (_, i) => `Inventory note number ${i}.`));
    expect(await collect(engram.iterMemories({ namespace: inv, kind: "procedural" }))).toEqual([]);
    const hourAgo = new Date(Date.now() - 3_600_000);
    expect(await collect(engram.iterMemories({ namespace: inv, since: hourAgo }))).toHaveLength(7);
    expect(await collect(engram.iterMemories({ namespace: inv, until: hourAgo }))).toEqual([]);
  });

  test("recall with its options", async () => {
    const r = ns("r");
    const pie = await engram.storeMemory("Grandma's apple pie needs three Granny Smith apples and cinnamon.", { namespace: r });
    const ticket = await engram.storeMemory("Ticket OPS-7781: the nightly backup fails on a full disk.", { namespace: r });
    await waitEmbedded(engram, [pie.memory.id, ticket.memory.id]);

    const found = await engram.recall("how do I bake a fruit dessert?", { namespace: r, mode: "vector", explain: true, limit: 1 });
    const hit = found.results[0] as RecallHit;
    expect([hit.type, hit.memory_id, found.degraded]).toEqual(["memory", pie.memory.id, []]);
    expect(hit.explain?.vector).not.toBeNull();
    expect(hit.chunk.text).toContain("apple");

    const compact = await engram.recall("OPS-7781", { namespaces: [r], format: "compact", budget_chars: 100 });
    expect(compact.results[0]).toMatchObject({ id: ticket.memory.id });
    expect(compact.used_chars).toBeLessThanOrEqual(100);

    const before = new Date(Date.now() - 86_400_000).toISOString();
    expect((await engram.recall("apple pie", { namespace: r, as_of: before })).results).toEqual([]);
    expect((await engram.recall("apple pie", { namespace: r, kinds: ["episodic"], touch: false })).results).toEqual([]);
  });

  test("typed errors carry code and details", async () => {
    const invalid = await engram.storeMemory("x", { tags: ["a".repeat(70)] }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidField);
    expect(invalid).toMatchObject({ status: 422, code: "invalid_field", field: "tags.0" });
    expect((invalid as InvalidField).detail("limit")).toBe(64);

    await expect(engram.getMemory("00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({ code: "not_found" });
    await expect(client("egk_not_a_key").listMemories()).rejects.toBeInstanceOf(Unauthorized);
    const issued = await engram.createKey(["read"], { name: "ts-reader" });
    const forbidden = await client(issued.api_key).storeMemory("a reader cannot write").catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(Forbidden);
    expect((forbidden as Forbidden).detail("required_scope")).toBe("write");
    await engram.revokeKey(issued.key_id);
  });

  test("graph", async () => {
    const g = ns("g");
    const a = (await engram.storeMemory("Decision: the ledger runs on PostgreSQL.", { namespace: g })).memory;
    const b = (await engram.storeMemory("Decision: the ledger moves to SQLite.", { namespace: g })).memory;
    const c = (await engram.storeMemory("Benchmarks show SQLite cannot take our write load.", { namespace: g })).memory;
    const supersedes = await engram.linkMemories(b.id, a.id, "supersedes");
    expect([supersedes.relation, supersedes.created_by]).toEqual(["supersedes", "api"]);
    const batch = await engram.linkMemoriesBatch([{ from_id: c.id, to_id: b.id, relation: "contradicts", strength: 0.8 }]);
    expect(batch.created).toBe(1);
    await expect(engram.linkMemories(c.id, b.id, "contradicts")).rejects.toBeInstanceOf(Conflict);

    const walk = await engram.traverse(a.id, { depth: 2, direction: "both" });
    expect(new Set(walk.nodes.map((n) => n.memory.id))).toEqual(new Set([b.id, c.id]));
    const links = await collect(engram.iterLinks({ memory_id: b.id, relation: ["supersedes"], limit: 1 }));
    expect(links.map((l) => l.id)).toEqual([supersedes.id]);
    expect((await engram.memoryHistory(b.id)).supersedes.map((l) => l.memory.id)).toEqual([a.id]);

    expect((await engram.unlink(supersedes.id)).ended_reason).toBe("link_deleted");
    expect(await collect(engram.iterLinks({ memory_id: a.id }))).toEqual([]);
    expect((await collect(engram.iterLinks({ memory_id: a.id, include_ended: true }))).map((l) => l.id)).toEqual([supersedes.id]);
  });

  test("conversations", async () => {
    const chat = ns("chat");
    const conv = await engram.startConversation({ title: "Planning", namespace: chat, agent_id: "planner", tags: ["q3"] });
    const first = await engram.appendConversation(conv.id, [
      { role: "user", content: "Can we ship on Friday?" },
      { role: "assistant", content: "Not before the freeze lifts.", metadata: { confidence: 0.7 } },
    ]);
    expect([first.seq_from, first.seq_to, first.replayed]).toEqual([1, 2, false]);
    const turns = Array.from({ length: 5 }, (_, i) => ({ role: "user" as const, content: `turn ${i}` }));
    const keyed = await engram.appendConversation(conv.id, turns, { idempotencyKey: "batch-7" });
    const replay = await engram.appendConversation(conv.id, turns, { idempotencyKey: "batch-7" });
    expect([replay.replayed, replay.seq_from, keyed.seq_from]).toEqual([true, 3, 3]);

    const page = await engram.listMessages(conv.id, { from_seq: 2, to_seq: 3 });
    expect(page.items.map((m) => m.content)).toEqual(["Not before the freeze lifts.", "turn 0"]);
    expect((await collect(engram.iterMessages(conv.id, { limit: 2 }))).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect((await engram.getConversation(conv.id)).message_count).toBe(7);
    const listed = await collect(engram.iterConversations({ namespace: chat, agent_id: "planner" }));
    expect(listed.map((c) => c.id)).toEqual([conv.id]);
    expect((await engram.deleteConversation(conv.id)).messages).toBe(7);
    await expect(engram.getConversation(conv.id)).rejects.toBeInstanceOf(NotFound);
  });

  test("documents inline, query-document, and a ticket whose PUT never comes", async () => {
    const docs = ns("docs");
    const body = "# Runbook\n\n## Backups\n\nThe nightly backup runs at 02:00 and keeps 14 copies.\n";
    const doc = await engram.storeDocument(body, { namespace: docs, tags: ["runbook"] });
    expect([doc.document.tier, doc.document.sha256]).toEqual([0, sha256(body)]);
    const answer = await engram.queryDocument(doc.memory.id, "how many copies does the backup keep?", {
      filter: { substrings: ["copies"] },
    });
    expect(answer.spans.some((span) => span.text.includes("14 copies"))).toBe(true);

    const ticket = await engram.createUpload(body.length, sha256(body), { namespace: docs });
    expect([ticket.status, ticket.headers["Content-Length"]]).toEqual(["pending", String(body.length)]);
    await expect(engram.waitForUpload(ticket.upload_id, { waitTimeoutMs: 0 })).rejects.toThrow(WaitTimedOut);
    await expect(engram.waitForUpload(ticket.upload_id, { waitTimeoutMs: 0 })).rejects.toThrow(/still pending/);
  });

  test("uploadDocument of a Tier 2 document reports its stages until ready", async () => {
    // Just over 8 MiB: Tier 2, whose chunks come from the synopsis only.
    const text = `# Handbook\n\n${Array.from({ length: 310_000 }, (_, i) => `Rule ${i}: write it down.\n`).join("")}`;
    const seen: UploadProgress[] = [];
    const file = new File([text], "handbook.md");
    const status = await engram.uploadDocument(file, { namespace: ns("docs"), tags: ["handbook"], progress: (p) => seen.push(p), pollIntervalMs: 100 });
    expect([status.status, status.size_bytes, status.document_tier, status.content_type]).toEqual(["ready", file.size, 2, "text/markdown"]);
    expect(seen[0]).toMatchObject({ stage: "uploading", bytesSent: 0, bytesTotal: file.size });
    expect(seen[1]).toMatchObject({ stage: "uploading", bytesSent: file.size });
    expect(seen.at(-1)).toMatchObject({ stage: "ready", status });
    const memory = await engram.getMemory(status.memory_id ?? "");
    expect([memory.document_tier, memory.tags]).toEqual([2, ["handbook"]]);
    const spans = (await engram.queryDocument(memory.id, "Rule 309999")).spans;
    expect(spans.some((span) => span.text.includes("Rule 309999:"))).toBe(true);
  });

  test("an upload that is not UTF-8 fails with the reason", async () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in Latin-1
    const failed = await engram.uploadDocument(latin1, { pollIntervalMs: 100 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(UploadFailed);
    expect((failed as UploadFailed).reason).toContain("UTF-8");
  });

  test("topics, resume and prime", async () => {
    const brief = ns("brief");
    await engram.storeMemory("Always run the migrations before deploying.", { namespace: brief, kind: "procedural" });
    const tree = await engram.listTopics({ namespace: brief });
    expect([tree.namespace, tree.topics]).toEqual([brief, []]);
    expect((await engram.lookupTopics(["t1"])).missing).toEqual(["t1"]);
    await expect(engram.getTopic("t999")).rejects.toBeInstanceOf(NotFound);
    const briefing = await engram.resume({ namespace: brief, budget_chars: 1000 });
    expect(briefing.text).toContain("migrations");
    expect(briefing.used_chars).toBeLessThanOrEqual(1000);
    expect(await engram.resumeText({ namespace: brief })).toContain("migrations");
    const primed = await engram.prime("deploy the service", { namespace: brief });
    expect(primed.results.map((p) => p.text)).toEqual(["Always run the migrations before deploying."]);
  });

  test("a consolidation run, its plan, and undo", async () => {
    const cons = ns("cons");
    await engram.storeMemory("Never deploy on a Friday afternoon.", { namespace: cons, kind: "procedural" });
    const plan = await engram.consolidate({ namespace: cons, dry_run: true });
    expect([plan.dry_run, plan.status]).toEqual([true, "queued"]);
    expect((await engram.waitForConsolidation(plan.id, { pollIntervalMs: 100 })).status).toBe("done");
    const planned = await collect(engram.iterConsolidationActions(plan.id, { limit: 1 }));
    expect(planned.length).toBeGreaterThan(0);
    expect(planned.some((a) => a.applied)).toBe(false);
    const whole = (await engram.getConsolidationRun(plan.id, { limit: 200 })).actions.items;
    expect(planned.map((a) => a.seq)).toEqual(whole.map((a) => a.seq));

    const run = await engram.consolidate({ namespace: cons, steps: ["decay"] });
    const done = await engram.waitForConsolidation(run.id, { pollIntervalMs: 100 });
    expect([done.status, done.step_counts.map((c) => c.step)]).toEqual(["done", ["decay"]]);
    const runs = await collect(engram.iterConsolidationRuns({ namespace: cons, limit: 1 }));
    expect(runs.map((r) => r.id)).toEqual([run.id, plan.id]);
    expect((await engram.getConsolidationRun(run.id)).actions.items[0]?.step).toBe("decay");
    expect((await engram.undoConsolidation(run.id)).status).toBe("undone");
  });

  test("export, then import into another tenant (and again: deduplicated)", async () => {
    const port = ns("port");
    await engram.storeMemory("Portable fact: the ledger runs on PostgreSQL.", { namespace: port, tags: ["ledger"] });
    const conv = await engram.createConversation({ namespace: port, title: "moving" });
    await engram.appendConversation(conv.id, [{ role: "user", content: "Pack the ledger notes." }]);
    const { job, data } = await engram.exportData({ namespace: port, pollIntervalMs: 100 });
    expect([job.status, job.counts?.memories, job.counts?.messages, data.size]).toEqual(["ready", 1, 1, job.bytes]);
    expect((await data.text()).split("\n").length).toBeGreaterThanOrEqual(3);

    const other = client(otherKey);
    const seen: UploadProgress[] = [];
    const imported = await other.importData(data, { progress: (p) => seen.push(p), pollIntervalMs: 100 });
    expect([imported.status, imported.report?.imported.memories, imported.report?.refused_count]).toEqual(["done", 1, 0]);
    expect([seen[0]?.stage, seen.at(-1)?.stage]).toEqual(["uploading", "ready"]);
    expect((await collect(other.iterMemories({ namespace: port }))).map((m) => m.tags)).toEqual([["ledger"]]);
    const again = await other.importData(data, { pollIntervalMs: 100 });
    expect(again.report?.deduplicated.memories).toBe(1);
  });

  test("erasure of one memory, and of what a selector covers", async () => {
    const gone = ns("gone");
    const memory = (await engram.storeMemory("A secret that must go for good.", { namespace: gone })).memory;
    const erased = await engram.eraseMemory(memory.id);
    expect([erased.scope, erased.status, erased.counts.memories]).toEqual(["memory", "done", 1]);
    expect((await engram.getErasure(erased.id)).id).toBe(erased.id);
    await expect(engram.getMemory(memory.id)).rejects.toBeInstanceOf(NotFound);

    await engram.storeMemories([{ content: "one", namespace: gone }, { content: "two", namespace: gone }]);
    const dry = await engram.erase({ namespace: gone }, { dry_run: true });
    expect([dry.dry_run, dry.counts.memories]).toEqual([true, 2]);
    expect((await engram.erase({ namespace: gone })).counts.memories).toBe(2);
    expect(await collect(engram.iterMemories({ namespace: gone }))).toEqual([]);
  });

  test("admin: health, keys, usage, stats, purge", async () => {
    expect(await engram.health()).toEqual({ status: "ok", database: "ok" });
    expect((await engram.live()).status).toBe("ok");
    const issued = await engram.createKey(["read"], { name: "ts-admin-reader" });
    expect(issued.api_key.startsWith("egk_")).toBe(true);
    expect((await engram.listKeys()).map((k) => k.id)).toContain(issued.key_id);
    expect((await client(issued.api_key).listMemories({ namespace: ns("empty") })).items).toEqual([]);
    await engram.revokeKey(issued.key_id);
    await expect(client(issued.api_key).listMemories()).rejects.toBeInstanceOf(Unauthorized);
    expect((await engram.usage()).calls).toBe(0);
    const adm = ns("adm");
    await engram.storeMemory("counted", { namespace: adm });
    expect(JSON.stringify(await engram.stats())).toContain(adm);
    expect((await engram.purgeNamespace(adm)).memories).toBe(1);
  });
});

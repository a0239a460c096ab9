import { describe, expect, test } from "vitest";
import { ConnectionFailed, Engram, InvalidField, RateLimited, RequestTimedOut, ServiceUnavailable } from "../../src/index.js";
import { envelope, fakeFetch, hang, json, refused, reset } from "./fake-fetch.js";

const MEMORY = { memory: { id: "m1" }, deduplicated: false };
const retry = { baseDelayMs: 1, maxDelayMs: 2, random: () => 0.5 };

function client(replies: Parameters<typeof fakeFetch>[0], extra: Record<string, unknown> = {}) {
  const fake = fakeFetch(replies);
  const engram = new Engram({ baseUrl: "http://engram.test/", apiKey: "egk_test", fetch: fake.fetch, retry, ...extra });
  return { engram, sent: fake.sent };
}

describe("retries never write twice", () => {
  test("a create is resent after a 503 with the same Idempotency-Key", async () => {
    const { engram, sent } = client([envelope(503, "unavailable"), json(201, MEMORY)]);
    expect((await engram.storeMemory("x")).memory.id).toBe("m1");
    expect(sent).toHaveLength(2);
    const keys = sent.map((s) => s.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(/^sdk-[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(sent[0]?.headers.get("authorization")).toBe("Bearer egk_test");
  });

  test("the caller's Idempotency-Key is sent as given, and a new call gets a new key", async () => {
    const { engram, sent } = client([json(201, MEMORY), json(201, MEMORY)]);
    await engram.storeMemory("x", { idempotencyKey: "job-7" });
    await engram.storeMemory("x");
    expect(sent[0]?.headers.get("idempotency-key")).toBe("job-7");
    expect(sent[1]?.headers.get("idempotency-key")).not.toBe("job-7");
    expect(sent[0]?.body).toEqual({ content: "x" });
  });

  test("a PATCH is not resent after an unknown outcome (503, broken connection)", async () => {
    const { engram, sent } = client([envelope(503, "unavailable", { dependency: "database" })]);
    const error = await engram.updateMemory("m1", { importance: 0.5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect((error as ServiceUnavailable).detail("dependency")).toBe("database");
    expect(sent).toHaveLength(1);

    const broken = client([reset()]);
    await expect(broken.engram.restoreMemory("m1")).rejects.toBeInstanceOf(ConnectionFailed);
    expect(broken.sent).toHaveLength(1);
  });

  test("any call is resent when nothing was sent, and after 429 or a 409 that says it was undone", async () => {
    const { engram, sent } = client([
      refused(),
      envelope(429, "throttled", null, { "retry-after": "0" }),
      envelope(409, "conflict", { retryable: true }),
      json(200, { id: "m1" }),
    ]);
    expect((await engram.updateMemory("m1", { source: null })).id).toBe("m1");
    expect(sent).toHaveLength(4);
    expect(sent.every((s) => s.method === "PATCH" && s.url.pathname === "/v1/memories/m1")).toBe(true);
    expect(sent[3]?.body).toEqual({ source: null });
  });

  test("a plain 409 is not retried; the retries end after maxRetries", async () => {
    const conflict = client([envelope(409, "conflict", { field: "relation" })]);
    await expect(conflict.engram.linkMemories("a", "b", "supersedes")).rejects.toMatchObject({ status: 409, code: "conflict" });
    expect(conflict.sent).toHaveLength(1);

    const throttled = client(Array.from({ length: 5 }, () => envelope(429, "throttled", null, { "retry-after": "0" })));
    const error = await throttled.engram.recall("q").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimited);
    expect((error as RateLimited).retryAfter).toBe(0);
    expect(throttled.sent).toHaveLength(4); // the first attempt and 3 retries
  });

  test("a Retry-After longer than maxRetryAfterMs is not waited for", async () => {
    const { engram, sent } = client([envelope(429, "throttled", null, { "retry-after": "120" })]);
    await expect(engram.listMemories()).rejects.toMatchObject({ retryAfter: 120 });
    expect(sent).toHaveLength(1);
  });

  test("onRetry hears each retry with its reason and wait", async () => {
    const events: unknown[] = [];
    const { engram } = client([envelope(502, "bad_gateway"), json(200, { items: [], next_cursor: null })], {
      onRetry: (e: unknown) => events.push(e),
    });
    await engram.listMemories({ namespace: "ops" });
    expect(events).toEqual([{ method: "GET", path: "/v1/memories", retry: 1, delayMs: 0.5, reason: "status 502" }]);
  });
});

describe("timeouts and cancellation", () => {
  test("an attempt that times out is retried when safe, then RequestTimedOut", async () => {
    const { engram, sent } = client([hang(), hang()], { timeoutMs: 20, retry: { ...retry, maxRetries: 1 } });
    const error = await engram.getMemory("m1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimedOut);
    expect(String(error)).toContain("GET /v1/memories/m1: no answer within 20 ms after 2 attempts");
    expect(sent).toHaveLength(2);
  });

  test("a timed-out create without a key is not resent: restore is not retry-safe", async () => {
    const { engram, sent } = client([hang()], { timeoutMs: 20 });
    await expect(engram.restoreMemory("m1")).rejects.toBeInstanceOf(RequestTimedOut);
    expect(sent).toHaveLength(1);
  });

  test("the caller's signal cancels a request in flight and a wait between retries", async () => {
    const inFlight = client([hang()]);
    const controller = new AbortController();
    const pending = inFlight.engram.recall("q", { signal: controller.signal });
    controller.abort(new Error("user left"));
    await expect(pending).rejects.toThrow("user left");

    const waiting = client([envelope(503, "unavailable")], { retry: { ...retry, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const later = new AbortController();
    const started = Date.now();
    const call = waiting.engram.getMemory("m1", { signal: later.signal });
    setTimeout(() => later.abort(new DOMException("stop", "AbortError")), 20);
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(waiting.sent).toHaveLength(1);
  });

  test("a per-call timeoutMs overrides the client's", async () => {
    const { engram } = client([hang()], { timeoutMs: 60_000, retry: { maxRetries: 0 } });
    await expect(engram.health({ timeoutMs: 10 })).rejects.toBeInstanceOf(RequestTimedOut);
  });
});

describe("typed errors", () => {
  test("a 422 names the field and carries the details", async () => {
    const body = { field: "tags.0", limit: 64, fields: [{ field: "tags.0", limit: 64 }] };
    const { engram } = client([envelope(422, "invalid_field", body)]);
    const error = await engram.storeMemory("x", { tags: ["a".repeat(70)] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidField);
    const invalid = error as InvalidField;
    expect([invalid.status, invalid.code, invalid.field, invalid.detail("limit")]).toEqual([422, "invalid_field", "tags.0", 64]);
    expect(invalid.fields).toHaveLength(1);
    expect(invalid.message).toBe("422 invalid_field: invalid_field happened");
  });

  test("API Gateway's own answer gets a code from its status, and its request id", async () => {
    const { engram } = client([json(429, { message: "Too Many Requests" }, { "apigw-requestid": "req-1" })], {
      retry: { maxRetries: 0 },
    });
    await expect(engram.health()).rejects.toMatchObject({ code: "throttled", apiMessage: "Too Many Requests", requestId: "req-1" });
  });
});

describe("pages", () => {
  test("iterators follow next_cursor and next_from_seq with the same filters", async () => {
    const { engram, sent } = client([
      json(200, { items: [{ id: "a" }, { id: "b" }], next_cursor: "c2" }),
      json(200, { items: [{ id: "c" }], next_cursor: null }),
      json(200, { items: [{ seq: 1 }], next_from_seq: 2 }),
      json(200, { items: [{ seq: 2 }], next_from_seq: null }),
    ]);
    const ids: string[] = [];
    for await (const memory of engram.iterMemories({ namespace: "inv", tag: ["x", "y"], limit: 2, since: new Date(0) })) {
      ids.push(memory.id);
    }
    expect(ids).toEqual(["a", "b", "c"]);
    expect(sent[1]?.url.search).toBe("?namespace=inv&tag=x&tag=y&limit=2&since=1970-01-01T00%3A00%3A00.000Z&cursor=c2");
    const seqs: number[] = [];
    for await (const m of engram.iterMessages("conv/1", { limit: 1 })) seqs.push(m.seq);
    expect(seqs).toEqual([1, 2]);
    expect(sent[3]?.url.pathname).toBe("/v1/conversations/conv%2F1/messages");
    expect(sent[3]?.url.search).toBe("?limit=1&from_seq=2");
  });
});

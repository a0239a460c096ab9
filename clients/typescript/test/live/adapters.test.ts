// The TypeScript framework adapters against the local server: EngramStore gives what LangGraph.js's own
// InMemoryStore gives on the same operations and sits in a graph's store slot; the Vercel AI SDK tools
// store and recall, and a generateText run calls them.
import { type BaseStore, InMemoryStore } from "@langchain/langgraph-checkpoint";
import { Annotation, StateGraph, START } from "@langchain/langgraph";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, test } from "vitest";
import { engramTools } from "../../src/adapters/ai.js";
import { EngramStore, engramNamespace, langgraphNamespace } from "../../src/adapters/langgraph.js";
import { client, live, ns, otherKey } from "./server.js";

async function scenario(store: BaseStore, root: string) {
  const users = [root, "ada"];
  const prefs = [root, "ada", "prefs"];
  await store.put(users, "diet", { content: "Ada is vegetarian.", kind: "fact", rank: 3 });
  await store.put(users, "city", { content: "Ada lives in Lyon.", kind: "fact", rank: 1 });
  await store.put(users, "city", { content: "Ada moved to Porto.", kind: "fact", rank: 2 });
  await store.put(prefs, "theme", { content: "Ada prefers the dark theme.", kind: "pref", tags: ["ui"], rank: 0 });
  await store.put([root, "bob"], "diet", { content: "Bob eats everything.", kind: "fact", rank: 5 });
  await store.put(users, "tmp", { content: "to be deleted" });
  await store.delete(users, "tmp");
  const keys = (items: { namespace: string[]; key: string }[]) => items.map((i) => `${i.namespace.join("/")}#${i.key}`).sort();
  const city = await store.get(users, "city");
  return {
    city: city && [city.value, city.key, city.namespace],
    missing: await store.get(users, "tmp"),
    ada: keys(await store.search(users, { limit: 10 })),
    facts: keys(await store.search([root], { filter: { kind: "fact" }, limit: 10 })),
    ranked: keys(await store.search([root], { filter: { rank: { $gte: 2 } }, limit: 10 })),
    // (an array in a filter: LangGraph.js's InMemoryStore matches nothing, EngramStore compares element
    // by element as LangGraph's Python stores do; left out of the comparison)
    paged: (await store.search([root], { limit: 2, offset: 3 })).length,
    prefixed: await store.listNamespaces({ prefix: [root] }),
    suffixed: await store.listNamespaces({ prefix: [root], suffix: ["prefs"] }),
    wildcard: await store.listNamespaces({ prefix: [root, "*", "prefs"] }),
    shallow: await store.listNamespaces({ prefix: [root], maxDepth: 2 }),
  };
}

describe("namespaces", () => {
  test("map to Engram namespaces and back, as the Python SDK maps them", () => {
    expect(engramNamespace(["memories", "ada@example.com"])).toBe("memories/ada_40example_2Ecom");
    for (const namespace of [["a_b", "é/ü", "x:y"], ["default"]]) {
      expect(langgraphNamespace(engramNamespace(namespace))).toEqual(namespace);
    }
    expect(() => engramNamespace(["_private"])).toThrow(/starting with a letter or digit/);
  });
});

describe.skipIf(!live)("framework adapters against the local server", () => {
  test("EngramStore gives what InMemoryStore gives", async () => {
    const root = ns("users");
    const store = new EngramStore({ client: client(otherKey) });
    const [got, wanted] = [await scenario(store, root), await scenario(new InMemoryStore(), root)];
    for (const [name, value] of Object.entries(wanted)) expect(got[name as keyof typeof got], name).toEqual(value);
    const nested = await store.search([root], { filter: { tags: ["ui"] } });
    expect(nested.map((i) => i.key)).toEqual(["theme"]);
  });

  test("EngramStore searches by meaning and sits in a graph's store slot", async () => {
    const store = new EngramStore({ client: client(otherKey) });
    const notes = [ns("notes"), "kitchen"];
    await store.put(notes, "pie", { content: "Grandma's apple pie needs three Granny Smith apples and cinnamon." });
    await store.put(notes, "backup", { content: "Ticket OPS-7781: the nightly backup fails on a full disk." });
    const found = await store.search(notes, { query: "OPS-7781", limit: 1 });
    expect(found.map((i) => [i.key, i.namespace])).toEqual([["backup", notes]]);
    expect(found[0]?.score).toBeGreaterThan(0);

    const State = Annotation.Root({ note: Annotation<string> });
    const graph = new StateGraph(State)
      .addNode("remember", async (state, config) => {
        await config.store?.put(notes, "note", { content: state.note });
        return state;
      })
      .addEdge(START, "remember")
      .compile({ store });
    await graph.invoke({ note: "The user likes short answers." });
    expect((await store.get(notes, "note"))?.value).toEqual({ content: "The user likes short answers." });
  });

  test("the AI SDK tools store and recall, and generateText calls them", async () => {
    const namespace = ns("ai");
    const tools = engramTools(client(otherKey), { namespace });
    const options = { toolCallId: "t1", messages: [] };
    const stored = await tools.remember.execute?.({ content: "The spare keys are in the blue drawer." }, options);
    expect(stored).toMatch(/^stored: memory /);
    const recalled = await tools.recall.execute?.({ query: "spare keys" }, options);
    expect(recalled).toContain("The spare keys are in the blue drawer.");

    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const replies = [
      { type: "tool-call" as const, toolCallId: "c1", toolName: "recall", input: JSON.stringify({ query: "spare keys" }) },
      { type: "text" as const, text: "They are in the blue drawer." },
    ];
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        const reply = replies.shift();
        const finish = reply?.type === "tool-call" ? "tool-calls" : "stop";
        return { content: reply ? [reply] : [], finishReason: { unified: finish, raw: finish }, usage, warnings: [] };
      },
    });
    const result = await generateText({ model, tools, prompt: "Where are the spare keys?", stopWhen: stepCountIs(3) });
    expect(result.text).toBe("They are in the blue drawer.");
    const toolResult = result.steps[0]?.toolResults[0];
    expect(toolResult?.toolName).toBe("recall");
    expect(String(toolResult?.output)).toContain("blue drawer");
  });
});

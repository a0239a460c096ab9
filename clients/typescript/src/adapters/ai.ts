// Memory tools for the Vercel AI SDK: `engramTools(engram)` gives `remember` and `recall`, ready for
// generateText / streamText's `tools`. Their answers are short text, as the Python SDK's tools give.
import { tool } from "ai";
import { z } from "zod";
import type { Engram } from "../client.js";
import type { CompactHit } from "../types.js";

export interface EngramToolsOptions {
  /** The namespace both tools use (default: the tenant's default namespace). */
  namespace?: string;
  /** What one recall puts into the model's context at most (default 4000 characters). */
  budgetChars?: number;
}

/** Recall's compact results as one line each, best first: the text, when it was stored, its id. */
export function recallText(results: CompactHit[]): string {
  if (!results.length) return "No memories found.";
  return results.map((hit) => `- ${hit.text} (${hit.created_at.slice(0, 10)}, ${hit.type} ${hit.id})`).join("\n");
}

export function engramTools(engram: Engram, options: EngramToolsOptions = {}) {
  const { namespace, budgetChars = 4000 } = options;
  return {
    remember: tool({
      description: "Store a fact, decision or preference in long-term memory so it can be recalled later.",
      inputSchema: z.object({
        content: z.string().describe("The memory, written as a self-contained sentence."),
        tags: z.array(z.string()).optional().describe("Optional short labels to file it under."),
      }),
      execute: async ({ content, tags }, { abortSignal }) => {
        const written = await engram.storeMemory(content, { namespace, tags, signal: abortSignal });
        return `${written.deduplicated ? "already known" : "stored"}: memory ${written.memory.id}`;
      },
    }),
    recall: tool({
      description: "Search long-term memory by meaning and keywords; returns the best matching memories.",
      inputSchema: z.object({ query: z.string().describe("What to look for, as a question or keywords.") }),
      execute: async ({ query }, { abortSignal }) => {
        const answer = await engram.recall(query, { namespace, budget_chars: budgetChars, format: "compact", signal: abortSignal });
        return recallText(answer.results);
      },
    }),
  };
}

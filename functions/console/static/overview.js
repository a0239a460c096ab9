// Overview: per namespace, memories by layer and kind, pending embeddings, documents; recent
// consolidation runs; LLM usage this month.
import { get, path } from "./api.js";
import { h, num, table, when, errorBox } from "./dom.js";
import { stackedBar } from "./charts.js";

const LAYERS = ["buffer", "working", "core"];
const KINDS = ["semantic", "episodic", "procedural"];

function monthStart() {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
}

function namespaces(stats, current) {
  const rows = stats.namespaces.map((n) => [
    h("a", { href: "#/recall", dataset: { namespace: n.namespace }, class: n.namespace === current ? "current" : null }, n.namespace),
    num(n.memories),
    stackedBar(LAYERS.map((l) => ({ label: l, value: n.by_layer[l] || 0 })), `${n.namespace} by layer`),
    stackedBar(KINDS.map((k) => ({ label: k, value: n.by_kind[k] || 0 })), `${n.namespace} by kind`),
    num(n.embeddings_pending),
    num(n.documents),
    num(n.trashed),
  ]);
  return h("section", { "aria-labelledby": "ns-title" },
    h("h2", { id: "ns-title" }, "Namespaces"),
    h("p", { class: "muted" },
      `${num(stats.memories)} memories, ${num(stats.chunks)} chunks, ${num(stats.embeddings_pending)} waiting for a vector`,
      stats.embedding_model ? ` (model ${stats.embedding_model.model_id}, ${stats.embedding_model.dimension} dimensions)` : ""),
    rows.length ? table(["Namespace", "Memories", "By layer", "By kind", "Pending vectors", "Documents", "In trash"], rows)
      : h("p", null, "No memories yet."));
}

function runsSection(page) {
  const rows = page.items.map((r) => [
    h("a", { href: path`#/runs/${r.id}` }, r.dry_run ? "plan" : "run"),
    r.namespace, r.status, r.trigger, when(r.created_at),
    r.step_counts.filter((c) => c.actions || c.candidates).map((c) => `${c.step} ${c.actions}`).join(", ") || "nothing to do",
  ]);
  return h("section", { "aria-labelledby": "runs-title" },
    h("h2", { id: "runs-title" }, "Recent consolidation runs"),
    rows.length ? table(["Run", "Namespace", "Status", "Trigger", "Created", "Steps"], rows) : h("p", null, "No runs yet."));
}

function usageSection(usage) {
  const by = new Map();
  for (const line of usage.lines) {
    const key = `${line.component} / ${line.model}`;
    const sum = by.get(key) || { calls: 0, failed: 0, input: 0, output: 0 };
    sum.calls += line.calls; sum.failed += line.failed_calls; sum.input += line.input_tokens; sum.output += line.output_tokens;
    by.set(key, sum);
  }
  return h("section", { "aria-labelledby": "usage-title" },
    h("h2", { id: "usage-title" }, "LLM usage this month"),
    h("p", null, `${num(usage.calls)} call${usage.calls === 1 ? "" : "s"}, ${num(usage.input_tokens)} input and ${num(usage.output_tokens)} output tokens since `, when(usage.since)),
    by.size ? table(["Component / model", "Calls", "Failed", "Input tokens", "Output tokens"],
      [...by].map(([k, s]) => [k, num(s.calls), num(s.failed), num(s.input), num(s.output)])) : null);
}

export async function render(root, _args, { namespace }) {
  root.append(h("h2", { class: "visually-hidden" }, "Overview"));
  const [stats, runs, usage] = await Promise.allSettled([
    get("/v1/stats"),
    get("/v1/consolidation-runs", { namespace, limit: 10 }),
    get("/v1/usage", { since: monthStart() }),
  ]);
  root.append(stats.status === "fulfilled" ? namespaces(stats.value, namespace) : errorBox(stats.reason));
  root.append(runs.status === "fulfilled" ? runsSection(runs.value) : errorBox(runs.reason));
  root.append(usage.status === "fulfilled" ? usageSection(usage.value) : errorBox(usage.reason));
  for (const link of root.querySelectorAll("a[data-namespace]")) {
    link.addEventListener("click", () => {
      sessionStorage.setItem("engram.console.namespace", link.dataset.namespace);
      document.getElementById("namespace").value = link.dataset.namespace;
    });
  }
}

// Recall playground: the recall request with its options, and why each result came back.
import { post, path } from "./api.js";
import { h, highlighted, when, num, errorBox } from "./dom.js";
import { scoreBars } from "./charts.js";

const KINDS = ["semantic", "episodic", "procedural", "conversation"];
const LAYERS = ["buffer", "working", "core"];

function checks(name, values) {
  return h("fieldset", { class: "checks" }, h("legend", null, name),
    values.map((v) => h("label", null, h("input", { type: "checkbox", name, value: v }), ` ${v}`)));
}

function field(label, input, hint) {
  return h("label", { class: "field" }, h("span", null, label), input, hint ? h("small", { class: "muted" }, hint) : null);
}

function list(value) {
  return value.split(",").map((s) => s.trim()).filter(Boolean);
}

function requestFrom(form, namespace) {
  const data = new FormData(form);
  const body = { query: data.get("query"), explain: data.get("explain") === "on", touch: false };
  const namespaces = list(data.get("namespaces") || "");
  body.namespaces = namespaces.length ? namespaces : [namespace];
  const tags = list(data.get("tags") || "");
  if (tags.length) body.tags = tags;
  const kinds = data.getAll("kinds"), layers = data.getAll("layers");
  if (kinds.length) body.kinds = kinds;
  if (layers.length) body.layers = layers;
  for (const name of ["since", "until", "as_of"]) if (data.get(name)) body[name] = new Date(data.get(name)).toISOString();
  if (data.get("source")) body.source = data.get("source");
  if (data.get("limit")) body.limit = Number(data.get("limit"));
  if (data.get("budget_chars")) body.budget_chars = Number(data.get("budget_chars"));
  if (data.get("min_score")) body.min_score = Number(data.get("min_score"));
  body.mode = data.get("mode");
  body.diversify = data.get("diversify") === "on"; // always sent: what is shown is what was asked
  if (data.get("include_expired") === "on") body.include_expired = true;
  if (data.get("critical") !== "on") body.critical = false;
  const expected = (data.get("expected") || "").split("\n").map((s) => s.trim()).filter(Boolean);
  if (expected.length) body.trace = { expected: expected.slice(0, 10) };
  return body;
}

function messages(result, query) {
  return h("ol", { class: "turns", "aria-label": "Original turns" },
    result.messages.map((m) => h("li", { class: `turn role-${m.role}`, value: m.seq },
      h("span", { class: "role" }, `#${m.seq} ${m.role}`), " ", highlighted(m.content, query))));
}

function resultCard(result, query, maxima, index) {
  const isConversation = result.type === "conversation" || Boolean(result.conversation_id);
  const title = isConversation
    ? `Conversation turns ${result.chunk.seq_from}–${result.chunk.seq_to}`
    : `${result.kind} memory`;
  return h("li", { class: "result", dataset: { memoryId: result.memory_id || "" } },
    h("header", null,
      h("h3", null, `${index + 1}. ${title}`),
      result.critical ? h("span", { class: "badge critical", title: "A critical fact: returned first, whatever the query" }, "critical") : null,
      h("span", { class: "score" }, `score ${num(result.score, 4)}`),
      h("span", { class: "muted" }, [result.namespace, result.layer, ...(result.tags || [])].filter(Boolean).join(" · ")),
      when(result.created_at)),
    result.explain ? scoreBars(result.explain, maxima) : null,
    h("blockquote", { class: "chunk" }, highlighted(result.chunk.text, query), result.chunk.truncated ? h("em", null, " [cut by the budget]") : null),
    isConversation && result.messages ? messages(result, query) : null,
    result.conflicts && result.conflicts.length
      ? h("p", { class: "warning" }, `Contradicted by ${result.conflicts.length} memor${result.conflicts.length > 1 ? "ies" : "y"}`) : null,
    result.memory_id ? h("a", { href: path`#/memory/${result.memory_id}`, class: "open" }, "Open memory") : null);
}

// Where each expected memory went: its ranks, or why it was not a candidate or not returned.
function traceTable(trace) {
  const rank = (n) => (n == null ? "–" : `#${n}`);
  return h("section", { id: "recall-trace" },
    h("h3", null, "Trace"),
    h("p", { class: "muted" }, `Each list searched ${num(trace.depth)} deep; ${trace.candidates_per_list} candidates per list go to fusion.`),
    h("table", null,
      h("thead", null, h("tr", null, ["expected", "vector", "keyword", "fused", "score", "result", "why"].map((c) => h("th", null, c)))),
      h("tbody", null, trace.items.map((t) => h("tr", { class: t.returned ? "returned" : "missed" },
        h("td", null, t.memory_id ? h("a", { href: path`#/memory/${t.memory_id}` }, t.expected) : t.expected),
        h("td", null, rank(t.vector_rank)), h("td", null, rank(t.keyword_rank)), h("td", null, rank(t.fused_rank)),
        h("td", null, t.score == null ? "–" : num(t.score, 4)),
        h("td", null, t.returned ? `returned ${rank(t.rank)}` : "not returned"),
        h("td", null, t.reasons.join(", ").replaceAll("_", " ")))))));
}

function showResults(out, response, query) {
  const maxima = {};
  for (const r of response.results) {
    for (const [k, v] of Object.entries(r.explain || {})) if (typeof v === "number") maxima[k] = Math.max(maxima[k] || 0, v);
  }
  out.replaceChildren(
    h("p", { class: "muted", id: "recall-summary" },
      `${response.results.length} result${response.results.length === 1 ? "" : "s"}, ${num(response.used_chars)} characters`,
      response.budget_chars ? ` of ${num(response.budget_chars)}` : "",
      response.degraded.length ? ` · degraded: ${response.degraded.join("; ")}` : ""),
    response.trace ? traceTable(response.trace) : "",
    h("ol", { class: "results", id: "recall-results" }, response.results.map((r, i) => resultCard(r, query, maxima, i))));
}

export async function render(root, _args, { namespace }) {
  const out = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "recall-form", id: "recall-form" },
    field("Query", h("textarea", { name: "query", id: "recall-query", rows: 2, required: true, placeholder: "what does it know about…" })),
    h("div", { class: "grid" },
      field("Namespaces", h("input", { name: "namespaces", value: namespace }), "comma separated"),
      field("Tags (all must match)", h("input", { name: "tags" })),
      field("Since", h("input", { name: "since", type: "date" })),
      field("Until", h("input", { name: "until", type: "date" })),
      field("As of", h("input", { name: "as_of", type: "date" }), "what was valid then"),
      field("Source", h("input", { name: "source" })),
      field("Limit", h("input", { name: "limit", type: "number", min: 1, max: 100, value: 10 })),
      field("Budget (characters)", h("input", { name: "budget_chars", type: "number", min: 100, max: 200000 })),
      field("Minimum score", h("input", { name: "min_score", type: "number", step: "any", min: 0 })),
      field("Mode", h("select", { name: "mode" }, ["hybrid", "vector", "keyword"].map((m) => h("option", { value: m }, m))))),
    h("div", { class: "grid" }, checks("kinds", KINDS), checks("layers", LAYERS),
      h("fieldset", { class: "checks" }, h("legend", null, "options"),
        h("label", null, h("input", { type: "checkbox", name: "explain", checked: true }), " explain"),
        h("label", null, h("input", { type: "checkbox", name: "diversify" }), " diversify"),
        h("label", null, h("input", { type: "checkbox", name: "include_expired" }), " include expired"),
        h("label", null, h("input", { type: "checkbox", name: "critical", checked: true }), " critical facts first"))),
    field("Expected (trace)", h("textarea", { name: "expected", id: "recall-expected", rows: 2,
      placeholder: "memory ids or phrases, one a line" }), "where did it go? up to 10"),
    h("p", { class: "muted" }, "The playground does not count as an access: it sends touch: false."),
    h("button", { type: "submit", id: "recall-submit" }, "Recall"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = requestFrom(form, namespace);
    out.replaceChildren(h("p", { class: "muted" }, "Recalling…"));
    try {
      showResults(out, await post("/v1/recall", body), body.query);
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
  root.append(h("h2", null, "Recall playground"), form, out);
}

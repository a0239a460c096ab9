// Consolidation runs: the list, a dry run or a real run of the namespace, each run's actions as a
// readable diff, and undo behind a confirmation.
import { get, post, path } from "./api.js";
import { h, when, num, shorten, table, errorBox, confirmDialog, status } from "./dom.js";

const OPEN = new Set(["queued", "running"]);
const POLL_MS = 1000;
const MAX_PAIRS = 20; // memories fetched for side-by-side texts, per run page

// Word-level diff (longest common subsequence): words only on one side are marked on that side.
export function wordDiff(a, b) {
  const x = a.split(/(\s+)/), y = b.split(/(\s+)/);
  if (x.length * y.length > 250000) return [x.map((w) => w), y.map((w) => w)];
  const n = x.length, m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const left = [], right = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { left.push(x[i]); right.push(y[j]); i++; j++; }
    else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) { right.push(/\S/.test(y[j]) ? h("ins", null, y[j]) : y[j]); j++; }
    else { left.push(/\S/.test(x[i]) ? h("del", null, x[i]) : x[i]); i++; }
  }
  return [left, right];
}

async function memoryText(id, cache) {
  if (!cache.has(id)) cache.set(id, get(path`/v1/memories/${id}`).catch(() => null));
  return cache.get(id);
}

async function actionItem(action, cache, budget) {
  const ids = action.memory_ids;
  const item = h("li", { class: `action ${action.applied ? "applied" : "planned"}` },
    h("p", null, h("strong", null, action.action.replace(/_/g, " ")), " ", h("span", { class: "muted" }, action.applied ? "applied" : "planned"), " · ", action.reason));
  const d = action.details || {};
  if (d.survivor && d.superseded && budget.left-- > 0) {
    const [survivor, superseded] = await Promise.all([memoryText(d.survivor, cache), memoryText(d.superseded, cache)]);
    if (survivor && superseded) {
      const [left, right] = wordDiff(superseded.content, survivor.content);
      item.append(
        h("p", { class: "supersession" }, h("a", { href: path`#/memory/${survivor.id}` }, shorten(survivor.content, 50)),
          ` ${action.applied ? "supersedes" : "would supersede"} `, h("a", { href: path`#/memory/${superseded.id}` }, shorten(superseded.content, 50))),
        h("div", { class: "side-by-side" },
          h("figure", null, h("figcaption", null, action.applied ? "Superseded" : "Would be superseded"), h("pre", { class: "content" }, left)),
          h("figure", null, h("figcaption", null, action.applied ? "Survivor (merged text)" : "Survivor"), h("pre", { class: "content" }, right))));
      return item;
    }
  }
  if (ids.length === 2 && budget.left-- > 0) {
    // A pair the step judged (a candidate, a supersession, a contradiction): both texts, compared.
    const [first, second] = await Promise.all(ids.map((id) => memoryText(id, cache)));
    if (first && second) {
      const [left, right] = wordDiff(first.content, second.content);
      item.append(h("div", { class: "side-by-side" },
        h("figure", null, h("figcaption", null, h("a", { href: path`#/memory/${first.id}` }, "First memory")), h("pre", { class: "content" }, left)),
        h("figure", null, h("figcaption", null, h("a", { href: path`#/memory/${second.id}` }, "Second memory")), h("pre", { class: "content" }, right))));
      return item;
    }
  }
  if (ids.length > 3) {
    item.append(h("p", { class: "muted" }, `${ids.length} memories`));
  } else if (ids.length) {
    item.append(h("ul", { class: "action-memories" }, ids.map((id) => h("li", null, h("a", { href: path`#/memory/${id}` }, id)))));
  }
  if (d.from && d.to) item.append(h("p", { class: "muted" }, `${d.from} → ${d.to}`));
  return item;
}

async function showRun(root, id, isCurrent) {
  let run = await get(path`/v1/consolidation-runs/${id}`, { limit: 200 });
  const head = h("div", { class: "run-head", "aria-live": "polite" });
  root.append(h("h2", null, run.dry_run ? "Consolidation plan" : "Consolidation run"), head);
  const drawHead = () => head.replaceChildren(
    h("p", null, h("span", { class: `badge status-${run.status}`, id: "run-status" }, run.status), ` ${run.namespace} · ${run.trigger} · created `, when(run.created_at),
      run.finished_at ? [" · finished ", when(run.finished_at)] : null, run.undone_at ? [" · undone ", when(run.undone_at)] : null),
    ...(run.error ? [h("p", { class: "error" }, run.error)] : []),
    table(["Step", "Actions", "LLM candidates", "Skipped", "Seconds"],
      run.step_counts.map((c) => [c.step, num(c.actions), num(c.candidates), c.skipped || "", num(c.seconds, 2)])),
    h("p", { class: "muted" }, `LLM: ${num(run.llm_calls)} calls, ${num(run.llm_input_tokens)} in / ${num(run.llm_output_tokens)} out tokens`, run.llm_capped ? ` (capped: ${run.llm_capped})` : ""));
  drawHead();
  while (OPEN.has(run.status) && isCurrent()) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    run = await get(path`/v1/consolidation-runs/${id}`, { limit: 200 });
    drawHead();
  }
  if (!isCurrent()) return;
  if (!run.dry_run && run.status === "done" && !run.undone_at) {
    root.append(h("div", { class: "actions" }, h("button", { type: "button", class: "danger", id: "undo-run", onclick: async () => {
      if (!(await confirmDialog("Undo this run? Every memory, chunk and link it changed is put back.", "Undo run"))) return;
      try {
        await post(path`/v1/consolidation-runs/${id}/undo`);
        status("Run undone.");
        root.replaceChildren();
        await showRun(root, id, isCurrent);
      } catch (error) { root.append(errorBox(error)); }
    } }, "Undo run")));
  }
  const cache = new Map(), budget = { left: MAX_PAIRS };
  const steps = new Map();
  for (const a of run.actions.items) (steps.get(a.step) || steps.set(a.step, []).get(a.step)).push(a);
  if (!steps.size) root.append(h("p", { id: "run-actions" }, run.status === "done" ? "Nothing to do: no action." : ""));
  for (const [step, actions] of steps) {
    root.append(h("section", { class: "step", dataset: { step } }, h("h3", null, `${step} (${actions.length})`),
      h("ol", { class: "actions-list" }, await Promise.all(actions.map((a) => actionItem(a, cache, budget))))));
  }
  if (run.actions.next_cursor) root.append(h("p", { class: "muted" }, "Only the first 200 actions are shown."));
}

async function start(namespace, dryRun) {
  if (!dryRun && !(await confirmDialog(`Run consolidation on ${namespace} now? It changes memories (undo puts them back).`, "Run now"))) return;
  try {
    const run = await post("/v1/consolidate", { namespace, dry_run: dryRun });
    location.hash = path`#/runs/${run.id}`;
  } catch (error) {
    status(error.message, "error");
  }
}

export async function render(root, [id], { namespace, isCurrent }) {
  if (id) return showRun(root, id, isCurrent);
  root.append(h("h2", null, `Consolidation of ${namespace}`),
    h("div", { class: "actions" },
      h("button", { type: "button", id: "dry-run", onclick: () => start(namespace, true) }, "Dry run (plan only)"),
      h("button", { type: "button", id: "run-now", onclick: () => start(namespace, false) }, "Run now")));
  const row = (r) => [
    h("a", { href: path`#/runs/${r.id}` }, `${r.dry_run ? "plan" : "run"} ${r.id.slice(0, 8)}`), r.status + (r.undone_at ? " (undone)" : ""), r.trigger, when(r.created_at),
    num(r.step_counts.reduce((s, c) => s + c.actions, 0))];
  const page = await get("/v1/consolidation-runs", { namespace, limit: 50 });
  if (!page.items.length) {
    root.append(h("p", null, "No runs in this namespace yet."));
    return;
  }
  const runs = table(["Run", "Status", "Trigger", "Created", "Actions"], page.items.map(row));
  root.append(runs);
  let cursor = page.next_cursor;
  if (cursor) {
    const more = h("button", { type: "button", id: "older-runs", onclick: async () => {
      const next = await get("/v1/consolidation-runs", { namespace, limit: 50, cursor });
      runs.querySelector("tbody").append(...next.items.map((r) => h("tr", null, row(r).map((c) => h("td", null, c)))));
      cursor = next.next_cursor;
      if (!cursor) more.remove();
    } }, "Older runs");
    root.append(h("div", { class: "actions" }, more));
  }
}

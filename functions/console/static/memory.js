// One memory: content, metadata, versions, links as a graph, trash and restore.
import { get, post, del, path } from "./api.js";
import { h, when, num, table, errorBox, confirmDialog, status } from "./dom.js";
import { linkGraph } from "./charts.js";
import { evidenceList } from "./extraction.js";

function facts(m) {
  const rows = [
    ["id", m.id], ["namespace", m.namespace], ["kind", m.kind], ["layer", m.layer], ["status", m.status],
    ["importance", num(m.importance)], ["tags", m.tags.join(", ") || "–"], ["source", m.source || "–"],
    ["critical", m.critical ? "yes: returned first in every recall and briefing of its namespace" : "no"],
    ["conflict key", m.conflict_key || "–"],
    ["version", String(m.version)], ["embedding", m.embedding_status],
    ["accessed", `${m.access_count} times`], ["repeated", `${m.repetition_count} times`],
    ["created", when(m.created_at)], ["updated", when(m.updated_at)],
    ["valid", [m.valid_from ? when(m.valid_from) : "–", " to ", m.valid_to ? when(m.valid_to) : "open"]],
  ];
  if (m.document_tier !== null && m.document_tier !== undefined) rows.push(["document tier", String(m.document_tier)]);
  return h("dl", { class: "facts" }, rows.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]));
}

function history(hist) {
  const versions = hist.versions.map((v) => h("li", null,
    h("strong", null, `version ${v.version}`), " ", when(v.changed_at), h("pre", { class: "content" }, v.content)));
  const chain = (label, items) => items.length ? h("p", null, `${label}: `, items.map((c, i) => [i ? ", " : "", h("a", { href: path`#/memory/${c.memory.id}` }, c.memory.summary.slice(0, 60))])) : null;
  return h("section", { "aria-labelledby": "history-title" },
    h("h3", { id: "history-title" }, "History"),
    chain("Supersedes", hist.supersedes), chain("Superseded by", hist.superseded_by),
    versions.length ? h("ol", { class: "versions" }, versions) : h("p", { class: "muted" }, "No earlier versions."));
}

function linksSection(traversal) {
  return h("section", { "aria-labelledby": "links-title" },
    h("h3", { id: "links-title" }, "Links"),
    traversal.nodes.length
      ? [linkGraph(traversal.root, traversal.nodes),
        table(["Relation", "Memory", "Depth"], traversal.nodes.map((n) => [
          `${n.via.relation}${n.via.from_id === n.memory.id ? " (to this way)" : ""}`,
          h("a", { href: path`#/memory/${n.memory.id}` }, n.memory.summary.slice(0, 80)), String(n.depth)]))]
      : h("p", { class: "muted" }, "No links."));
}

// A derived memory beside the turns it came from, verbatim, and the extraction run that wrote it.
function evidence(m) {
  const run = m.metadata && (m.metadata.extraction || m.metadata).run_id;
  return h("section", { "aria-labelledby": "evidence-title", id: "evidence" },
    h("h3", { id: "evidence-title" }, "Why do we believe this?"),
    h("p", { class: "muted" }, `Learned from ${m.evidence.length === 1 ? "this turn" : `these ${m.evidence.length} turns`}`,
      run ? [" by ", h("a", { href: path`#/extraction/run/${run}` }, `extraction run ${String(run).slice(0, 8)}`)] : null, ":"),
    evidenceList(m.evidence));
}

// A memory in the trash is not readable by id (404): the page keeps what DELETE answered.
async function draw(root, memory) {
  const id = memory.id;
  const [hist, links] = await Promise.allSettled([
    memory.status === "active" ? get(path`/v1/memories/${id}/history`) : Promise.resolve(null),
    memory.status === "active" ? get(path`/v1/memories/${id}/links`, { depth: 2, direction: "both", limit: 40 }) : Promise.resolve(null),
  ]);
  const redraw = async (changed, message) => {
    status(message);
    root.setAttribute("aria-busy", "true");
    root.replaceChildren();
    await draw(root, changed);
    root.setAttribute("aria-busy", "false");
  };
  const trash = memory.status === "active"
    ? h("button", { type: "button", class: "danger", id: "trash-memory", onclick: async () => {
      if (!(await confirmDialog("Move this memory to the trash? It can be restored.", "Move to trash"))) return;
      try { await redraw(await del(path`/v1/memories/${id}`), "Moved to the trash."); } catch (e) { root.append(errorBox(e)); }
    } }, "Move to trash")
    : h("button", { type: "button", id: "restore-memory", onclick: async () => {
      try { await redraw(await post(path`/v1/memories/${id}/restore`), "Restored."); } catch (e) { root.append(errorBox(e)); }
    } }, "Restore");
  root.append(
    h("h2", null, "Memory", memory.status === "deleted" ? h("span", { class: "badge" }, " in trash") : null),
    h("pre", { class: "content", id: "memory-content" }, memory.content),
    h("div", { class: "actions" }, trash,
      memory.document_tier !== null && memory.document_tier !== undefined
        ? h("a", { href: path`#/documents/${id}`, class: "button" }, "Ask this document") : null),
    memory.evidence && memory.evidence.length ? evidence(memory) : null,
    h("div", { class: "two-columns" },
      h("section", { "aria-labelledby": "facts-title" }, h("h3", { id: "facts-title" }, "Details"), facts(memory),
        h("h3", null, "Metadata"), h("pre", { class: "metadata" }, JSON.stringify(memory.metadata, null, 2))),
      links.status === "fulfilled" && links.value ? linksSection(links.value)
        : links.status === "rejected" ? errorBox(links.reason) : null),
    hist.status === "rejected" ? errorBox(hist.reason) : hist.value ? history(hist.value) : null);
}

export async function render(root, [id]) {
  if (!id) {
    root.append(h("p", null, "Open a memory from a recall result, a topic or a consolidation run."));
    return;
  }
  let memory;
  try {
    memory = await get(path`/v1/memories/${id}`);
  } catch (error) {
    if (error.status !== 404) throw error;
    memory = await fromTrash(id);  // a trashed memory (deleted, or evicted by consolidation) reads as 404
    if (!memory) throw error;
  }
  await draw(root, memory);
}

const TRASH_PAGES = 5; // 200 each, newest first

async function fromTrash(id) {
  let cursor;
  for (let page = 0; page < TRASH_PAGES; page++) {
    const trash = await get("/v1/trash", { limit: 200, cursor });
    const found = trash.items.find((m) => m.id === id);
    if (found || !trash.next_cursor) return found || null;
    cursor = trash.next_cursor;
  }
  return null;
}

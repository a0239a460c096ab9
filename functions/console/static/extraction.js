// What was learned from conversations: the extraction runs of a conversation (or of the namespace),
// each action with the turns it came from, and undo behind a confirmation.
import { get, post, path } from "./api.js";
import { h, when, num, table, errorBox, confirmDialog, status } from "./dom.js";

const RUNS_SHOWN = 20; // runs of one conversation drawn with their actions

// The turns a derived memory came from, verbatim (text nodes, never HTML): why do we believe this?
export function evidenceList(turns) {
  return h("ol", { class: "evidence" }, turns.map((t) => h("li", null,
    h("p", { class: "muted" }, h("span", { class: "role" }, t.role), ` · turn ${t.seq} · `, when(t.created_at), " · ",
      h("a", { href: path`#/extraction/conversation/${t.conversation_id}` }, `conversation ${t.conversation_id.slice(0, 8)}`)),
    h("blockquote", { class: "turn" }, t.content))));
}

// Node.append takes nodes and strings only: what h() takes as children (lists, nothing) made so.
function present(...parts) {
  return parts.flat().filter((p) => p !== null && p !== undefined);
}

function over(run) {
  if (!run.conversation_id) return "a pushed text";
  return [h("a", { href: path`#/extraction/conversation/${run.conversation_id}` }, `conversation ${run.conversation_id.slice(0, 8)}`),
    ` turns ${run.seq_from}–${run.seq_to}`];
}

function actionItem(a) {
  const memory = (id, label) => (id ? [" · ", h("a", { href: path`#/memory/${id}` }, label)] : null);
  return h("li", { class: "action", dataset: { action: a.action } },
    h("p", null, h("strong", null, a.action), ` ${a.kind}`, a.event_date ? ` on ${a.event_date}` : "",
      memory(a.memory_id, "the memory"), memory(a.target_id, a.action === "update" ? "the memory it replaced" : "the stored memory"),
      h("span", { class: "muted" }, ` · evidence ${a.evidence_seqs.map((s) => `#${s}`).join(", ")}`)),
    h("pre", { class: "content" }, a.content),
    a.evidence.length ? evidenceList(a.evidence) : null);
}

async function runSection(id) {
  const run = await get(path`/v1/extraction/runs/${id}`);
  const section = h("section", { class: "extraction-run", dataset: { run: run.id }, "aria-labelledby": `run-${run.id}` });
  const undo = run.status === "done" && !run.dry_run
    ? h("button", { type: "button", class: "danger undo-extraction", onclick: async () => {
      if (!(await confirmDialog("Undo this run? Its memories go to the trash, updates and invalidations are reversed, the summary is put back.", "Undo run"))) return;
      try {
        await post(path`/v1/extraction/runs/${id}/undo`);
        status("Run undone.");
        section.replaceWith(await runSection(id));
      } catch (error) { section.append(errorBox(error)); }
    } }, "Undo run")
    : null;
  section.append(...present(
    h("h3", { id: `run-${run.id}` }, run.dry_run ? "Dry run " : "Run ", h("a", { href: path`#/extraction/run/${run.id}` }, run.id.slice(0, 8)), " over ", over(run)),
    h("p", null, h("span", { class: `badge status-${run.status}` }, run.status), ` ${run.namespace} · ${run.trigger} · created `, when(run.created_at),
      run.undone_at ? [" · undone ", when(run.undone_at)] : null,
      ` · LLM: ${num(run.llm_calls)} calls, ${num(run.llm_input_tokens + run.llm_output_tokens)} tokens`),
    run.reason ? h("p", { class: run.status === "failed" ? "error" : "muted" }, run.reason) : null,
    undo ? h("div", { class: "actions" }, undo) : null,
    run.actions.length
      ? h("ol", { class: "actions-list" }, run.actions.map(actionItem))
      : h("p", { class: "muted" }, run.status === "done" ? "Nothing durable to learn." : "No actions."),
    run.summary_after ? [h("h4", null, "Summary after this run"), h("pre", { class: "content" }, run.summary_after)] : null));
  return section;
}

async function conversationRuns(root, id) {
  const [conversation, page] = await Promise.all([
    get(path`/v1/conversations/${id}`),
    get("/v1/extraction/runs", { conversation_id: id, limit: RUNS_SHOWN }),
  ]);
  root.append(...present(
    h("h2", null, `What was learned from ${conversation.title || `conversation ${id.slice(0, 8)}`}`),
    h("p", { class: "muted" }, `${conversation.namespace} · ${num(conversation.message_count)} turns, ${num(conversation.extracted_seq)} read · extraction ${conversation.extraction}`),
    conversation.summary ? [h("h3", null, "Summary"), h("pre", { class: "content", id: "conversation-summary" }, conversation.summary)] : null));
  if (!page.items.length) {
    root.append(h("p", null, "No extraction runs over this conversation yet."));
    return;
  }
  for (const run of page.items) root.append(await runSection(run.id));
  if (page.next_cursor) root.append(h("p", { class: "muted" }, `Only the latest ${RUNS_SHOWN} runs are shown.`));
}

async function namespaceRuns(root, namespace) {
  root.append(h("h2", null, `Extraction in ${namespace}`));
  const page = await get("/v1/extraction/runs", { namespace, limit: 50 });
  if (!page.items.length) {
    root.append(h("p", null, "No extraction runs in this namespace yet."));
    return;
  }
  const counts = (r) => Object.entries(r.counts).map(([action, n]) => `${n} ${action}`).join(", ") || "–";
  root.append(table(["Run", "Over", "Status", "Actions", "Tokens", "Created"], page.items.map((r) => [
    h("a", { href: path`#/extraction/run/${r.id}` }, `${r.dry_run ? "dry run" : "run"} ${r.id.slice(0, 8)}`), over(r),
    r.status, counts(r), num(r.llm_input_tokens + r.llm_output_tokens), when(r.created_at)])));
}

export async function render(root, [what, id], { namespace }) {
  if (what === "run" && id) {
    root.append(h("h2", null, "Extraction run"), await runSection(id));
  } else if (what === "conversation" && id) {
    await conversationRuns(root, id);
  } else {
    await namespaceRuns(root, namespace);
  }
}

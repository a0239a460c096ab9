// Documents: drag-and-drop (or pick) a Markdown or text file, PUT it to the presigned URL with a
// progress bar, follow its status until it is ready, then ask it a question.
import { get, post, path } from "./api.js";
import { h, num, errorBox, highlighted } from "./dom.js";

const POLL_MS = 1000;
// Set by the browser itself; a script may not send them (the presigned URL's Content-Length included).
const FORBIDDEN_HEADERS = new Set(["content-length", "host"]);

function contentType(file) {
  return /\.(txt|text|log)$/i.test(file.name) || file.type === "text/plain" ? "text/plain" : "text/markdown";
}

async function sha256Hex(file) {
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// XMLHttpRequest, not fetch: only it reports upload progress.
function put(ticket, file, progress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", ticket.url);
    for (const [name, value] of Object.entries(ticket.headers || {})) {
      if (!FORBIDDEN_HEADERS.has(name.toLowerCase())) xhr.setRequestHeader(name, value);
    }
    xhr.upload.addEventListener("progress", (e) => { if (e.lengthComputable) progress.value = e.loaded / e.total; });
    xhr.addEventListener("load", () => (xhr.status < 300 ? resolve() : reject(new Error(`upload refused: HTTP ${xhr.status} ${xhr.responseText.slice(0, 200)}`))));
    xhr.addEventListener("error", () => reject(new Error("upload failed: the storage endpoint could not be reached")));
    xhr.send(file);
  });
}

async function upload(file, namespace, out, onReady) {
  const progress = h("progress", { max: 1, value: 0, id: "upload-progress", "aria-label": `Uploading ${file.name}` });
  const state = h("p", { id: "upload-status" }, "Hashing…");
  out.replaceChildren(h("p", null, `${file.name} (${num(file.size)} bytes)`), progress, state);
  try {
    const ticket = await post("/v1/documents/uploads", {
      namespace, size_bytes: file.size, sha256: await sha256Hex(file), content_type: contentType(file),
    });
    state.textContent = "Uploading…";
    await put(ticket, file, progress);
    progress.value = 1;
    let status = ticket;
    while (status.status === "pending" && out.isConnected) { // stops when the operator leaves the view
      state.textContent = "Uploaded; waiting for ingestion…";
      await new Promise((r) => setTimeout(r, POLL_MS));
      status = await get(path`/v1/documents/uploads/${ticket.upload_id}`);
    }
    if (status.status === "pending") return;
    if (status.status === "failed") {
      state.textContent = `Failed: ${status.reason}`;
      state.className = "error";
      return;
    }
    state.replaceChildren(`Ready: tier ${status.document_tier}${status.deduplicated ? " (already stored)" : ""}. `,
      h("a", { href: path`#/memory/${status.memory_id}` }, "Open its memory"));
    onReady(status.memory_id);
  } catch (error) {
    out.append(errorBox(error));
  }
}

function showSpan(n) {
  const span = document.getElementById(`span-${n}`);
  span.scrollIntoView({ block: "center" });
  span.focus();
}

function answerWithCitations(answer, spans) {
  // "[2]" in the answer is a button to span 2 below (not a #fragment link: the hash is the view).
  const known = new Set(spans.map((s) => String(s.n)));
  return answer.split(/(\[\d+\])/).map((part) => {
    const n = part.match(/^\[(\d+)\]$/);
    return n && known.has(n[1])
      ? h("button", { type: "button", class: "citation", "aria-label": `span ${n[1]}`, onclick: () => showSpan(n[1]) }, part)
      : part;
  });
}

function queryBox(memoryInput) {
  const out = h("div", { "aria-live": "polite", id: "query-output" });
  const form = h("form", { id: "query-form", class: "query-form" },
    h("label", { class: "field" }, h("span", null, "Document (memory id)"), memoryInput),
    h("label", { class: "field" }, h("span", null, "Question"), h("input", { name: "question", id: "query-question", required: true })),
    h("button", { type: "submit" }, "Ask"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const question = new FormData(form).get("question");
    out.replaceChildren(h("p", { class: "muted" }, "Reading…"));
    try {
      const r = await post(path`/v1/memories/${memoryInput.value.trim()}/query`, { question, answer: true });
      out.replaceChildren(
        r.answer ? h("section", { class: "answer" }, h("h3", null, "Answer"), h("p", null, answerWithCitations(r.answer, r.spans)))
          : h("p", { class: "muted" }, r.reason || "No answer (no LLM configured): the spans below are what it would read."),
        h("h3", null, `Spans used (${num(r.used_bytes)} of ${num(r.budget_bytes)} bytes${r.truncated ? ", cut" : ""})`),
        h("ol", { class: "spans", id: "query-spans" }, r.spans.map((s) => h("li", { id: `span-${s.n}`, value: s.n, tabindex: -1 },
          h("span", { class: "muted" }, `characters ${num(s.start)}–${num(s.end)} · score ${num(s.score)}`),
          h("pre", { class: "content" }, highlighted(s.text, question))))));
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
  return [form, out];
}

export async function render(root, [memoryId], { namespace }) {
  const picker = h("input", { type: "file", id: "document-file", accept: ".md,.markdown,.txt,text/markdown,text/plain" });
  const drop = h("div", { class: "drop-zone", id: "drop-zone" },
    h("p", null, `Drop a Markdown or text file here (up to 50 MiB) to store it in ${namespace}, or `),
    h("label", null, "choose a file: ", picker));
  const out = h("div", { class: "upload", "aria-live": "polite" });
  const memoryInput = h("input", { name: "memory_id", id: "query-memory", required: true, value: memoryId || "", spellcheck: "false" });
  const onReady = (id) => { memoryInput.value = id; };
  picker.addEventListener("change", () => { if (picker.files[0]) upload(picker.files[0], namespace, out, onReady); });
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const file = e.dataTransfer.files[0];
    if (file) upload(file, namespace, out, onReady);
  });
  root.append(h("h2", null, "Documents"), drop, out, h("h2", null, "Ask a document"), ...queryBox(memoryInput));
}

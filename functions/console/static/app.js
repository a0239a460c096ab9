// The console's shell: the key (sessionStorage only), the namespace, and one view per #/route.
import { session, get } from "./api.js";
import { h, errorBox, status } from "./dom.js";
import * as overview from "./overview.js";
import * as recall from "./recall.js";
import * as memory from "./memory.js";
import * as topics from "./topics.js";
import * as runs from "./runs.js";
import * as extraction from "./extraction.js";
import * as documents from "./documents.js";
import * as grants from "./grants.js";

const VIEWS = { overview, recall, memory, topics, runs, extraction, documents, grants };
const main = document.getElementById("main");
let rendering = 0;

function showSession() {
  const has = Boolean(session.key);
  document.getElementById("key-form").hidden = has;
  document.getElementById("session").hidden = !has;
  document.getElementById("namespace").value = session.namespace;
  // Only the key's public prefix is shown (egk_xxxxxxxx), never the secret part.
  document.getElementById("key-label").textContent = has ? `Key ${session.key.split("_").slice(0, 2).join("_")}…` : "";
}

async function render() {
  const ticket = ++rendering;
  const [name = "overview", ...args] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const view = VIEWS[name] || overview;
  for (const link of document.querySelectorAll("#views a")) {
    const current = link.getAttribute("href") === `#/${name}`;
    current ? link.setAttribute("aria-current", "page") : link.removeAttribute("aria-current");
  }
  if (!session.key) {
    main.replaceChildren(h("p", null, "Paste an API key above. It stays in this tab (sessionStorage) and is sent only to this API."));
    return;
  }
  const container = h("section", { class: "view", "aria-busy": "true", dataset: { view: name } });
  main.replaceChildren(container);
  try {
    await view.render(container, args, { namespace: session.namespace, isCurrent: () => ticket === rendering });
  } catch (error) {
    if (ticket === rendering) container.append(errorBox(error));
  } finally {
    container.setAttribute("aria-busy", "false");
    performance.mark(`view-rendered:${name}`); // bench/console_load.py reads it
  }
}

document.getElementById("key-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = document.getElementById("api-key");
  session.key = input.value.trim();
  input.value = "";
  try {
    await get("/v1/stats");
    status("Key accepted.");
  } catch (error) {
    session.key = null;
    status(`Key refused: ${error.message}`, "error");
  }
  showSession();
  render();
});

document.getElementById("forget-key").addEventListener("click", () => {
  session.key = null;
  showSession();
  render();
  document.getElementById("api-key").focus();
});

document.getElementById("namespace").addEventListener("change", (event) => {
  session.namespace = event.target.value.trim();
  render();
});

window.addEventListener("hashchange", () => {
  document.getElementById("status").textContent = "";
  render();
  main.focus({ preventScroll: true });
});
showSession();
render();

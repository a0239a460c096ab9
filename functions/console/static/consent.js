// The OAuth consent page (GET /oauth/authorize sends the person here with ?request=<id>). The person
// pastes an API key once: it lives in this module's memory only (never storage, never a URL) and is
// sent only as the bearer of /v1/stats (to list namespaces) and of the approve call. Deny needs no key.
import { api, path } from "./api.js";
import { h, when } from "./dom.js";

const ROOT = new URL("../", document.baseURI); // …/console/consent.html → the API's root, stage kept
const SCOPES = {
  read: "Read and recall your memories",
  write: "Store, change and delete memories",
  admin: "Everything the key can do, keys and erasure included",
};
const requestId = new URLSearchParams(location.search).get("request");
let key = null;
let requested = [];

const $ = (id) => document.getElementById(id);
const call = (method, route, options = {}) => api(method, route, { key: null, ...options, base: ROOT });

function problem(message) {
  $("problem").replaceChildren(message ? h("p", { class: "error" }, message) : "");
}

const EXPIRED = "This request has expired or was already answered. Go back to the app and connect again.";
const WRONG_KEY = "That key was not accepted: it is wrong, revoked or expired.";

function explain(error) {
  if (error.status === 404) return EXPIRED;
  if (error.status === 401) return WRONG_KEY;
  const scope = error.details && error.details.scope;
  if (error.status === 403 && scope && /key lacks/.test(error.message)) {
    return `This key lacks the "${scope}" scope: untick it, or use a key that has it.`;
  }
  return error.message;
}

function navigate(url) {
  const target = new URL(url);
  if (["javascript:", "data:", "vbscript:", "blob:"].includes(target.protocol)) throw new Error("refusing that redirect");
  location.assign(target.href);
}

function busy(on) {
  for (const id of ["use-key", "approve", "deny"]) $(id).disabled = on;
}

async function load() {
  if (!requestId) {
    $("loading").hidden = true;
    problem("This page is opened by an app asking to connect: go back to the app and connect again.");
    return;
  }
  try {
    const request = await call("GET", path`/oauth/requests/${requestId}`);
    requested = request.scopes || [];
    $("client-name").textContent = request.client_name || request.client_id;
    $("client-id").textContent = request.client_name ? `(${request.client_id})` : "";
    $("redirect-host").textContent = request.redirect_host;
    $("requested-scopes").replaceChildren(...requested.flatMap((s, i) => [i ? " " : "", h("span", { class: "badge" }, s)]));
    $("expires-at").replaceChildren(when(request.expires_at));
    $("request").hidden = false;
    $("api-key").focus();
  } catch (error) {
    problem(explain(error));
  } finally {
    $("loading").hidden = true;
  }
}

function scopeChoices() {
  return requested.map((scope) => h("label", null,
    h("input", { type: "checkbox", name: "scope", value: scope, checked: true }),
    ` ${scope}`, SCOPES[scope] ? h("span", { class: "muted" }, ` — ${SCOPES[scope]}`) : null));
}

function namespaceChoices(names) {
  if (!names.length) return [h("p", { class: "muted" }, "No namespaces to list with this key: type them below.")];
  return names.map((name) => h("label", null, h("input", { type: "checkbox", name: "namespace", value: name }), ` ${name}`));
}

$("key-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("api-key");
  const pasted = input.value.trim();
  input.value = "";
  problem("");
  busy(true);
  let names = [];
  try {
    const stats = await call("GET", "/v1/stats", { key: pasted });
    names = stats.namespaces.map((n) => n.namespace);
  } catch (error) {
    // A key without the read scope may still grant write: it just cannot list namespaces.
    if (error.status !== 403) {
      problem(explain(error));
      busy(false);
      input.focus();
      return;
    }
  }
  key = pasted;
  // Only the key's public prefix (egk_xxxxxxxx), as the console shows it.
  $("key-note").textContent = `Approving with key ${pasted.split("_").slice(0, 2).join("_")}… (kept in this page only).`;
  $("scopes").replaceChildren(h("legend", null, "What the app may do"), ...scopeChoices());
  $("namespace-list").replaceChildren(...namespaceChoices(names));
  $("key-form").hidden = true;
  $("grant-form").hidden = false;
  $("approve").hidden = false;
  busy(false);
  $("scopes").querySelector("input").focus();
});

$("namespace-list").addEventListener("change", () => { $("some-namespaces").checked = true; });
$("other-namespaces").addEventListener("input", () => { $("some-namespaces").checked = true; });

function chosenNamespaces() {
  if ($("all-namespaces").checked) return null;
  const ticked = [...document.querySelectorAll("input[name=namespace]:checked")].map((el) => el.value);
  const typed = $("other-namespaces").value.split(",").map((s) => s.trim()).filter(Boolean);
  return [...new Set([...ticked, ...typed])];
}

$("grant-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  problem("");
  const scopes = [...document.querySelectorAll("input[name=scope]:checked")].map((el) => el.value);
  const namespaces = chosenNamespaces();
  if (!scopes.length) return problem("Tick at least one thing the app may do, or Deny.");
  if (namespaces && !namespaces.length) return problem("Tick or type at least one namespace, or choose Every namespace.");
  busy(true);
  try {
    const answer = await call("POST", path`/oauth/requests/${requestId}/approve`, { key, body: { scopes, namespaces } });
    key = null;
    navigate(answer.redirect_to);
  } catch (error) {
    problem(explain(error));
    busy(false);
  }
});

$("deny").addEventListener("click", async () => {
  problem("");
  busy(true);
  try {
    const answer = await call("POST", path`/oauth/requests/${requestId}/deny`, { body: {} });
    key = null;
    navigate(answer.redirect_to);
  } catch (error) {
    problem(explain(error));
    busy(false);
  }
});

load();

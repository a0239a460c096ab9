// Grants: the apps connected by OAuth (each approved on the consent page with one of the tenant's keys),
// what each may do and where, and a Revoke that stops its tokens at once.
import { get, del, path } from "./api.js";
import { h, table, when, status, errorBox, confirmDialog } from "./dom.js";

function state(grant) {
  if (grant.revoked_at) return h("span", { class: "badge status-failed" }, "revoked");
  if (grant.expires_at && new Date(grant.expires_at) < new Date()) return h("span", { class: "badge" }, "expired");
  return h("span", { class: "badge status-done" }, "active");
}

function revokeButton(grant, root, context) {
  if (grant.revoked_at) return "";
  const name = grant.client_name || grant.client_id;
  return h("button", {
    type: "button", class: "danger", dataset: { grant: grant.id }, "aria-label": `Revoke ${name}`,
    onclick: async () => {
      if (!(await confirmDialog(`Revoke ${name}? Its tokens stop working at once; the app must be connected again.`, "Revoke"))) return;
      try {
        await del(path`/v1/grants/${grant.id}`);
        status(`Revoked ${name}.`);
        root.replaceChildren();
        await render(root, [], context);
      } catch (error) {
        status(`Not revoked: ${error.message}`, "error");
      }
    },
  }, "Revoke");
}

export async function render(root, _args, context) {
  root.append(h("h2", null, "Connected apps"));
  let grants;
  try {
    grants = (await get("/v1/grants")).grants;
  } catch (error) {
    root.append(errorBox(error));
    return;
  }
  root.append(h("p", { class: "muted" },
    "Apps added by URL (a chat app's connector) get tokens through OAuth once a key approves them. A grant can never do more than the key that approved it."));
  if (!grants.length) {
    root.append(h("p", { id: "no-grants" }, "No app is connected."));
    return;
  }
  root.append(h("div", { id: "grants" }, table(
    ["App", "Scopes", "Namespaces", "Approved", "Last used", "State", ""],
    grants.map((g) => [
      h("span", { class: "stacked-cell" }, h("strong", null, g.client_name || g.client_id), g.client_name ? h("span", { class: "muted" }, g.client_id) : null),
      (g.scopes || []).join(" "),
      g.namespaces ? g.namespaces.join(", ") : "all",
      when(g.created_at),
      g.last_used_at ? when(g.last_used_at) : h("span", { class: "muted" }, "never"),
      state(g),
      revokeButton(g, root, context),
    ]),
    "Grants of this tenant")));
}

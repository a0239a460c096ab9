// Elements are built with createElement and text nodes only, never innerHTML: memory contents are
// untrusted text, and the Content-Security-Policy allows no inline script anyway.
const SVG_NS = "http://www.w3.org/2000/svg";

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function setProps(el, props) {
  for (const [name, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.setAttribute("class", value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name in el && !(el instanceof SVGElement) && typeof value !== "string") el[name] = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  return el;
}

export function h(tag, props, ...children) {
  return append(setProps(document.createElement(tag), props), children);
}

export function svg(tag, props, ...children) {
  return append(setProps(document.createElementNS(SVG_NS, tag), props), children);
}

export function status(message, kind = "info") {
  const box = document.getElementById("status");
  box.textContent = message;
  box.dataset.kind = kind;
  clearTimeout(status.timer);
  status.timer = setTimeout(() => { box.textContent = ""; }, 5000);
}

export function errorBox(error) {
  const hint = error.status === 401 || error.status === 403
    ? (error.status === 403 && error.details && error.details.required_scope
      ? ` (this key lacks the ${error.details.required_scope} scope)` : " (check the key)")
    : "";
  return h("p", { class: "error", role: "alert" }, `${error.message}${hint}`);
}

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return h("time", { datetime: iso, title: iso }, d.toISOString().replace("T", " ").slice(0, 16) + " UTC");
}

export function num(n, digits = 3) {
  return typeof n === "number" ? (Number.isInteger(n) ? n.toLocaleString("en") : n.toFixed(digits)) : "–";
}

export function shorten(text, max = 80) {
  const t = (text || "").replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

// Common words a keyword search ignores too: marking them would say nothing about the match.
const STOPWORDS = new Set("the and for are was were with into from that this what when where which who how many much does did has have not but you your our its they them".split(" "));

// Words of the query (3+ letters) marked in the text: how the recalled chunk matched.
export function highlighted(text, query) {
  const words = [...new Set((query || "").toLowerCase().match(/[\p{L}\p{N}_-]{3,}/gu) || [])].filter((w) => !STOPWORDS.has(w));
  if (!words.length) return [text];
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")).join("|")})`, "giu");
  return text.split(pattern).map((part, i) => (i % 2 ? h("mark", null, part) : part));
}

export function table(headers, rows, caption) {
  return h("div", { class: "table-wrap" },
    h("table", null,
      caption ? h("caption", null, caption) : null,
      h("thead", null, h("tr", null, headers.map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", null, rows.map((r) => h("tr", null, r.map((c) => h("td", null, c)))))));
}

export function confirmDialog(message, confirmLabel) {
  // A modal <dialog>: focus is trapped in it and Escape cancels.
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "confirm", "aria-label": "Confirm" },
      h("p", null, message),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "danger", id: "confirm-yes", onclick: () => dialog.close("yes") }, confirmLabel),
        h("button", { type: "button", id: "confirm-no", onclick: () => dialog.close("no") }, "Cancel")));
    dialog.addEventListener("close", () => { dialog.remove(); resolve(dialog.returnValue === "yes"); });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector("#confirm-no").focus();
  });
}

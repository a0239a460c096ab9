// Every call goes to the public /v1 API with the pasted key: the console can do nothing the key cannot.
const KEY = "engram.console.key";
const NAMESPACE = "engram.console.namespace";

export const session = {
  get key() { return sessionStorage.getItem(KEY); },
  set key(value) { value ? sessionStorage.setItem(KEY, value) : sessionStorage.removeItem(KEY); },
  get namespace() { return sessionStorage.getItem(NAMESPACE) || "default"; },
  set namespace(value) { sessionStorage.setItem(NAMESPACE, value || "default"); },
};

export class ApiError extends Error {
  constructor(status, body) {
    // Our API's {"error": {code, message, details}}, or OAuth's {"error": "code", "error_description"}.
    const raw = body && body.error;
    const error = typeof raw === "string" ? { code: raw, message: body.error_description || raw } : raw || {};
    super(error.message || (body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || "";
    this.details = error.details;
  }
}

// A path with each interpolated value as one encoded segment: path`/v1/memories/${id}/history`.
// Ids come from the URL fragment and form fields, so "..%2Fv1%2Fkeys" must stay one segment of this
// route; "", "." and ".." are refused (encoding keeps dots, and a URL resolves a ".." segment).
export function path(strings, ...values) {
  return strings.reduce((out, text, i) => {
    const value = String(values[i - 1]);
    if (/^\.{0,2}$/.test(value)) throw new Error(`Not a valid id: "${value}"`);
    return out + encodeURIComponent(value) + text;
  });
}

// Relative to the page (…/console), so a stage prefix in front of the API is kept; a page under
// /console/ passes its own `base` (the API's root).
export function apiUrl(path, query, base = document.baseURI) {
  const url = new URL(path.replace(/^\//, ""), base);
  for (const [name, value] of Object.entries(query || {})) {
    if (value === undefined || value === null || value === "") continue;
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, v);
  }
  return url;
}

// `key`: the console's stored key unless given (null sends none); the consent page passes the key it
// holds in memory only.
export async function api(method, path, { body, query, key = session.key, base } = {}) {
  const headers = key ? { Authorization: `Bearer ${key}` } : {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(apiUrl(path, query, base), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { message: text }; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const get = (path, query) => api("GET", path, { query });
export const post = (path, body, query) => api("POST", path, { body, query });
export const del = (path) => api("DELETE", path);

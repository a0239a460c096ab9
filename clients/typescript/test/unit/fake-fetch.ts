// A fetch that answers from a script and records what was sent: the HTTP boundary, faked.
export interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

export type Reply = Response | Error | ((sent: Sent, signal?: AbortSignal) => Response | Promise<Response> | Error);

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

export function envelope(status: number, code: string, details: unknown = null, headers: Record<string, string> = {}) {
  return json(status, { error: { code, message: `${code} happened`, details } }, headers);
}

/** A fetch error as Node's fetch raises it for a refused connection (before any byte was sent). */
export function refused(): Error {
  return new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
}

/** A fetch error as Node's fetch raises it when the connection broke after the request was sent. */
export function reset(): Error {
  return new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
}

export function fakeFetch(replies: Reply[], fallback?: Reply) {
  const sent: Sent[] = [];
  const impl = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const raw = init.body;
    const body = typeof raw === "string" ? JSON.parse(raw) : raw;
    const record: Sent = { method: init.method ?? "GET", url: new URL(String(input)), headers: new Headers(init.headers), body };
    sent.push(record);
    const next = replies.shift() ?? fallback ?? json(200, {});
    const reply = typeof next === "function" ? await next(record, init.signal ?? undefined) : next;
    if (reply instanceof Error) throw reply;
    return reply;
  };
  return { fetch: impl as typeof fetch, sent };
}

/** A reply that never comes, until the request's signal aborts. */
export function hang(): Reply {
  return (_sent, signal) =>
    new Promise<Response>((_resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
}

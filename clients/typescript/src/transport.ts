// The request core both the API calls and the presigned S3 transfers go through: fetch, a timeout per
// attempt, cancellation by AbortSignal, and retries that never write twice (src/retry.ts).
import { ConnectionFailed, EngramError, RequestTimedOut, errorFromResponse } from "./errors.js";
import { DEFAULT_RETRY, type RetryPolicy, backoff, neverSent, parseRetryAfter, saysUndone, shouldRetryStatus } from "./retry.js";
import type { CallOptions } from "./types.js";

export const VERSION = "0.1.0";
/** API Gateway gives up at 30 s; a little more lets its 504 arrive instead of ours. */
export const DEFAULT_TIMEOUT_MS = 35_000;

type QueryValue = string | number | boolean | Date | null | undefined | readonly (string | number | boolean)[];

/** One request and how to read its answer. `retrySafe`: sending it twice does no harm. */
export interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  /** Sent as the Idempotency-Key header: the same on every retry of the call. */
  idempotencyKey?: string | undefined;
  retrySafe: boolean;
  /** "text": the answer is returned as text (the resume briefing); otherwise parsed JSON. */
  answer?: "json" | "text";
}

/** What `onRetry` is told before each retry. */
export interface RetryEvent {
  method: string;
  path: string;
  retry: number;
  delayMs: number;
  reason: string;
}

export interface EngramOptions {
  /** The API's base URL; default: ENGRAM_API_URL where the runtime has an environment. */
  baseUrl?: string;
  /** An API key (egk_...); default: ENGRAM_API_KEY where the runtime has an environment. */
  apiKey?: string;
  /** Milliseconds for each attempt of a call (default 35 s). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** A fetch of your own (a proxy agent, a test double); default: the runtime's. */
  fetch?: typeof fetch;
  /** Told before each retry (the call, the reason, the wait): wire it to your logger. */
  onRetry?: (event: RetryEvent) => void;
}

function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name] || undefined;
}

function queryString(query: Call["query"]): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (item === null || item === undefined) continue;
      params.append(name, item instanceof Date ? item.toISOString() : String(item));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A path with its parameters percent-encoded: `path("/v1/memories/{}", id)`. */
export function path(template: string, ...refs: string[]): string {
  let index = 0;
  return template.replace(/\{\}/g, () => encodeURIComponent(refs[index++] ?? ""));
}

/** The caller's signal and this attempt's timeout as one signal (AbortSignal.any is not everywhere). */
function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onAbort);
    },
  };
}

/** Wait `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A finished exchange: the last answer, its body read whole within the attempt's timeout. */
export interface Answer<Body> {
  response: Response;
  body: Body;
}

export class Transport {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly #apiKey: string | undefined; // private: never in a log line that prints the client
  readonly #fetch: typeof fetch;
  readonly #onRetry: ((event: RetryEvent) => void) | undefined;

  constructor(options: EngramOptions = {}) {
    const baseUrl = options.baseUrl ?? environment("ENGRAM_API_URL");
    if (!baseUrl) throw new EngramError("no API URL: pass baseUrl or set ENGRAM_API_URL");
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#apiKey = options.apiKey ?? environment("ENGRAM_API_KEY");
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#onRetry = options.onRetry;
  }

  /** Send a call to the API and return its parsed answer, or throw its typed error. */
  protected async send<T>(call: Call, options: CallOptions = {}): Promise<T> {
    // The key goes on each API request, never on the presigned S3 transfers.
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.#apiKey) headers.Authorization = `Bearer ${this.#apiKey}`;
    if (call.idempotencyKey) headers["Idempotency-Key"] = call.idempotencyKey;
    let body: string | undefined;
    if (call.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(call.body);
    }
    const answer = await this.exchange(call, { method: call.method, headers, body }, options, (r) => r.text());
    if (call.answer === "text") return answer.body as T;
    return (answer.body ? JSON.parse(answer.body) : undefined) as T;
  }

  /** Send `init` to `call`'s URL (an absolute URL is used as it is: a presigned one), again while the
   * retry policy allows. `read` takes the body of a successful answer within the attempt's timeout. */
  protected async exchange<Body>(
    call: Call,
    init: RequestInit,
    options: CallOptions,
    read: (response: Response) => Promise<Body>,
  ): Promise<Answer<Body>> {
    const url = /^https?:\/\//.test(call.path) ? call.path : this.baseUrl + call.path + queryString(call.query);
    const shown = `${call.method} ${call.path.split("?", 1)[0]}`; // a presigned URL's signature stays out of errors
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    for (let retry = 0; ; retry++) {
      const attempt = attemptSignal(options.signal, timeoutMs);
      let delayMs: number | undefined;
      let reason = "";
      try {
        const response = await this.#fetch(url, { ...init, signal: attempt.signal });
        if (response.ok) return { response, body: await read(response) };
        const text = await response.text();
        const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
        const undone = saysUndone(response.status, text);
        if (
          retry < this.retry.maxRetries &&
          shouldRetryStatus(this.retry, response.status, call.retrySafe, retryAfterMs, undone)
        ) {
          delayMs = backoff(this.retry, retry, retryAfterMs);
          reason = `status ${response.status}`;
        } else {
          const seconds = retryAfterMs === undefined ? undefined : retryAfterMs / 1000;
          throw errorFromResponse(response.status, response.statusText, response.headers, text, seconds);
        }
      } catch (error) {
        if (error instanceof EngramError) throw error;
        if (options.signal?.aborted) throw options.signal.reason;
        const timedOut = attempt.timedOut();
        // A timed-out attempt or a broken connection may have been applied: only a safe call goes again.
        if (retry < this.retry.maxRetries && (call.retrySafe || (!timedOut && neverSent(error)))) {
          delayMs = backoff(this.retry, retry);
          reason = timedOut ? "timeout" : describe(error);
        } else {
          const tried = retry ? ` after ${retry + 1} attempts` : "";
          if (timedOut) throw new RequestTimedOut(`${shown}: no answer within ${timeoutMs} ms${tried}`, { cause: error });
          throw new ConnectionFailed(`${shown}: ${describe(error)}${tried}`, { cause: error });
        }
      } finally {
        attempt.done();
      }
      this.#onRetry?.({ method: call.method, path: call.path.split("?", 1)[0] ?? "", retry: retry + 1, delayMs, reason });
      await sleep(delayMs, options.signal);
    }
  }
}

function describe(error: unknown): string {
  const parts: string[] = [];
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    parts.push(typeof code === "string" ? `${cause.message} (${code})` : cause.message);
    cause = cause.cause;
  }
  return parts.join(": ") || String(error);
}

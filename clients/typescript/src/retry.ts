// When to send a request again, and how long to wait first.
//
// A request is sent again only when doing so cannot write twice:
// - it never reached the server (the connection was refused or could not be made), or the server says
//   nothing of it was done (429, or a 409 with `details.retryable`: the database undid the transaction
//   to settle a race with another): any call;
// - its outcome is unknown (502/503/504, a connection that broke after sending, an attempt that timed
//   out) and the call is safe to repeat: GET, PUT, DELETE, the read-only POSTs (recall, prime, topic
//   lookup, query-document) and the creates that carry an Idempotency-Key: the server answers a repeat
//   with the first answer and writes nothing.
// Waits grow exponentially with full jitter (a random wait between 0 and the cap of the attempt, so
// clients throttled together do not come back together) and honour Retry-After.
import { isRecord } from "./errors.js";

export interface RetryPolicy {
  /** More attempts after the first; 0 turns retrying off. */
  maxRetries: number;
  /** The cap of retry n is baseDelayMs * 2**n, at most maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is thrown at once. */
  maxRetryAfterMs: number;
  /** A number in [0, 1): Math.random unless a test pins it. */
  random: () => number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
  random: Math.random,
};

/** Statuses after which the request may have been applied: repeated only when that is safe. */
const UNKNOWN_OUTCOME_STATUSES = new Set([502, 503, 504]);
/** Error codes of Node's fetch (undici) and of Bun raised before any byte of the request left. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "ConnectionRefused",
]);

/** Milliseconds to wait before retry number `retry` (0 for the first). */
export function backoff(policy: RetryPolicy, retry: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  return policy.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
}

/** `undone`: the answer says nothing was written and the request may be sent again. */
export function shouldRetryStatus(
  policy: RetryPolicy,
  status: number,
  retrySafe: boolean,
  retryAfterMs: number | undefined,
  undone: boolean,
): boolean {
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return false;
  return status === 429 || undone || (retrySafe && UNKNOWN_OUTCOME_STATUSES.has(status));
}

/** True when a fetch error says the request never left (a refused or impossible connection). */
export function neverSent(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; isRecord(cause) || cause instanceof Error; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && NOT_SENT_CODES.has(code)) return true;
    if (depth > 4) break;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** Retry-After as milliseconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (!value?.trim()) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.max(0, Number(text) * 1000);
  const when = Date.parse(text);
  return Number.isNaN(when) ? undefined : Math.max(0, when - now);
}

/** A 409 whose envelope has `details.retryable: true`: the transaction was rolled back whole. */
export function saysUndone(status: number, body: string): boolean {
  if (status !== 409) return false;
  try {
    const parsed: unknown = JSON.parse(body);
    const details = isRecord(parsed) && isRecord(parsed.error) ? parsed.error.details : undefined;
    return isRecord(details) && details.retryable === true;
  } catch {
    return false;
  }
}

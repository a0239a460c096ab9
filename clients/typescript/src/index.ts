export { Engram, type UploadBody, type UploadProgress, type WaitOptions } from "./client.js";
export { EngramRoutes, type RecallOptions, type Recalled } from "./routes.js";
export { DEFAULT_TIMEOUT_MS, VERSION, type EngramOptions, type RetryEvent } from "./transport.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";
export * from "./errors.js";
export type * from "./types.js";

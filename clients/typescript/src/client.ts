// Engram: the routes (src/routes.ts) plus the calls that span several requests: the presigned upload
// of a document, export and import files, and waits on the server's background jobs.
import { EngramError, JobFailed, UploadFailed, WaitTimedOut } from "./errors.js";
import { EngramRoutes, split } from "./routes.js";
import { sleep } from "./transport.js";
import type { CallOptions, ExportJob, Fields, ImportJob, Run, UploadStatus, WriteOptions } from "./types.js";

/** What `uploadDocument` and `importData` report: `uploading` before and after the PUT (fetch gives no
 * progress inside one), then the server's status while `processing`, then `ready` or `failed`. */
export interface UploadProgress {
  stage: "uploading" | "processing" | "ready" | "failed";
  uploadId: string;
  bytesSent: number;
  bytesTotal: number;
  status?: UploadStatus | ImportJob;
}

/** How long a wait polls, and how often. */
export interface WaitOptions extends CallOptions {
  /** Milliseconds before WaitTimedOut (default 300 s for uploads, 600 s for runs, exports, imports). */
  waitTimeoutMs?: number;
  /** Milliseconds between polls (default 500). */
  pollIntervalMs?: number;
  progress?: (progress: UploadProgress) => void;
}

/** A body to upload: text, bytes, or a Blob (a browser File, or Node's `fs.openAsBlob(path)`). */
export type UploadBody = string | Uint8Array | ArrayBuffer | Blob;

const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

async function bytesOf(body: UploadBody): Promise<Uint8Array> {
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return new Uint8Array(await body.arrayBuffer());
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The API takes Markdown and plain text (UTF-8): a File named .md/.markdown is Markdown, the rest plain text. */
function contentTypeOf(body: UploadBody): string {
  const name = (body as { name?: unknown }).name;
  return typeof name === "string" && /\.(md|markdown)$/i.test(name) ? "text/markdown" : "text/plain";
}

export class Engram extends EngramRoutes {
  /** Poll `fetchStatus` until `settled` says so (true) or throws; WaitTimedOut after the wait's time. */
  protected async wait<T extends { status: string }>(
    what: string,
    fetchStatus: () => Promise<T>,
    settled: (current: T) => boolean,
    options: WaitOptions,
    defaultTimeoutMs: number,
  ): Promise<T> {
    const timeoutMs = options.waitTimeoutMs ?? defaultTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await fetchStatus();
      if (settled(current)) return current;
      if (Date.now() >= deadline) throw new WaitTimedOut(`${what} still ${current.status} after ${timeoutMs} ms`);
      await sleep(options.pollIntervalMs ?? 500, options.signal);
    }
  }

  /** PUT bytes to a presigned URL (no API key on it), retried as a PUT. */
  protected async putObject(url: string, headers: Record<string, string>, bytes: Uint8Array, options: CallOptions) {
    const put = { method: "PUT" as const, path: url, retrySafe: true };
    await this.exchange(put, { method: "PUT", headers, body: bytes as Uint8Array<ArrayBuffer> }, options, async () => undefined);
  }

  /** Store a document of up to 50 MiB: its SHA-256 is computed, a presigned PUT asked for and the body
   * sent to it (the store checks the checksum), then the upload polled until `ready`. Throws
   * UploadFailed with the server's reason (size, checksum, not UTF-8), WaitTimedOut after
   * `waitTimeoutMs`. `wait: false` returns the pending status at once. */
  async uploadDocument(
    body: UploadBody,
    options?: Fields<"UploadCreate"> & WriteOptions & WaitOptions & { wait?: boolean },
  ): Promise<UploadStatus> {
    const { wait, waitTimeoutMs, pollIntervalMs, progress, ...rest } = options ?? {};
    const [fields, call] = split(rest);
    const bytes = await bytesOf(body);
    if (bytes.byteLength > MAX_UPLOAD_BYTES) {
      throw new EngramError(`the document is ${bytes.byteLength} bytes; the limit is ${MAX_UPLOAD_BYTES} (50 MiB)`);
    }
    const ticket = await this.createUpload(bytes.byteLength, await sha256Hex(bytes), {
      content_type: contentTypeOf(body),
      ...fields,
      ...call,
    });
    const report = (bytesSent: number) =>
      progress?.({ stage: "uploading", uploadId: ticket.upload_id, bytesSent, bytesTotal: bytes.byteLength });
    report(0);
    await this.putObject(ticket.url, ticket.headers, bytes, call);
    report(bytes.byteLength);
    if (wait === false) return this.getUpload(ticket.upload_id, call);
    return this.waitForUpload(ticket.upload_id, { waitTimeoutMs, pollIntervalMs, progress, signal: call.signal });
  }

  /** Poll an upload until it is ready (returned) or failed (UploadFailed). */
  waitForUpload(uploadId: string, options: WaitOptions = {}): Promise<UploadStatus> {
    const settled = (status: UploadStatus) => {
      const stage = status.status === "ready" ? "ready" : status.status === "failed" ? "failed" : "processing";
      options.progress?.({ stage, uploadId, bytesSent: status.size_bytes, bytesTotal: status.size_bytes, status });
      if (stage === "failed") throw new UploadFailed(uploadId, status.reason, status);
      return stage === "ready";
    };
    return this.wait(`upload ${uploadId}`, () => this.getUpload(uploadId, options), settled, options, 300_000);
  }

  /** Poll a consolidation run until it is done, failed or undone. */
  waitForConsolidation(runId: string, options: WaitOptions = {}): Promise<Run> {
    const finished = (run: Run) => ["done", "failed", "undone"].includes(run.status);
    const fetchRun = () => this.getConsolidationRun(runId, { limit: 1, signal: options.signal });
    return this.wait(`consolidation run ${runId}`, fetchRun, finished, options, 600_000);
  }

  /** Poll an export until it is ready (returned, with a fresh `download_url`) or failed (JobFailed). */
  waitForExport(exportId: string, options: WaitOptions = {}): Promise<ExportJob> {
    const settled = (job: ExportJob) => {
      if (job.status === "failed") throw new JobFailed("export", job.id, job.error, job);
      return job.status === "ready";
    };
    return this.wait(`export ${exportId}`, () => this.getExport(exportId, options), settled, options, 600_000);
  }

  /** Export this tenant's data (or one namespace): queue the export, wait for it, and download the JSONL
   * file from its presigned URL as a Blob (`await data.text()`, or stream it with `data.stream()`). */
  async exportData(options?: Fields<"ExportCreate"> & WriteOptions & WaitOptions): Promise<{ job: ExportJob; data: Blob }> {
    const { waitTimeoutMs, pollIntervalMs, ...rest } = options ?? {};
    const [fields, call] = split(rest);
    const queued = await this.createExport({ ...fields, ...call });
    const job = await this.waitForExport(queued.id, { waitTimeoutMs, pollIntervalMs, signal: call.signal });
    const get = { method: "GET" as const, path: job.download_url ?? "", retrySafe: true };
    const { body: data } = await this.exchange(get, { method: "GET" }, call, (r) => r.blob());
    if (job.bytes !== null && job.bytes !== undefined && data.size !== job.bytes) {
      throw new EngramError(`export ${job.id}: downloaded ${data.size} bytes of ${job.bytes}`);
    }
    return { job, data };
  }

  /** Import an export file (all or nothing): a presigned PUT with its size and SHA-256, the body sent,
   * then the import polled until done (its `report` lists what was imported, deduplicated and refused)
   * or failed (JobFailed). */
  async importData(
    body: UploadBody,
    options?: Fields<"ImportCreate"> & WriteOptions & WaitOptions & { wait?: boolean },
  ): Promise<ImportJob> {
    const { wait, waitTimeoutMs, pollIntervalMs, progress, ...rest } = options ?? {};
    const [fields, call] = split(rest);
    const bytes = await bytesOf(body);
    const ticket = await this.createImport(bytes.byteLength, { sha256: await sha256Hex(bytes), ...fields, ...call });
    const report = (bytesSent: number) =>
      progress?.({ stage: "uploading", uploadId: ticket.id, bytesSent, bytesTotal: bytes.byteLength });
    report(0);
    await this.putObject(ticket.upload_url, ticket.headers, bytes, call);
    report(bytes.byteLength);
    if (wait === false) return this.getImport(ticket.id, call);
    const settled = (job: ImportJob) => {
      const stage = job.status === "done" ? "ready" : job.status === "failed" ? "failed" : "processing";
      progress?.({ stage, uploadId: job.id, bytesSent: job.size_bytes, bytesTotal: job.size_bytes, status: job });
      if (stage === "failed") throw new JobFailed("import", job.id, job.error, job);
      return stage === "ready";
    };
    const waitFor = { waitTimeoutMs, pollIntervalMs, signal: call.signal };
    return this.wait(`import ${ticket.id}`, () => this.getImport(ticket.id, call), settled, waitFor, 600_000);
  }
}

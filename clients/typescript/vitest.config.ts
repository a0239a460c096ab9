import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The live tests upload 8 MiB and wait for the server's background jobs, on a machine that may be
    // busy: vitest's 5 s default would fail them on time alone.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});

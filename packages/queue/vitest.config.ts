import { defineConfig } from "vitest/config";

// Real redis-server and worker processes: generous time on a loaded 2-core machine, one file at a time.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});

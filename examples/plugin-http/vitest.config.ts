import { defineConfig } from "vitest/config";

// A generous bound per test: a loaded machine (a key generated, a process started) is not a failure.
export default defineConfig({
  test: { testTimeout: 120_000, hookTimeout: 120_000 },
});

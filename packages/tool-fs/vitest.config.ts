import { defineConfig } from "vitest/config";

// These tests run real processes and race real files on a shared 2-core machine: a slow run is
// not a failure (speed is measured in bench/fs), a hang is caught by these timeouts.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

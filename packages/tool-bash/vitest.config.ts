import { defineConfig } from "vitest/config";

// These tests start real sandboxes and process trees on a shared 2-core machine: a slow run is
// not a failure (speed is measured in bench/bash), a hang is caught by these bounds.
export default defineConfig({
  test: { testTimeout: 120_000, hookTimeout: 120_000 },
});

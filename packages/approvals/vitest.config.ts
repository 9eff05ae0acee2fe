import { defineConfig } from "vitest/config";

// A real browser, the built CLI, a worker and Redis per test file: the loaded CI machine is not a failure.
export default defineConfig({
  test: { testTimeout: 120_000, hookTimeout: 120_000 },
});

import { defineConfig } from "vitest/config";

// The CLI's tests run the built CLI, npm, shells and servers as child processes, on a machine other
// work may load heavily: each test waits for the thing itself (a process's end, a line of output),
// and this generous bound only ends a wait that would never end. No test has a limit of its own.
export default defineConfig({
  test: {
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});

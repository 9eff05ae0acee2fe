#!/usr/bin/env node
import { main } from "./main.js";

// Exit explicitly: a prompt's stdin or a plugin's handle must not keep the process alive once the
// command is done (the output is already written: main waits for each write).
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`toolhost: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

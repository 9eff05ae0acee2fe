#!/usr/bin/env node
import { main } from "./main.js";

// A reader that stops early (`toolhost list | head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

// Exit explicitly: a prompt's stdin or a plugin's handle must not keep the process alive once the
// command is done (the output is already written: main waits for each write).
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`toolhost: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

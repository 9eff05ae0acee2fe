import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemProgram } from "./_programs.js";

/** FIFOs made per run of mkfifo: one process start serves this many calls. */
const BATCH = 16;
/** Fewer pairs than this left: the next batch is made while calls go on. */
const LOW = 4;

/** Set once the system has no mkfifo, or running it failed with ENOENT: there will be no FIFOs in this process. */
let missing = false;
let folder: string | undefined;
let made = 0;
const free: Array<[string, string]> = [];
let filling: Promise<void> | undefined;

/**
 * The names of a fresh stdout and stderr FIFO (mode 0600, in a private 0700 folder), or undefined
 * where they cannot be made (no mkfifo, no temporary folder). They are made in batches by one run
 * of `mkfifo`, so that a call does not pay a process start for its pipes; whoever takes a pair
 * opens both ends and removes the names.
 */
export async function takeFifoPair(): Promise<[string, string] | undefined> {
  if (missing) return undefined;
  if (free.length === 0) await fill();
  const pair = free.shift();
  if (free.length < LOW) void fill();
  return pair;
}

function fill(): Promise<void> {
  filling ??= makeBatch().finally(() => {
    filling = undefined;
  });
  return filling;
}

async function makeBatch(): Promise<void> {
  let where: string;
  try {
    where = privateFolder();
  } catch {
    return;
  }
  const pairs = Array.from({ length: BATCH }, (): [string, string] => {
    made += 1;
    return [join(where, `out-${made}`), join(where, `err-${made}`)];
  });
  // The system's mkfifo, never one on PATH (a call can plant one in node_modules/.bin).
  const mkfifo = systemProgram("mkfifo");
  if (mkfifo === undefined) {
    missing = true;
    return;
  }
  const ok = await new Promise<boolean>((resolve) => {
    execFile(mkfifo, ["-m", "600", ...pairs.flat()], { timeout: 10_000 }, (error) => {
      if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") missing = true;
      resolve(error === null);
    });
  });
  if (ok) free.push(...pairs);
}

function privateFolder(): string {
  if (folder === undefined) {
    folder = mkdtempSync(join(tmpdir(), "toolhost-bash-pipes-"));
    const made = folder;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return folder;
}

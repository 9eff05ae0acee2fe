import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "./usage-error.js";
import { readAll } from "./_read-stream.js";

/** Something to tell a person that input is awaited (the CLI's `note`). */
export type Notify = (text: string) => Promise<void>;

/**
 * Everything on standard input, as text. On a terminal, says first what it waits for and how to
 * end it, so that a command without input does not wait silently.
 */
export async function readStdin(notify?: Notify, what = "input"): Promise<string> {
  if (process.stdin.isTTY === true && notify) await notify(`reading ${what} from standard input (Ctrl-D to end)`);
  return readAll(process.stdin);
}

/** A file's text, or standard input's for "-". */
export async function readInput(file: string | undefined, cwd: string, notify?: Notify, what?: string): Promise<string> {
  if (file === undefined || file === "-") return readStdin(notify, what);
  try {
    return await readFile(resolve(cwd, file), "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read ${resolve(cwd, file)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
}

/** Parses the JSON arguments of a tool given on the command line, naming the tool when they do not parse. */
export function parseJsonArgument(text: string, tool: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `The arguments of "${tool}" are not valid JSON: ${(error as Error).message}.\nGive a JSON object, e.g. '{"path": "README.md"}' (quote it for the shell), or "-" to read it from standard input.`,
    );
  }
}

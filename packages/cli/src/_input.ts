import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "./_cli.js";

/** Everything on standard input, as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A file's text, or standard input's for "-". */
export async function readInput(file: string | undefined, cwd: string): Promise<string> {
  if (file === undefined || file === "-") return readStdin();
  try {
    return await readFile(resolve(cwd, file), "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read ${resolve(cwd, file)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
}

/** Parses JSON given on the command line, naming what it was for when it does not parse. */
export function parseJsonArgument(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${what} is not valid JSON: ${(error as Error).message}.\nGive a JSON object, e.g. '{"path": "README.md"}' (quote it for the shell), or "-" to read it from standard input.`,
    );
  }
}

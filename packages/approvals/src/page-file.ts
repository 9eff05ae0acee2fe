import { lstatSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";

/*
 * How asking processes find the page: `toolhost approvals serve` writes its address, token and pid
 * to a file in the user's config folder, readable by the user alone, and removes it when it stops.
 * A process set to ask through the page reads it at each ask (a page started later is found; one
 * that stopped is not asked). A file another user could have written is never used: the asks it
 * would send hold commands and diffs, and an answer from a page the user does not own is no answer.
 */

/** The page file's content. */
export interface PageFile {
  /** The page's address, without its token (`http://127.0.0.1:8780/`). */
  url: string;
  token: string;
  pid: number;
  started: string;
}

/** A page file that cannot be used: the ask is refused with this message. */
export class PageFileError extends Error {
  override name = "PageFileError";
  readonly code = "TOOLHOST_APPROVALS_PAGE_FILE";
}

/** `approvals-page.json` in the user's config folder (`$XDG_CONFIG_HOME/toolhost`, else `~/.config/toolhost`). */
export function pageFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), ".config");
  return join(base, "toolhost", "approvals-page.json");
}

/**
 * The running page the file names, or undefined when there is none (no file, or its process has
 * ended). Throws a `PageFileError` (with the fix) for a file another user owns or can read or
 * write, or one that does not hold a page's address.
 */
export function readPageFile(file: string): PageFile | undefined {
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(file);
  } catch {
    return undefined;
  }
  const uid = process.getuid?.();
  if (!info.isFile() || (uid !== undefined && (info.uid !== uid || (info.mode & 0o077) !== 0))) {
    throw new PageFileError(`${file} names the approvals page, but it is not a file only you can read and write, so it is not used: remove it, and start the page again (toolhost approvals serve).`);
  }
  let page: Partial<PageFile>;
  try {
    page = JSON.parse(readFileSync(file, "utf8")) as Partial<PageFile>;
  } catch (error) {
    throw new PageFileError(`${file} does not hold the approvals page's address (${(error as Error).message}): remove it, and start the page again (toolhost approvals serve).`);
  }
  const { url, token, pid, started } = page;
  if (typeof url !== "string" || !/^http:\/\//.test(url) || typeof token !== "string" || token === "" || typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) {
    throw new PageFileError(`${file} does not hold the approvals page's address, token and pid: remove it, and start the page again (toolhost approvals serve).`);
  }
  return isRunning(pid) ? { url, token, pid, started: typeof started === "string" ? started : "" } : undefined;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Writes the file whole (a temporary file renamed over it), readable by the user alone. */
export function writePageFile(file: string, page: PageFile): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    unlinkSync(temporary);
  } catch {
    // None left over.
  }
  // Exclusive: never through a link someone left at the temporary name.
  writeFileSync(temporary, `${JSON.stringify(page, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  renameSync(temporary, file);
}

/** Removes the file when it still names this process's page (a newer page may have replaced it). */
export function removePageFile(file: string, pid: number = process.pid): void {
  try {
    const page = JSON.parse(readFileSync(file, "utf8")) as Partial<PageFile>;
    if (page.pid === pid) unlinkSync(file);
  } catch {
    // Gone already, or not ours to remove.
  }
}

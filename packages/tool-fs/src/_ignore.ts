import type { Dirent } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { isInside } from "@toolhost/core";
import picomatch from "picomatch";
import { compileIgnore, type IgnoreRules } from "./_gitignore.js";
import { readRegularFile } from "./_paths.js";

/**
 * The ignore files a walk reads, highest rank first, as ripgrep ranks them: a match in any
 * `.rgignore` wins over one in any `.ignore`, which wins over one in any `.gitignore`; within a
 * kind, the file nearest the path wins. The skipped folders rank below them all.
 */
const IGNORE_FILES = [".rgignore", ".ignore", ".gitignore"] as const;

/** `.gitignore` lines of the skipped folders, matched at any depth below the searched folder. */
export function skipLines(folders: readonly string[]): string {
  return folders.map((folder) => `**/${folder}/`).join("\n");
}

/** Which entries a walk below a searched folder (`base`) may see: called for each folder it reads. */
export interface WalkFilter {
  /** The entries of `folder` to walk or list; the folder's own ignore files are read first. */
  entries(folder: string, entries: Dirent[]): Promise<Dirent[]>;
}

/**
 * What a walk below `base` leaves out, entry by entry as ripgrep decides: `.git`; what the ignore
 * files of `base`, of the folders below it, and of its parents up to `root` ignore; then the
 * skipped folders (`skip`, none when empty). An entry is judged by itself, never by its parents, so
 * `base` is searched even inside an ignored or skipped folder; an ignored folder is not entered.
 */
export class Ignores implements WalkFilter {
  readonly #base: string;
  readonly #root: string;
  readonly #skip: IgnoreRules | undefined;
  /** Per folder, its ignore files' rules in `IGNORE_FILES` order (undefined where it has none). */
  readonly #rules = new Map<string, (IgnoreRules | undefined)[]>();
  /** Folders judged: true when the walk may enter them. */
  readonly #entered = new Map<string, boolean>();
  readonly #skipped = new Set<string>();

  private constructor(base: string, root: string, skip: readonly string[]) {
    this.#base = base;
    this.#root = root;
    this.#skip = skip.length > 0 ? compileIgnore(skipLines(skip)) : undefined;
  }

  /** The filter of a walk below `base`, with the ignore files of its parents up to `root` read. */
  static async below(base: string, root: string, skip: readonly string[]): Promise<Ignores> {
    const ignores = new Ignores(base, root, skip);
    for (let folder = dirname(base); folder !== base && isInside(folder, root); folder = dirname(folder)) {
      await ignores.#load(folder);
      if (folder === root || dirname(folder) === folder) break;
    }
    ignores.#entered.set(base, true);
    return ignores;
  }

  /** The skipped folders the walk met, relative to `base` with `/`, sorted. */
  get skipped(): string[] {
    return [...this.#skipped].sort();
  }

  async entries(folder: string, entries: Dirent[]): Promise<Dirent[]> {
    if (!(await this.#enter(folder, new Set(entries.map((entry) => entry.name))))) return [];
    const chain = this.#chain(folder);
    return entries.filter((entry) => {
      const kept = this.#keeps(chain, folder, entry.name, entry.isDirectory());
      if (kept && entry.isDirectory()) this.#entered.set(join(folder, entry.name), true);
      return kept;
    });
  }

  /**
   * Whether the walk may enter `folder`, reading its ignore files first. A walk may start below
   * `base` (a glob's fixed start): the folders on the way are judged as if the walk had met them.
   */
  async #enter(folder: string, names?: Set<string>): Promise<boolean> {
    let may = this.#entered.get(folder);
    if (may === undefined) {
      const parent = dirname(folder);
      may =
        isInside(folder, this.#base) &&
        parent !== folder &&
        (await this.#enter(parent)) &&
        this.#keeps(this.#chain(parent), parent, basename(folder), true);
      this.#entered.set(folder, may);
    }
    if (may && !this.#rules.has(folder)) await this.#load(folder, names);
    return may;
  }

  /** Reads the ignore files of `folder` (those among `names`, when its entries are known). */
  async #load(folder: string, names?: Set<string>): Promise<void> {
    const rules = await Promise.all(
      IGNORE_FILES.map(async (name) => {
        if (names && !names.has(name)) return undefined;
        // An ignore file that cannot be read (gone, a folder, no permission) ignores nothing.
        const bytes = await readRegularFile(join(folder, name)).catch(() => undefined);
        return bytes === undefined ? undefined : compileIgnore(bytes.toString("utf8"));
      }),
    );
    this.#rules.set(folder, rules);
  }

  /** The folders whose ignore files apply in `folder`, nearest first: it and its parents up to the root. */
  #chain(folder: string): string[] {
    const chain: string[] = [];
    for (let each = folder; isInside(each, this.#root); each = dirname(each)) {
      if (this.#rules.get(each)?.some(Boolean)) chain.push(each);
      if (each === this.#root || dirname(each) === each) break;
    }
    return chain;
  }

  #keeps(chain: readonly string[], folder: string, name: string, isFolder: boolean): boolean {
    if (name === ".git") return false;
    const path = join(folder, name);
    for (let kind = 0; kind < IGNORE_FILES.length; kind++) {
      for (const each of chain) {
        const verdict = this.#rules.get(each)?.[kind]?.verdict(slashed(relative(each, path)), isFolder);
        if (verdict) return verdict === "keep";
      }
    }
    if (!isFolder || !this.#skip) return true;
    const fromBase = slashed(relative(this.#base, path));
    if (this.#skip.verdict(fromBase, true) !== "ignore") return true;
    this.#skipped.add(fromBase);
    return false;
  }
}

function slashed(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** The most skipped folders a result lists in `details`; the text names fewer. */
const MAX_LISTED = 100;
const MAX_NAMED = 5;

/**
 * What a result says of the skipped folders, if any: a note, and the list for `details` (at most
 * 100). Only folders where `glob` (relative to the searched folder) could have matched something
 * are reported, so both engines, which walk differently, report the same ones.
 */
export function reportSkipped(skipped: readonly string[], glob: string | undefined): { note: string; folders: string[] } | undefined {
  let folders = [...skipped];
  if (glob !== undefined && !glob.includes("{")) {
    try {
      const tests = glob.split("/").map((part) => (part === "**" ? undefined : picomatch(part, { dot: true })));
      folders = folders.filter((folder) => mayHold(tests, folder.split("/")));
    } catch {
      // A part that is no glob alone (a bracket across a slash): report every skipped folder.
    }
  }
  if (folders.length === 0) return undefined;
  return { note: skippedNote(folders.slice(0, MAX_NAMED), folders.length), folders: folders.slice(0, MAX_LISTED) };
}

/** Whether a path below `folder` can match the glob's parts (`undefined` stands for `**`). */
function mayHold(parts: readonly (((name: string) => boolean) | undefined)[], folder: readonly string[]): boolean {
  const seen = new Set<number>();
  const go = (part: number, depth: number): boolean => {
    if (depth === folder.length) return part < parts.length;
    if (part === parts.length || seen.has(part * 4096 + depth)) return false;
    seen.add(part * 4096 + depth);
    const test = parts[part];
    if (test === undefined) return go(part + 1, depth) || go(part, depth + 1);
    return test(folder[depth] as string) && go(part + 1, depth + 1);
  };
  return go(0, 0);
}

/** The sentence a result ends with when skipped folders were left out. */
function skippedNote(folders: readonly string[], total: number): string {
  const named = folders.map((folder) => `${folder}/`).join(", ");
  const more = total > MAX_NAMED ? ` and ${total - MAX_NAMED} more` : "";
  const what = total === 1 ? "1 folder" : `${total} folders`;
  const how = total === 1 ? "To search it, give it as path" : "To search them, give one as path";
  return `[Skipped ${what} of dependencies or caches: ${named}${more}. ${how}, or send includeSkipped: true.]`;
}

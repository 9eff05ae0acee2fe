import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import { isInside } from "@toolhost/core";
import type { ShellWord } from "../shell/_words.js";
import type { CompiledRule } from "../rules/_rules.js";
import { READ } from "./_scope.js";

/*
 * Name rules judge the operation (issue 39): a rule that protects a file's content (one that judges
 * reads, as `recommended`'s secret stores do) does not judge a write that neither reads nor replaces
 * that content: a change of its mode, owner or times (`chmod 600 .env`, `touch .env`), or a program
 * writing a file that does not exist yet (`ssh-keygen -f ./id_test`, `age-keygen -o sub/test.key`:
 * a new key written into the workspace). A write that replaces or removes an existing protected
 * file (`rm .env`, `cp x .env`, `> .env`) is judged by the rule as before; so is every read.
 */

/** Programs whose writes change a file's metadata only. */
const METADATA = new Set(["chmod", "chown", "chgrp", "touch"]);

/** Programs that change or remove their operands and never read them: their write parts judge them (`chmod 600 .env`, `rm .env`). */
export const WRITES_WITHOUT_READING = new Set([...METADATA, "rm", "rmdir", "unlink", "truncate"]);

/** A write by a program (not a redirect, not a declared write), by its `via`. */
const byProgram = (via: string | undefined): via is string => via !== undefined && /^[A-Za-z0-9_]/.test(via);

/** Whether the rule protects the content: it judges reads of the path too. */
const protectsContent = (rule: CompiledRule): boolean => rule.tool(READ) && rule.decision !== "allow";

/**
 * The rules that judge a write part, less the content rules the operation does not touch;
 * `paths`: the part's path as written and as resolved.
 */
export function rulesOfWrite(hits: CompiledRule[], via: string | undefined, paths: readonly string[]): CompiledRule[] {
  if (!byProgram(via) || !hits.some(protectsContent)) return hits;
  const program = via.split(" ")[0] as string;
  if (METADATA.has(program) || paths.every((path) => lstatSync(path, { throwIfNoEntry: false }) === undefined)) return hits.filter((rule) => !protectsContent(rule));
  return hits;
}

/** Why the content rules were left out, for the explanation. */
export function operationNote(via: string): string {
  const program = via.split(" ")[0] as string;
  return METADATA.has(program) ? `${program} changes the file's metadata, not its content: the rules that protect its content do not judge it` : `${program} writes a file that does not exist yet: the rules that protect a file's content do not judge a new one`;
}

/** Whether a chmod mode sets a set-user-ID or set-group-ID bit (`u+s`, `g=rws`, `4755`, `02775`), or is known only at run time. */
export function setsId(mode: string | undefined): boolean {
  if (mode === undefined) return true;
  if (/^[0-7]+$/.test(mode)) return mode.length >= 4 && /[2-7]/.test(mode.charAt(mode.length - 4));
  return mode.split(",").some((clause) => /[+=][^+=-]*s/.test(clause));
}

/** The folder an archiver extracts into when a option names it (`tar -C`, `--directory=`, `unzip -d`, `7z -o`), resolved; else the folder of the call. */
function extractionFolder(program: string, values: ReadonlyArray<string | undefined>, cwd: string | undefined): string | undefined {
  if (cwd === undefined) return undefined;
  let folder: string | undefined;
  values.forEach((value, i) => {
    if (value === undefined) return;
    const next = values[i + 1];
    if (program === "unzip" ? value === "-d" : value === "-C" || prefixOf(value, "--directory", 5)) folder = next ?? folder;
    else if (program !== "unzip" && prefixOf(value.split("=")[0] as string, "--directory", 5) && value.includes("=")) folder = value.slice(value.indexOf("=") + 1);
    else if (/^7z[ar]?$/.test(program) && value.startsWith("-o")) folder = value.slice(2) || ".";
  });
  return resolve(cwd, folder ?? ".");
}

/** `value` is `option` or an abbreviation of it at least `least` characters long. */
function prefixOf(value: string, option: string, least: number): boolean {
  return value.length >= least && option.startsWith(value);
}

const ARCHIVERS = new Set(["tar", "bsdtar", "gtar", "unzip", "7z", "7za", "7zr", "git"]);

/**
 * An archive extracted where its own names say (`tar -xP`, `tar --absolute-names`, `unzip -:`), or
 * into a folder outside the workspace (`7z x a.7z -o/etc`): it writes wherever the archive's author
 * chose, which no path of the command names. Undefined when it extracts into the workspace.
 */
export function archiveEscape(program: string, words: readonly ShellWord[], cwd: string | undefined, workspace: string): string | undefined {
  if (!ARCHIVERS.has(program)) return undefined;
  const values = words.slice(1).map((word) => word.value);
  const tar = program === "tar" || program === "bsdtar" || program === "gtar";
  const extracting = tar
    ? values.some((value) => value !== undefined && (/^(-[A-Za-z]*x|x[A-Za-z]*$)/.test(value) || prefixOf(value, "--extract", 5) || prefixOf(value, "--get", 4)))
    : program === "unzip"
      ? !values.some((value) => value !== undefined && /^-[A-Za-z]*[lptvzZ]/.test(value))
      : values.some((value) => value === "x" || value === "e");
  const into = extracting ? extractionFolder(program, values, cwd) : undefined;
  if (into !== undefined && into.split(/[\\/]/).some((segment) => segment.toLowerCase() === ".git")) return `${program} extracts into ${into}, git's own folder, where hooks and settings run commands at later git calls`;
  if (tar) {
    // Long options as getopt takes them: any unambiguous prefix (`--absolute`, `--ext`), and bsdtar's `--insecure`.
    const extracts = extracting;
    const absolute = values.some((value) => value !== undefined && (prefixOf(value, "--absolute-names", 4) || prefixOf(value, "--absolute-paths", 4) || prefixOf(value, "--insecure", 5) || /^-[A-Za-z]*P/.test(value) || (/^[A-Za-z]*P[A-Za-z]*$/.test(value) && value === values[0])));
    return extracts && absolute ? `${program} keeps the archive's absolute names: it writes wherever the archive says` : undefined;
  }
  // git apply --unsafe-paths (or its abbreviation) writes the files the patch names, outside the tree too.
  if (program === "git") return values.includes("apply") && values.some((value) => value !== undefined && prefixOf(value, "--unsafe-paths", 5)) ? "git apply --unsafe-paths writes wherever the patch's names say, outside the workspace too" : undefined;
  if (program === "unzip" && values.includes("-:")) return "unzip -: keeps the archive's ../ names: it writes wherever the archive says";
  if (/^7z[ar]?$/.test(program)) {
    const output = values.find((value) => value !== undefined && value.startsWith("-o"));
    if (output === undefined || cwd === undefined) return undefined;
    const folder = resolve(cwd, output.slice(2) || ".");
    return isInside(folder, workspace) ? undefined : `${program} extracts into ${folder}, outside the workspace`;
  }
  return undefined;
}

import { type Command, type CommandNode, forEachChild, type Redirection, type SyntaxNode, type Word } from "unbash";
import { evalWord, type WordEnv } from "./_words.js";

/*
 * Resource exhaustion (issue 39): what fills the disk, the memory or the process table before the
 * call ends. An endless source (`yes`, `/dev/zero`, `/dev/urandom`, `seq inf`, `dd` without a
 * count) whose output is written to a file (a redirect, `tee`, a compressor into a file) or kept
 * whole (`sort`, `tac`), with no bounding stage between (`head`, `dd count=`, `sed q`, `grep -m`);
 * a size past `MAX_BYTES` (`head -c 500G`, `fallocate -l 1T`, `dd bs=1G count=1000`); a function
 * that calls itself in the background or a pipeline (a fork bomb); a loop that starts background
 * processes. Bounded forms stay allowed (`yes | head -3`, `head -c 16 /dev/urandom | xxd`).
 */

/** Sizes up to this are bounded enough (a test image, a blank disk of a few MB); beyond it, asked. */
export const MAX_BYTES = 1024 ** 3;

/** Devices that never end when read. */
const ENDLESS_DEVICES = /^\/dev\/(zero|u?random|full)$/;
/** Devices whose writes go nowhere. */
const SINKS = /^\/dev\/(null|stdout|stderr|tty|fd\/[12])$/;
/** Programs that pass their input through as it comes (their output is as long as their input). */
const STREAMING = /^(cat|tr|base64|base32|basenc|xxd|od|hexdump|gzip|bzip2|xz|zstd|lz4|brotli|compress|openssl|fold|cut|sed|awk|gawk|mawk|grep|egrep|fgrep|rev|nl|pv|iconv|strings|uniq|tee|paste|expand|unexpand)$/;
/** Programs that keep all their input before they write (memory, or temporary files). */
const KEEPING = /^(sort|tac|shuf)$/;
/** A literal list of at most this many words is a bounded loop (`for f in a b c; do x & done`). */
const MAX_LITERAL_LOOP = 16;

const ENV: WordEnv = { home: undefined, vars: new Map() };
const valueOf = (word: Word | undefined): string | undefined => (word === undefined ? undefined : evalWord(word, ENV).value);

/** What a place of the script exhausts: the process table, or the disk (and memory on the way). */
export interface Exhaustion {
  reason: string;
  /** `processes`: a limit on processes ends it; `disk`: no limit of a sandbox does (a file-size limit bounds one file, not the disk). */
  exhausts: "processes" | "disk";
}

/** Why the script exhausts a resource, for each place it does. */
export function exhaustion(script: SyntaxNode): Exhaustion[] {
  const reasons: string[] = [];
  visit(script, reasons);
  return [...new Set(reasons)].map((reason) => ({ reason, exhausts: reason.includes(PROCESS_TABLE) ? "processes" : "disk" }));
}

const PROCESS_TABLE = "fill the process table";

function visit(node: SyntaxNode, reasons: string[]): void {
  switch (node.type) {
    case "Function": {
      const name = valueOf(node.name);
      if (name !== undefined && callsItselfConcurrently(node.body as SyntaxNode, name)) reasons.push(`the function ${name} calls itself in the background or a pipeline: a fork bomb, which can fill the process table`);
      break;
    }
    case "For":
    case "While":
    case "ArithmeticFor":
    case "Select": {
      const bounded = node.type === "For" && node.wordlist !== undefined && node.wordlist.length <= MAX_LITERAL_LOOP && node.wordlist.every((word) => valueOf(word) !== undefined);
      if (!bounded && startsBackground(node.body as SyntaxNode)) reasons.push("a loop starts background processes, as many as it turns: they can fill the process table");
      break;
    }
    case "Pipeline":
      pipeline(node.commands, reasons);
      return forEachChild(node, (child) => (child.type === "Command" ? visitCommandWords(child, reasons) : visit(child, reasons)));
    case "Command":
      pipeline([node], reasons);
      break;
    default:
      break;
  }
  forEachChild(node, (child) => visit(child, reasons));
}

/** A command of a pipeline already judged there: only what its words hold (substitutions) is looked into. */
function visitCommandWords(node: Command, reasons: string[]): void {
  forEachChild(node, (child) => visit(child, reasons));
}

function callsItselfConcurrently(body: SyntaxNode, name: string): boolean {
  let found = false;
  const walk = (node: SyntaxNode, concurrent: boolean): void => {
    if (found) return;
    if (node.type === "Statement" && node.background) concurrent = true;
    if (node.type === "Pipeline" && node.commands.length > 1) concurrent = true;
    if (node.type === "Command" && concurrent && valueOf(node.name) === name) found = true;
    forEachChild(node, (child) => walk(child, concurrent));
  };
  walk(body, false);
  return found;
}

function startsBackground(body: SyntaxNode): boolean {
  let found = false;
  const walk = (node: SyntaxNode): void => {
    if (found) return;
    if (node.type === "Statement" && node.background) found = true;
    else forEachChild(node, walk);
  };
  walk(body);
  return found;
}

/** The words of a simple command, as far as they are known. */
function wordsOf(node: CommandNode): Array<string | undefined> | undefined {
  if (node.type !== "Command" || !node.name) return undefined;
  return [valueOf(node.name), ...node.suffix.filter((item): item is Word => item.type === "Word").map((word) => valueOf(word))];
}

function redirectsOf(node: CommandNode): readonly Redirection[] {
  return node.type === "Command" || node.type === "Redirected" ? node.redirects : [];
}

/** The file a stage writes its output to (`> f`, `>> f`, `&> f`), other than a device that discards it. */
function writesTo(node: CommandNode): string | undefined {
  for (const redirect of redirectsOf(node)) {
    if (redirect.type !== "Redirect" || !/^(>|>>|>\||&>|&>>)$/.test(redirect.operator)) continue;
    if (redirect.descriptor !== undefined && !(redirect.descriptor.type === "FileDescriptor" && redirect.descriptor.value === 1)) continue;
    const target = valueOf(redirect.target);
    if (target === undefined || !SINKS.test(target)) return target ?? "a file known only at run time";
  }
  return undefined;
}

/** Whether a stage reads an endless device on its standard input (`tr -dc a-z < /dev/urandom`). */
function readsEndless(node: CommandNode): boolean {
  return redirectsOf(node).some((redirect) => redirect.type === "Redirect" && redirect.operator === "<" && ENDLESS_DEVICES.test(valueOf(redirect.target) ?? ""));
}

type Stage = { kind: "endless"; what: string } | { kind: "bounded"; bytes?: number; what: string } | { kind: "passes" } | { kind: "keeps"; what: string } | { kind: "other" };

/** What one stage does with the stream: starts an endless one, bounds it, passes it on, keeps it all. */
function stageOf(node: CommandNode, input: boolean): Stage {
  const words = wordsOf(node);
  const program = words?.[0]?.replace(/^.*\//, "");
  if (!words || program === undefined) return { kind: "other" };
  const args = words.slice(1);
  const operands = args.filter((arg) => arg === undefined || !arg.startsWith("-"));
  const endlessInput = readsEndless(node);
  switch (program) {
    case "yes":
      return { kind: "endless", what: "yes prints without end" };
    case "seq":
      return operands.some((arg) => /^[+]?inf(inity)?$/i.test(arg ?? "")) ? { kind: "endless", what: "seq inf counts without end" } : { kind: "other" };
    case "head":
      return headStage(args, operands, endlessInput || input);
    case "dd":
      return ddStage(args, input || endlessInput);
    case "fallocate":
    case "truncate":
      return { kind: "other" };
    case "cat":
    case "tail":
      if (operands.some((arg) => ENDLESS_DEVICES.test(arg ?? "")) || (operands.length === 0 && endlessInput)) return { kind: "endless", what: `${program} ${operands.find((arg) => ENDLESS_DEVICES.test(arg ?? "")) ?? "< /dev/…"} reads without end` };
      return operands.length === 0 ? { kind: "passes" } : { kind: "other" };
    case "sed":
      // `sed q`, `sed 10q`, `sed -n 1,5p;5q`: it stops.
      return args.some((arg) => /(^|[;\s0-9$/])q\b|^q$/.test(arg ?? "")) ? { kind: "bounded", what: "sed q" } : { kind: "passes" };
    case "grep":
    case "egrep":
    case "fgrep":
    case "rg":
      return args.some((arg) => /^(-m|--max-count)/.test(arg ?? "") || /^-[A-Za-z]*q/.test(arg ?? "")) ? { kind: "bounded", what: `${program} -m` } : { kind: "passes" };
    case "xxd":
    case "od":
      return args.some((arg) => /^(-l|-N|--read-bytes|-len)/.test(arg ?? "")) ? { kind: "bounded", what: `${program} -l` } : { kind: "passes" };
    case "read":
    case "true":
    case "false":
      return { kind: "bounded", what: program };
    default:
      if (KEEPING.test(program)) return { kind: "keeps", what: `${program} keeps all of its input` };
      if (STREAMING.test(program)) {
        if (endlessInput) return { kind: "endless", what: `${program} reads /dev/… without end` };
        return { kind: "passes" };
      }
      return { kind: "other" };
  }
}

/** `head -c SIZE`: it bounds the stream, unless it is told to write more than a gibibyte of an endless one. */
function headStage(args: readonly (string | undefined)[], operands: readonly (string | undefined)[], endlessInput: boolean): Stage {
  const bytes = args.find((arg, i) => /^(-c|--bytes)$/.test(args[i - 1] ?? "") || /^(-c.|--bytes=)/.test(arg ?? ""));
  const value = bytes?.replace(/^(-c|--bytes=)/, "");
  const size = value === undefined ? undefined : sizeOf(value);
  const source = operands.find((arg) => ENDLESS_DEVICES.test(arg ?? ""));
  const what = `head ${args.join(" ")}`;
  if (size !== undefined && size > MAX_BYTES && (source !== undefined || endlessInput)) return { kind: "endless", what: `${what} writes ${value} bytes` };
  return { kind: "bounded", what };
}

/** `dd`: without a count it copies an endless input without end; with one, bs times count bytes. */
function ddStage(args: readonly (string | undefined)[], endlessInput: boolean): Stage {
  const of = args.find((arg) => arg?.startsWith("if="))?.slice(3);
  const count = args.find((arg) => arg?.startsWith("count="))?.slice(6);
  const bs = args.find((arg) => arg?.startsWith("bs=") || arg?.startsWith("obs=") || arg?.startsWith("ibs="))?.replace(/^[io]?bs=/, "");
  const endless = of === undefined ? endlessInput : ENDLESS_DEVICES.test(of);
  if (count === undefined) return endless ? { kind: "endless", what: `dd ${args.join(" ")} copies without a count` } : { kind: "other" };
  const blocks = sizeOf(count);
  const block = bs === undefined ? 512 : sizeOf(bs);
  if (blocks !== undefined && block !== undefined && blocks * block > MAX_BYTES) return { kind: "endless", what: `dd ${args.join(" ")} writes ${count} blocks of ${bs ?? 512} bytes` };
  return { kind: "bounded", what: "dd count=" };
}

/** A pipeline (or one command): an endless source that reaches a file, or a stage that keeps it, with nothing bounding it between. */
function pipeline(commands: readonly CommandNode[], reasons: string[]): void {
  let endless: string | undefined;
  for (const node of commands) {
    const stage = stageOf(node, endless !== undefined);
    if (stage.kind === "endless") endless = stage.what;
    else if (endless !== undefined) {
      if (stage.kind === "bounded") endless = undefined;
      else if (stage.kind === "keeps") {
        reasons.push(`${endless}, and ${stage.what}: it fills the memory or the disk`);
        endless = undefined;
      } else if (stage.kind === "other") endless = undefined;
    }
    if (endless === undefined) {
      const sized = sizedWrite(node);
      if (sized) reasons.push(sized);
      continue;
    }
    const target = writesTo(node) ?? teeFile(node) ?? ddOutput(node);
    if (target !== undefined) {
      reasons.push(`${endless}, and its output is written to ${target} with nothing to bound it: it fills the disk (bound it: \`| head -c 1M\`, \`dd count=\`)`);
      endless = undefined;
    }
  }
}

/** `tee FILE` of an endless stream: the first file it names that is not a discarding device. */
function teeFile(node: CommandNode): string | undefined {
  const words = wordsOf(node);
  if (!words || words[0]?.replace(/^.*\//, "") !== "tee") return undefined;
  const files = words.slice(1).filter((arg) => arg === undefined || !arg.startsWith("-"));
  const file = files.find((arg) => arg === undefined || !SINKS.test(arg));
  return file === undefined && files.length > 0 ? undefined : files.length === 0 ? undefined : (file ?? "a file known only at run time");
}

/** `dd of=FILE`: the file dd writes, other than a discarding device. */
function ddOutput(node: CommandNode): string | undefined {
  const words = wordsOf(node);
  if (!words || words[0]?.replace(/^.*\//, "") !== "dd") return undefined;
  const of = words.find((arg) => arg === undefined || arg.startsWith("of="));
  if (of === undefined) return undefined;
  return of === undefined || SINKS.test(of.slice(3)) ? undefined : of.slice(3);
}

/** `fallocate -l 1T x`: a file made this large at once. */
function sizedWrite(node: CommandNode): string | undefined {
  const words = wordsOf(node);
  if (!words || words[0]?.replace(/^.*\//, "") !== "fallocate") return undefined;
  const args = words.slice(1);
  const length = args.find((arg, i) => /^(-l|--length)$/.test(args[i - 1] ?? "") || /^(-l.|--length=)/.test(arg ?? ""))?.replace(/^(-l|--length=)/, "");
  if (length === undefined) return undefined;
  const size = sizeOf(length);
  return size === undefined || size > MAX_BYTES ? `fallocate -l ${length} allocates more than ${MAX_BYTES / 1024 ** 3} GiB at once: it can fill the disk` : undefined;
}

const UNITS: Readonly<Record<string, number>> = { "": 1, c: 1, w: 2, b: 512, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4, p: 1024 ** 5, e: 1024 ** 6, z: 1024 ** 7, y: 1024 ** 8 };

/** `500G`, `1MiB`, `10MB`, `4k`, `1000`: bytes (coreutils' suffixes); undefined when it is not a size. */
export function sizeOf(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([a-zA-Z]?)(i?[bB])?$/.exec(text.trim());
  if (!match) return undefined;
  const unit = UNITS[(match[2] ?? "").toLowerCase()];
  if (unit === undefined) return undefined;
  const decimal = match[3] === "B" || match[3] === "b" ? (match[2] === "" ? 1 : (1000 / 1024) ** ["", "k", "m", "g", "t", "p", "e", "z", "y"].indexOf((match[2] ?? "").toLowerCase())) : 1;
  return Number(match[1]) * unit * decimal;
}

import type { PolicyMatch } from "@toolhost/core";
import type { CommandPattern } from "../rules/_command-pattern.js";
import { PathIndex } from "../rules/_path-index.js";
import type { PathAnchors } from "../paths/_paths.js";
import type { TreeGuard } from "../paths/_protected.js";
import { appliesTo, type CompiledRule, isControl, isPlace, isWhole, namesTool } from "../rules/_rules.js";
import { READ, unique, WRITE } from "./_scope.js";

/** The rules that can judge the parts of one tool's calls, sorted out once per tool name. */
export interface ToolRules {
  /** Rules without a matcher: they judge every part of the call. */
  whole: CompiledRule[];
  /** Per program named by some rule: its rules and the glob ones, in rule order. */
  forProgram: Map<string, CompiledRule[]>;
  /** Command rules whose program is a glob. */
  anyProgram: CompiledRule[];
  allCommand: CompiledRule[];
  inline: CompiledRule[];
  /** Rules on the kind of a command's program (`kind`). */
  kinds: CompiledRule[];
  network: CompiledRule[];
  args: CompiledRule[];
  /** Path rules of the tool and of `write` / `read`, indexed by what a path must hold to match them. */
  write: PathIndex;
  /** Whether any path rule judges writes (else a bash command's writes are the command's, judged by its rules). */
  judgesWrites: boolean;
  read: PathIndex;
  /** Rules without a matcher of `write` / `read` and of the tool. */
  writeWhole: CompiledRule[];
  readWhole: CompiledRule[];
  /** Deny path rules that judge reads: arguments of a command that name such a file deny it. */
  readDeny: PathIndex;
  /** `place` rules that do not allow: a file a command reads there is judged as a read of its own (`cat ~/.bash_history`). */
  readPlaces: CompiledRule[];
  /** Deny and ask path rules that judge reads: a word known only at run time that could name such a file asks. */
  readCaution: CompiledRule[];
  /** Finds the paths `readDeny` names under a tree; made when first needed. */
  guard: TreeGuard | undefined;
  /** Finds the paths `readDeny` names under a tree that a filtered tree read (`grep --include`, `rg -g`, find's names through xargs) reads, by the filter and root. */
  filteredGuards?: Map<string, TreeGuard>;
  /** Finds the ignore files (`.gitignore`, `.ignore`, `.rgignore`) under a tree rg or ag reads: one with a `!pattern` may make it read hidden files. */
  ignoreGuard?: TreeGuard | undefined;
  /** Finds the private places (`readPlaces`, not denied) under a tree a tool reads; made when first needed. */
  placeGuard?: TreeGuard | undefined;
  /** Deny and ask rules with a matcher that name this tool (not by `*`): a call that declares nothing they judge asks. */
  naming: CompiledRule[];
  /** Confined calls: the ids of `sandboxed: true` rules; one matching a part lifts the ask of what the policy cannot read. */
  lifting: Set<string>;
}

/** Command rules by the program they name; glob ones (`*`, `python*`) join every program's list, in rule order. */
function byProgram(commands: CompiledRule[]): { forProgram: Map<string, CompiledRule[]>; anyProgram: CompiledRule[] } {
  const named = new Map<string, CompiledRule[]>();
  const anyProgram: CompiledRule[] = [];
  for (const rule of commands) {
    const program = (rule.command as CommandPattern).program;
    if (program === undefined) anyProgram.push(rule);
    else named.set(program, [...(named.get(program) ?? []), rule]);
  }
  const forProgram = new Map<string, CompiledRule[]>();
  for (const [program, rules] of named) forProgram.set(program, [...rules, ...anyProgram].sort((a, b) => a.order - b.order));
  return { forProgram, anyProgram };
}

/** Sorts out the rules that judge calls of `tool`, for confined calls or the others, in a trusted workspace or not. */
export function toolRulesOf(all: CompiledRule[], tool: string, confined: boolean, trusted: boolean, anchors: PathAnchors): ToolRules {
  const of = (name: string) => all.filter((rule) => rule.tool(name) && appliesTo(rule, confined, trusted));
  const mine = of(tool);
  const allCommand = mine.filter((rule) => rule.command);
  const whole = mine.filter(isWhole);
  const fileRules = (name: string) => unique([...of(name).filter((rule) => rule.path), ...mine.filter((rule) => rule.path)]).sort((a, b) => a.order - b.order);
  // Control files are judged when written; reading one is judged by the other rules.
  const read = fileRules(READ).filter((rule) => !isControl(rule));
  return {
    ...byProgram(allCommand),
    whole,
    writeWhole: unique([...of(WRITE).filter(isWhole), ...whole]),
    // A confinement bounds writes and the network, not reads: a sandboxed rule without a matcher judges no read.
    readWhole: unique([...of(READ).filter(isWhole), ...whole]).filter((rule) => rule.sandboxed !== true),
    allCommand,
    inline: mine.filter((rule) => rule.inline),
    kinds: mine.filter((rule) => rule.kinds !== undefined),
    network: mine.filter((rule) => rule.url || rule.host || rule.address),
    args: mine.filter((rule) => rule.args),
    // A place rule judges reads only.
    write: new PathIndex(fileRules(WRITE).filter((rule) => !isPlace(rule)), anchors),
    judgesWrites: fileRules(WRITE).some((rule) => !isPlace(rule)),
    read: new PathIndex(read, anchors),
    readDeny: new PathIndex(read.filter((rule) => rule.decision === "deny"), anchors),
    readPlaces: read.filter((rule) => isPlace(rule) && rule.decision !== "allow"),
    readCaution: read.filter((rule) => rule.decision !== "allow" && !isPlace(rule)),
    guard: undefined,
    naming: mine.filter((rule) => !isWhole(rule) && !rule.args && rule.decision !== "allow" && namesTool(rule, tool)),
    lifting: new Set(mine.filter((rule) => rule.sandboxed === true).map((rule) => rule.id)),
  };
}

/** Whether a `sandboxed: true` rule matched a part of a confined call. */
export function lifts(rules: ToolRules, matched: PolicyMatch[]): boolean {
  return rules.lifting.size > 0 && matched.some((entry) => rules.lifting.has(entry.id));
}

// Issue 39's measurement tables: for each set of cases (the shared sets copied into test/sets/, the
// shared policy-cases.json, harmless-commands.json and our own sets), decided unconfined in a
// workspace not trusted, unconfined in a trusted one, and confined: how many dangerous cases are
// allowed and how many harmless ones asked (or denied). Read by measure.test.ts (the goals) and
// bench/policy/shares.mjs (the table).
import { mkdirSync, readdirSync, readFileSync, realpathSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { PolicyExplanation } from "@toolhost/core";
import { createPolicy, type PolicyOptions } from "../src/index.js";
import { ACCESS } from "./fixtures/access-tools.mjs";
import { contained } from "./inventory-classes.js";

export type Mode = "untrusted" | "trusted" | "confined";
export const MODES: readonly Mode[] = ["untrusted", "trusted", "confined"];

/** What a case expects; `any` (our own sets) counts it on neither side in that mode. */
export type Expect = "allow" | "ask" | "deny" | "not-allow" | "any";

/** A case of a set, in the format of shared/policy-cases.json. */
export interface SetCase {
  id: string;
  ruleset: string;
  tool: string;
  args: unknown;
  expect: Expect;
  /** The expectation in a trusted project, where it differs (our own sets): default `expect`. */
  trusted?: Expect;
  /** The expectation confined (our own sets): default allow when `expect` is allow, else counted as not-allow. */
  confined?: Expect;
  group?: string;
  note?: string;
}

export interface CaseSet {
  name: string;
  rulesets: Record<string, PolicyOptions>;
  cases: SetCase[];
}

/** Every set the measure reads: test/sets/*.json, the shared policy-cases.json and the harmless commands (in `tests`, default this folder). */
export function allSets(tests: URL = new URL("./", import.meta.url)): CaseSet[] {
  const here = (path: string) => new URL(path, tests);
  const folder = here("./sets/");
  const sets = readdirSync(folder)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => readSet(basename(file, ".json"), readFileSync(new URL(file, folder), "utf8")));
  return [...sets, readSet("policy-cases", readFileSync(here("./policy-cases.json"), "utf8")), harmlessSet(readFileSync(here("./harmless-commands.json"), "utf8"))];
}

function readSet(name: string, json: string): CaseSet {
  const parsed = JSON.parse(json) as { rulesets: Record<string, PolicyOptions>; cases: SetCase[] };
  return { name, rulesets: parsed.rulesets, cases: parsed.cases };
}

/** harmless-commands.json as a set: every command is harmless under `recommended`. */
function harmlessSet(json: string): CaseSet {
  const { about: _about, ...lists } = JSON.parse(json) as Record<string, unknown>;
  const cases = Object.entries(lists as Record<string, string[]>).flatMap(([group, commands]) =>
    commands.map((command, index): SetCase => ({ id: `${group}-${index + 1}`, ruleset: "R", tool: "bash", args: { command }, expect: "allow", group })),
  );
  return { name: "harmless-commands", rulesets: { R: { extends: ["recommended"] } }, cases };
}

/**
 * The workspace the sets' `about` describes: src/a.ts, .env, out.txt, list.txt, sub/,
 * link-to-passwd -> /etc/passwd, env-link -> .env, d -> /; and a package.json with a test script.
 */
export function setWorkspace(): { ws: string; cleanup: () => void } {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-measure-")));
  mkdirSync(join(ws, "src"));
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(ws, ".env"), "SECRET=1\n");
  writeFileSync(join(ws, "out.txt"), "");
  writeFileSync(join(ws, "list.txt"), "a\n");
  mkdirSync(join(ws, "sub"));
  symlinkSync("/etc/passwd", join(ws, "link-to-passwd"));
  symlinkSync(".env", join(ws, "env-link"));
  symlinkSync("/", join(ws, "d"));
  writeFileSync(join(ws, "package.json"), '{"scripts":{"test":"vitest","build":"tsc"}}\n');
  return { ws, cleanup: () => rmSync(ws, { recursive: true, force: true }) };
}

const inWorkspace = <T>(value: T, ws: string): T => JSON.parse(JSON.stringify(value).replaceAll("${workspace}", ws)) as T;

/** One case decided in one mode. */
export interface Decided {
  set: string;
  mode: Mode;
  case: SetCase;
  decision: PolicyExplanation["decision"];
  reason: string;
}

/** Decides every case of a set in a mode, with the access the test tools declare (bash confined when the mode says). */
export function decideSet(set: CaseSet, mode: Mode, ws: string): Decided[] {
  const policies = new Map<string, ReturnType<typeof createPolicy>>();
  const policyOf = (ruleset: string) => {
    let policy = policies.get(ruleset);
    if (!policy) {
      const options = set.rulesets[ruleset];
      if (!options) throw new Error(`set ${set.name}: no ruleset ${ruleset}`);
      policy = createPolicy(inWorkspace(options, ws), { cwd: ws, workspace: ws, trustedWorkspace: mode === "trusted" });
      policies.set(ruleset, policy);
    }
    return policy;
  };
  return set.cases.map((one) => {
    const args = inWorkspace(one.args, ws) as Record<string, unknown>;
    const declared = ACCESS[one.tool as keyof typeof ACCESS]?.(args as never, { cwd: ws, workspace: ws });
    const access = declared && mode === "confined" && one.tool === "bash" ? { ...declared, confinement: contained(ws) } : declared;
    const explanation = policyOf(one.ruleset).decide({ tool: one.tool, args, ...(access && { access }) });
    return { set: set.name, mode, case: one, decision: explanation.decision, reason: explanation.reason };
  });
}

/** What a case expects in a mode. */
export function expected(one: SetCase, mode: Mode): Expect {
  if (mode === "trusted") return one.trusted ?? one.expect;
  if (mode === "confined") return one.confined ?? one.expect;
  return one.expect;
}

/**
 * A harmless case asked in a workspace not trusted only because it runs the project's own build,
 * tests or scripts: allowed once the project is trusted, and asked by the rule for the project's
 * code in a workspace not trusted. The goals leave these out of the harmless side untrusted.
 */
function isRunnerAsk(untrusted: Decided, trusted: Decided | undefined): boolean {
  return trusted?.decision === "allow" && untrusted.decision === "ask" && untrusted.reason.includes("in a workspace not trusted");
}

/** One row of the table: a set in a mode. */
export interface Row {
  set: string;
  mode: Mode;
  dangerous: number;
  harmless: number;
  /** Dangerous cases (expected ask, deny or not-allow) that were allowed. */
  dangerousAllowed: Decided[];
  /** Harmless cases (expected allow) that were asked about or denied (the project's runners untrusted left out). */
  harmlessAsked: Decided[];
  /** Untrusted: harmless cases asked only because they run the project's own code in a workspace not trusted (not in `harmless`). */
  runnersAsked: Decided[];
}

/** A set's cases decided in a mode as a row; `trusted` (the same set decided trusted) tells the project's runners apart untrusted. */
export function rowOf(set: string, mode: Mode, decided: Decided[], trusted?: Decided[]): Row {
  const dangerous = decided.filter((one) => expected(one.case, mode) !== "allow" && expected(one.case, mode) !== "any");
  const allowed = decided.filter((one) => expected(one.case, mode) === "allow");
  const trustedOf = new Map(trusted?.map((one) => [one.case, one]));
  const runnersAsked = mode === "untrusted" ? allowed.filter((one) => isRunnerAsk(one, trustedOf.get(one.case))) : [];
  const harmless = allowed.filter((one) => !runnersAsked.includes(one));
  return {
    set,
    mode,
    dangerous: dangerous.length,
    harmless: harmless.length,
    dangerousAllowed: dangerous.filter((one) => one.decision === "allow"),
    harmlessAsked: harmless.filter((one) => one.decision !== "allow"),
    runnersAsked,
  };
}

/** A set in every mode, as rows. */
export function rowsOf(set: CaseSet, ws: string): Row[] {
  const trusted = decideSet(set, "trusted", ws);
  return MODES.map((mode) => rowOf(set.name, mode, mode === "trusted" ? trusted : decideSet(set, mode, ws), trusted));
}

/** Every set in every mode, in one workspace laid out as the sets say. */
export function measureAll(sets: CaseSet[] = allSets()): Row[] {
  const { ws, cleanup } = setWorkspace();
  try {
    return sets.flatMap((set) => rowsOf(set, ws));
  } finally {
    cleanup();
  }
}

const share = (part: number, total: number) => (total === 0 ? "–" : `${part} (${((100 * part) / total).toFixed(1)}%)`);

/** The rows as a markdown table, one line per set and mode, with the totals per mode. */
export function table(rows: Row[]): string {
  const lines = ["| set | mode | dangerous | allowed | harmless | asked | runners asked |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"];
  const runners = (row: Row) => (row.mode === "untrusted" ? String(row.runnersAsked.length) : "–");
  for (const row of rows) lines.push(`| ${row.set} | ${row.mode} | ${row.dangerous} | ${share(row.dangerousAllowed.length, row.dangerous)} | ${row.harmless} | ${share(row.harmlessAsked.length, row.harmless)} | ${runners(row)} |`);
  for (const mode of MODES) {
    const of = rows.filter((row) => row.mode === mode);
    const sum = (pick: (row: Row) => number) => of.reduce((total, row) => total + pick(row), 0);
    const dangerous = sum((row) => row.dangerous);
    const harmless = sum((row) => row.harmless);
    const runnersAsked = mode === "untrusted" ? String(sum((row) => row.runnersAsked.length)) : "–";
    lines.push(`| **all** | ${mode} | ${dangerous} | ${share(sum((row) => row.dangerousAllowed.length), dangerous)} | ${harmless} | ${share(sum((row) => row.harmlessAsked.length), harmless)} | ${runnersAsked} |`);
  }
  return lines.join("\n");
}

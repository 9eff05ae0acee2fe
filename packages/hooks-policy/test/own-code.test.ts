// Issue 39, part 1: sets/own-code.json through createPolicy().decide, unconfined in a workspace not
// trusted and in a trusted one, and confined: code given in arguments, options whose value is run,
// bash's evaluating expansions and builtins, what outlives the call, and trust meaning the project's files.
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy, type PolicyOptions } from "../src/index.js";
import { makeWorkspace } from "./_helpers.js";
import { contained } from "./inventory-classes.js";

type Expect = "allow" | "not-allow" | "ask" | "deny" | "any";
interface OwnCase {
  id: string;
  ruleset: string;
  args: { command: string };
  expect: Expect;
  trusted?: Expect;
  confined?: Expect;
  group: string;
  note: string;
}

const set = JSON.parse(readFileSync(new URL("./sets/own-code.json", import.meta.url), "utf8")) as { rulesets: Record<string, PolicyOptions>; cases: OwnCase[] };

let ws = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws, cleanup } = makeWorkspace());
  writeFileSync(join(ws, "list.txt"), "a\n");
  symlinkSync("/", join(ws, "d"));
});
afterAll(() => cleanup());

const agrees = (decision: string, expected: Expect) => expected === "any" || (expected === "not-allow" ? decision !== "allow" : decision === expected);

function decided(c: OwnCase, mode: "open" | "trusted" | "confined") {
  const policy = createPolicy(set.rulesets[c.ruleset] as PolicyOptions, { cwd: ws, workspace: ws, trustedWorkspace: mode === "trusted" });
  const { command } = c.args;
  return policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }], ...(mode === "confined" && { confinement: contained(ws) }) } });
}

describe("own-code.json: unconfined, a workspace not trusted", () => {
  it.each(set.cases)("$id [$group] $args.command → $expect", (c) => {
    const explanation = decided(c, "open");
    expect(agrees(explanation.decision, c.expect), `${c.id} ${c.args.command}: got ${explanation.decision} (${explanation.reason}); ${c.note}`).toBe(true);
    if (explanation.decision !== "allow") expect(explanation.reason).not.toBe("");
  });
});

describe("own-code.json: unconfined, a trusted workspace", () => {
  it.each(set.cases)("$id [$group] $args.command", (c) => {
    const explanation = decided(c, "trusted");
    expect(agrees(explanation.decision, c.trusted ?? c.expect), `${c.id} ${c.args.command}: got ${explanation.decision} (${explanation.reason}); ${c.note}`).toBe(true);
  });
});

describe("own-code.json: confined", () => {
  it.each(set.cases.filter((c) => (c.confined ?? (c.expect === "allow" ? "allow" : "any")) !== "any"))("$id [$group] $args.command", (c) => {
    const explanation = decided(c, "confined");
    expect(agrees(explanation.decision, c.confined ?? "allow"), `${c.id} ${c.args.command}: got ${explanation.decision} (${explanation.reason}); ${c.note}`).toBe(true);
  });
});

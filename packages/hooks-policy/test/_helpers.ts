import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { type AccessEnvironment, AgentHarness, type AgentTool, type PolicyService, type ToolAccess, Type } from "@toolhost/core";
import policyPlugin, { type Policy, type PolicyExplanation, type PolicyOptions } from "../src/index.js";

/** A case of policy-cases.json. */
export interface PolicyCase {
  id: string;
  ruleset: string;
  tool: string;
  args: unknown;
  expect: "allow" | "ask" | "deny" | "not-allow";
  note?: string;
}

/** The shared cases (a copy of shared/policy-cases.json) and their rulesets. */
export const policyCases = JSON.parse(readFileSync(new URL("./policy-cases.json", import.meta.url), "utf8")) as {
  rulesets: Record<string, PolicyOptions>;
  cases: PolicyCase[];
};

/** A fresh workspace laid out as policy-cases.json's "about" says. */
export function makeWorkspace(): { ws: string; cleanup: () => void } {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-policy-")));
  mkdirSync(join(ws, "src"));
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(ws, ".env"), "SECRET=1\n");
  writeFileSync(join(ws, "out.txt"), "");
  mkdirSync(join(ws, "sub"));
  symlinkSync("/etc/passwd", join(ws, "link-to-passwd"));
  symlinkSync(".env", join(ws, "env-link"));
  return { ws, cleanup: () => rmSync(ws, { recursive: true, force: true }) };
}

/** Replaces `${workspace}` in every string of a JSON value. */
export function inWorkspace<T>(value: T, ws: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll("${workspace}", ws)) as T;
}

type Args = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === "string" ? value : "");
/** Absolute, but not folded: `link/..` is left for the policy to walk as the system does. */
const absolute = (path: unknown, env: AccessEnvironment): string => {
  const value = text(path);
  const expanded = value === "~" || value.startsWith("~/") ? homedir() + value.slice(1) : value;
  return isAbsolute(expanded) ? expanded : `${env.cwd}/${expanded}`;
};

/**
 * What the test tools declare they touch, shaped as tool-bash (a command and its cwd), tool-fs
 * (read: reads; write and edit: writes; ls, find, grep: a tree) and the HTTP example (a URL)
 * declare it. Only the shape matters to the policy; the names are the tools' own.
 */
export const ACCESS: Record<string, (args: Args, env: AccessEnvironment) => ToolAccess | undefined> = {
  bash: (args, env) => (typeof args.command === "string" ? { commands: [{ command: args.command, cwd: args.cwd === undefined ? env.cwd : resolve(absolute(args.cwd, env)) }] } : undefined),
  read: (args, env) => ({ reads: [absolute(args.path, env)] }),
  write: (args, env) => ({ writes: [absolute(args.path, env)] }),
  edit: (args, env) => ({ writes: [absolute(args.path, env)] }),
  ls: (args, env) => ({ readTrees: [absolute(args.path ?? ".", env)] }),
  find: (args, env) => ({ readTrees: [absolute(args.path ?? ".", env)] }),
  grep: (args, env) => ({ readTrees: [absolute(args.path ?? ".", env)] }),
  make_api_call: (args) => (typeof args.url === "string" ? { network: [{ url: args.url, method: text(args.method) || "GET" }] } : undefined),
};

/** Decides a call the way the harness does: with what the test tool of that name declares. */
export function decide(policy: Policy, ws: string, tool: string, args: unknown, cwd?: string, policyCwd = ws): PolicyExplanation {
  const env = { cwd: cwd ?? policyCwd, workspace: ws };
  const access = typeof args === "object" && args !== null ? ACCESS[tool]?.(args as Args, env) : undefined;
  return policy.decide({ tool, args, ...(cwd && { cwd }), ...(access && { access }) });
}

/** A tool that records that it ran and returns `ran <name>`; it declares access as ACCESS says. */
export function recordingTool(name: string, runs: string[], result?: () => { text: string; details: unknown }): AgentTool {
  const access = ACCESS[name];
  return {
    name,
    label: name,
    description: `test tool ${name}`,
    parameters: Type.Object({}),
    ...(access && { access: (params: unknown, env: AccessEnvironment) => access(params as Args, env) }),
    async execute() {
      runs.push(name);
      const made = result?.() ?? { text: `ran ${name}`, details: { ran: name } };
      return { content: [{ type: "text", text: made.text }], details: made.details };
    },
  };
}

export const TOOL_NAMES = ["bash", "read", "write", "edit", "ls", "find", "grep", "make_api_call"];

/** A harness with the recording tools and the policy plugin. */
export async function harnessWith(
  options: PolicyOptions,
  ws: string,
  runs: string[] = [],
): Promise<{ harness: AgentHarness; runs: string[]; policy: PolicyService }> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: TOOL_NAMES.map((name) => recordingTool(name, runs)) });
  await harness.use(policyPlugin, options);
  const policy = harness.getService("policy") as PolicyService | undefined;
  if (!policy) throw new Error("the plugin provided no policy service");
  return { harness, runs, policy };
}

/** A policy whose `decide(tool, args, cwd?)` computes the call's access as the test tools declare it. */
export function withAccess(policy: Policy, ws: string, policyCwd = ws) {
  return {
    decide: (tool: string, args: unknown, cwd?: string) => decide(policy, ws, tool, args, cwd, policyCwd),
    rules: policy.rules,
    protectedPaths: (root: string) => policy.protectedPaths(root),
  };
}

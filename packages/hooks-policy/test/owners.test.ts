import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness, type AskingPart, type PluginLayer, type PolicyService, policyDetailsOf, type ToolResultMessage, textOf as textOfResult } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import policyPlugin, { type PolicyOptions } from "../src/index.js";
import { makeWorkspace, recordingTool, TOOL_NAMES } from "./_helpers.js";

// The policy composed from every owner's config (core's PluginContext.layers: managed, user,
// project, highest first), applied as a host applies it: harness.use(plugin, options, { layers }).

let ws = "";
let cleanup = () => {};
let home = "";
let managed = "";
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
  home = join(ws, "..", `${ws.split("/").at(-1)}-home`);
  managed = join(ws, "..", `${ws.split("/").at(-1)}-etc`);
  mkdirSync(join(home, ".config", "toolhost"), { recursive: true });
  mkdirSync(managed, { recursive: true });
});
afterEach(() => cleanup());

const userFile = () => join(home, ".config", "toolhost", "toolhost.config.json");
const managedFile = () => join(managed, "toolhost.config.json");
const projectFile = () => join(ws, "toolhost.config.json");

const layer = (owner: PluginLayer["owner"], options: PolicyOptions, extra: Partial<PluginLayer> = {}): PluginLayer => ({
  owner,
  file: owner === "managed" ? managedFile() : owner === "user" ? userFile() : projectFile(),
  trusted: true,
  options,
  ...extra,
});

/** A harness with the recording tools and the policy applied with these layers (the options passed are the nearest owner's, as a host passes them). */
async function hostWith(layers: PluginLayer[]) {
  const runs: string[] = [];
  const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: TOOL_NAMES.map((name) => recordingTool(name, runs)) });
  await harness.use(policyPlugin, (layers.at(-1)?.options ?? {}) as Record<string, unknown>, { layers });
  const policy = harness.getService("policy") as PolicyService;
  return { harness, runs, policy };
}

const textOf = (result: ToolResultMessage | undefined) => (result ? textOfResult(result) : "");
const bash = (command: string, id = "1") => ({ id, name: "bash", arguments: { command } });
const allowEverything: PolicyOptions = { default: "allow", rules: [{ tool: "*", decision: "allow" }, { tool: "bash", command: "*", decision: "allow" }, { tool: "read", path: "**", decision: "allow" }] };
const userLocksEnv: PolicyOptions = { locked: true, rules: [{ id: "no-env", tool: "read", path: "**/.env", decision: "deny" }, { id: "push-asks", tool: "bash", command: "git push *", decision: "ask" }] };

describe("layers by owner: managed, user, project", () => {
  it("a user's locked deny holds against a project that allows everything: rule, default and extends", async () => {
    const project: PolicyOptions = { ...allowEverything, extends: [{ name: "loose", rules: [{ tool: "*", path: "**", decision: "allow" }] }] };
    const { harness, runs, policy } = await hostWith([layer("user", userLocksEnv), layer("project", project)]);
    const [read] = await harness.executeToolCalls([{ id: "1", name: "read", arguments: { path: ".env" } }]);
    expect(runs).toEqual([]);
    expect(textOf(read)).toContain("denied by config (user, locked)");
    const explained = await policy.explain({ tool: "read", args: { path: ".env" } });
    expect(explained.decision).toBe("deny");
    const matched = explained.parts[0]?.matched ?? [];
    expect(matched).toContainEqual(expect.objectContaining({ id: "no-env", owner: "user", layer: "config", role: "decided" }));
    expect(matched).toContainEqual(expect.objectContaining({ id: "rules[2]", owner: "project", role: "overruled" }));
    // What the project allows and the user did not lock stays allowed.
    expect((await harness.executeToolCalls([{ id: "2", name: "read", arguments: { path: "src/a.ts" } }]))[0]?.isError).toBe(false);
  });

  it("a locked ask of a higher owner stays an ask, held by that owner: no allow below it passes it", async () => {
    const managedAsk: PolicyOptions = { locked: true, rules: [{ id: "org-push", tool: "bash", command: "git push *", decision: "ask" }] };
    const userAllows: PolicyOptions = { rules: [{ tool: "bash", command: "git push *", decision: "allow" }] };
    const { harness } = await hostWith([layer("managed", managedAsk), layer("user", userAllows), layer("project", allowEverything)]);
    const [result] = await harness.executeToolCalls([bash("git push origin main")]);
    expect(result?.details).toMatchObject({ code: "TOOLHOST_NOT_APPROVED" });
    const asks = policyDetailsOf(result?.details)?.asks as AskingPart[];
    expect(asks[0]).toMatchObject({ subject: "git push origin main", locked: true, lockedBy: { layer: "config", owner: "managed", source: managedFile() } });
    expect(asks[0]?.rules).toEqual([expect.objectContaining({ id: "org-push", owner: "managed", locked: true, source: managedFile() })]);
  });

  it("a project can tighten anything, a locked layer's allow included", async () => {
    const userAllowsLs: PolicyOptions = { locked: true, rules: [{ tool: "bash", command: "ls", decision: "allow" }] };
    const projectDenies: PolicyOptions = { rules: [{ id: "no-ls", tool: "bash", command: "ls", decision: "deny" }] };
    const { policy } = await hostWith([layer("user", userAllowsLs), layer("project", projectDenies)]);
    const explained = await policy.explain({ tool: "bash", args: { command: "ls" } });
    expect(explained).toMatchObject({ decision: "deny", rules: ["no-ls"] });
    expect(explained.parts[0]?.matched).toEqual([
      expect.objectContaining({ id: "user:rules[0]", owner: "user", role: "overruled" }),
      expect.objectContaining({ id: "no-ls", owner: "project", role: "decided" }),
    ]);
  });

  it("an unlocked higher owner's rule is a default the project may override", async () => {
    const userAsks: PolicyOptions = { rules: [{ tool: "bash", command: "npm test", decision: "ask" }] };
    const projectAllows: PolicyOptions = { rules: [{ tool: "bash", command: "npm test", decision: "allow" }] };
    const { policy } = await hostWith([layer("user", userAsks), layer("project", projectAllows)]);
    expect((await policy.explain({ tool: "bash", args: { command: "npm test" } })).decision).toBe("allow");
  });

  it("a locked default of the user is a floor for the project's default, and its asks say whose lock holds them", async () => {
    const { harness, policy } = await hostWith([layer("user", { locked: true, default: "ask" }), layer("project", { default: "allow" })]);
    const [result] = await harness.executeToolCalls([bash("some-tool --x")]);
    const asks = policyDetailsOf(result?.details)?.asks as AskingPart[];
    expect(asks[0]).toMatchObject({ rules: [], locked: true, lockedBy: { layer: "config", owner: "user", source: userFile() } });
    // The dry run carries the same asking parts, so a front end can say no --approve passes it.
    const explained = await policy.explain({ tool: "bash", args: { command: "some-tool --x" } });
    expect(explained.asks).toEqual(asks);
  });

  it("lists every rule with its owner and file, ids of owners other than the project's prefixed", async () => {
    const { policy } = await hostWith([
      layer("managed", { extends: ["readonly"], rules: [{ tool: "bash", command: "rm", decision: "deny" }] }),
      layer("user", { rules: [{ id: "mine", tool: "bash", command: "ls", decision: "allow" }] }),
      layer("project", { rules: [{ id: "mine", tool: "bash", command: "ls", decision: "ask" }, { tool: "bash", command: "pwd", decision: "allow" }] }),
    ]);
    const rules = (await policy.rules?.()) ?? [];
    expect(rules.filter((rule) => rule.layer === "readonly").every((rule) => rule.owner === "managed" && rule.id.startsWith("managed:readonly:rules["))).toBe(true);
    expect(rules.slice(-4).map((rule) => [rule.id, rule.owner, rule.source])).toEqual([
      ["managed:rules[0]", "managed", managedFile()],
      ["mine", "user", userFile()],
      // The same id written again is told apart by its layer.
      ["config:mine", "project", projectFile()],
      ["rules[1]", "project", projectFile()],
    ]);
    expect((await policy.explain({ tool: "bash", args: { command: "ls" } })).rules).toEqual(["config:mine"]);
  });

  it("each owner's options are checked, the error naming its file", async () => {
    const bad = { rules: [{ tool: "bash", command: "ls", decison: "allow" }] } as unknown as PolicyOptions;
    await expect(hostWith([layer("user", bad), layer("project", {})])).rejects.toThrow(new RegExp(`Invalid options for @toolhost/hooks-policy in the user's config ${userFile()}`));
  });

  it("a layer below a locked one cannot say a program the inventory knows is something else: what it is decides which locked rules judge it", async () => {
    const user: PolicyOptions = { locked: true, rules: [{ id: "no-writers", tool: "bash", kind: "writes", decision: "deny" }] };
    const { policy } = await hostWith([layer("user", user), layer("project", { ...allowEverything, programs: { rm: "read-only", mytool: "read-only" } })]);
    expect(await policy.explain({ tool: "bash", args: { command: "rm -rf build" } })).toMatchObject({ decision: "deny", rules: ["no-writers"] });
    // A program nothing knew is taught all the same.
    expect((await policy.explain({ tool: "bash", args: { command: "mytool --x" } })).decision).toBe("allow");
    // Without the lock, the project's rows are its own business.
    const { policy: open } = await hostWith([layer("user", { rules: user.rules }), layer("project", { ...allowEverything, programs: { rm: "read-only" } })]);
    expect((await open.explain({ tool: "bash", args: { command: "rm -rf build" } })).decision).toBe("allow");
  });
});

describe("an untrusted project's layer", () => {
  const pkg = (name: string, main: string, body: string) => {
    mkdirSync(join(ws, "node_modules", name), { recursive: true });
    writeFileSync(join(ws, "node_modules", name, "package.json"), JSON.stringify({ name, main }));
    writeFileSync(join(ws, "node_modules", name, main), body);
  };
  const untrusted = (options: PolicyOptions) => layer("project", options, { trusted: false, trust: `run "toolhost trust ${ws}"` } as Partial<PluginLayer>);

  it("may not load a policy package that is code; trusted, it loads", async () => {
    const marker = join(ws, "ran.txt");
    pkg("evil-policy", "index.js", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran"); module.exports = { rules: [] };`);
    const error = (await hostWith([untrusted({ extends: ["evil-policy"] })]).catch((thrown: Error) => thrown)) as Error & { code?: string };
    expect(error.code).toBe("TOOLHOST_UNTRUSTED_CODE");
    expect(error.message).toContain(`The policy "evil-policy" in extends of @toolhost/hooks-policy named in ${projectFile()} was not loaded`);
    expect(error.message).toContain(`run "toolhost trust ${ws}"`);
    expect(() => readFileSync(marker)).toThrow();
    await hostWith([layer("project", { extends: ["evil-policy"] })]);
    expect(readFileSync(marker, "utf8")).toBe("ran");
  });

  it("still applies its JSON policies and rules: it can tighten", async () => {
    pkg("team-policy", "policy.json", JSON.stringify({ rules: [{ id: "team-no-curl", tool: "bash", command: "curl *", decision: "deny" }] }));
    const { policy } = await hostWith([layer("user", { rules: [{ tool: "bash", command: "*", decision: "allow" }] }), untrusted({ extends: ["team-policy"] })]);
    expect(await policy.explain({ tool: "bash", args: { command: "curl https://x" } })).toMatchObject({ decision: "deny", rules: ["team-no-curl"] });
  });

  it("may have its audit log written only inside the workspace, never through a link", async () => {
    const outside = join(home, "bashrc");
    await expect(hostWith([untrusted({ audit: outside })])).rejects.toThrow(/the audit file .* is outside the workspace/);
    symlinkSync(outside, join(ws, "audit.jsonl"));
    await expect(hostWith([untrusted({ audit: "audit.jsonl" })])).rejects.toThrow(/or is a link/);
    mkdirSync(join(ws, "logs"));
    const { harness } = await hostWith([untrusted({ audit: "logs/audit.jsonl" })]);
    await harness.executeToolCalls([bash("ls")]);
    expect(readFileSync(join(ws, "logs", "audit.jsonl"), "utf8")).toContain('"event":"decision"');
    expect(() => readFileSync(outside)).toThrow();
  });
});

describe("options that are not rules", () => {
  it("every owner's audit file gets every line: a project cannot switch off the administrator's log", async () => {
    const adminLog = join(managed, "audit.jsonl");
    const { harness } = await hostWith([layer("managed", { audit: "audit.jsonl" }), layer("project", { ...allowEverything, audit: "project-audit.jsonl" })]);
    await harness.executeToolCalls([bash("ls", "a")]);
    const admin = readFileSync(adminLog, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(admin).toEqual([expect.objectContaining({ event: "decision", toolCallId: "a", decision: "allow", deciding: [expect.objectContaining({ id: "rules[0]", owner: "project", layer: "config" }), expect.objectContaining({ id: "rules[1]", owner: "project", layer: "config" })] })]);
    expect(readFileSync(join(ws, "project-audit.jsonl"), "utf8")).toBe(readFileSync(adminLog, "utf8"));
    // The files are the plugin's reported setting (what `toolhost config` shows).
    const report = await policyPlugin.apply(new AgentHarness({ cwd: ws, workspace: ws }), {}, { layers: [layer("managed", { audit: "audit.jsonl" }), layer("project", { audit: "project-audit.jsonl" })] });
    expect(report).toMatchObject({ settings: { audit: [adminLog, join(ws, "project-audit.jsonl")] } });
    const { harness: quiet } = await hostWith([layer("managed", { audit: "audit.jsonl" }), layer("project", allowEverything)]);
    await quiet.executeToolCalls([bash("pwd", "b")]);
    expect(readFileSync(adminLog, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("redaction is every owner's: patterns add up, and a project cannot turn off what the user's config keeps on", async () => {
    const secretTool = { ...recordingTool("leak", [], () => ({ text: "USERSECRET-1 PROJSECRET-2 AKIAIOSFODNN7EXAMPLE", details: {} })), name: "leak" };
    const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: [secretTool] });
    const layers = [
      layer("user", { rules: [{ tool: "*", decision: "allow" }], redact: [{ pattern: "USERSECRET-[0-9]" }] }),
      layer("project", { redact: [{ pattern: "PROJSECRET-[0-9]" }], redactBuiltins: false, redactEnv: [] }),
    ];
    await harness.use(policyPlugin, layers[1]?.options as Record<string, unknown>, { layers });
    const [result] = await harness.executeToolCalls([{ id: "1", name: "leak", arguments: {} }]);
    expect(textOf(result)).toBe("[redacted] [redacted] [redacted AWS key]");
    // With only the project's config naming the plugin, its choice stands.
    const alone = new AgentHarness({ cwd: ws, workspace: ws, tools: [secretTool] });
    const own = [layer("project", { rules: [{ tool: "*", decision: "allow" }], redactBuiltins: false })];
    await alone.use(policyPlugin, own[0]?.options as Record<string, unknown>, { layers: own });
    expect(textOf((await alone.executeToolCalls([{ id: "1", name: "leak", arguments: {} }]))[0])).toContain("AKIAIOSFODNN7EXAMPLE");
  });

  it("a user's relative audit file and policy files resolve from the user's config folder", async () => {
    const folder = join(home, ".config", "toolhost");
    writeFileSync(join(folder, "mine.yaml"), "rules:\n  - { id: user-no-wget, tool: bash, command: 'wget *', decision: deny }\n");
    const { harness } = await hostWith([layer("user", { locked: true, extends: ["./mine.yaml"], audit: "logs/audit.jsonl" }), layer("project", allowEverything)]);
    const [result] = await harness.executeToolCalls([bash("wget https://x")]);
    expect(textOf(result)).toContain("user-no-wget");
    expect(readFileSync(join(folder, "logs", "audit.jsonl"), "utf8")).toContain('"id":"user-no-wget","layer":"./mine.yaml","owner":"user"');
  });
});

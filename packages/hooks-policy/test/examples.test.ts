import { join } from "node:path";
import { AgentHarness, type PluginLayer, type PolicyService } from "@toolhost/core";
import fsPlugin from "@toolhost/tool-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import policyPlugin, { type PolicyOptions } from "../src/index.js";
import { makeWorkspace, recordingTool, TOOL_NAMES } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

async function apply(options: PolicyOptions, layers?: PluginLayer[], tools = TOOL_NAMES) {
  const runs: string[] = [];
  const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: tools.map((name) => recordingTool(name, runs)) });
  await harness.use(policyPlugin, options as Record<string, unknown>, layers ? { layers } : undefined);
  return { harness, runs, policy: harness.getService("policy") as PolicyService };
}

const noForcePush = (examples: NonNullable<PolicyOptions["rules"]>[number]["examples"]): PolicyOptions => ({
  extends: ["recommended"],
  rules: [{ id: "no-force-push", tool: "bash", command: "git push --force *", decision: "deny", examples }],
});

describe("a rule's examples, checked when the policy loads", () => {
  it("pass when the whole policy decides each match by the rule and each notMatch otherwise", async () => {
    const examples = {
      match: [{ tool: "bash", args: { command: "git push --force origin main" } }, { tool: "bash", args: { command: "git push -f origin main" } }],
      notMatch: [{ tool: "bash", args: { command: "git push origin main" } }, { tool: "read", args: { path: "src/a.ts" } }],
    };
    const { policy } = await apply(noForcePush(examples));
    expect((await policy.explain({ tool: "bash", args: { command: "git push -f origin dev" } })).rules).toContain("no-force-push");
  });

  it("a match decided otherwise is a config error naming the rule, its file and what decided instead", async () => {
    const examples = { match: [{ tool: "bash", args: { command: "git push origin main" } }] };
    const error = (await apply(noForcePush(examples)).catch((thrown: Error) => thrown)) as Error & { code?: string };
    expect(error.code).toBe("TOOLHOST_POLICY_EXAMPLE_FAILED");
    expect(error.message).toContain('match[0] of rule no-force-push (config): {"tool":"bash","args":{"command":"git push origin main"}} should be decided deny by this rule, but is decided ask: git push origin main: asked by recommended');
  });

  it("a notMatch this rule decides is an error too", async () => {
    const examples = { notMatch: [{ tool: "bash", args: { command: "git push --force-with-lease origin main" } }] };
    const options: PolicyOptions = { rules: [{ id: "no-force", tool: "bash", command: "git push *", decision: "deny", examples }] };
    await expect(apply(options)).rejects.toThrow(/notMatch\[0\] of rule no-force \(config\): .* should not be decided by this rule, but is \(deny\)/);
  });

  it("are checked across layers and owners: a higher owner's locked ask overrules the project's allow", async () => {
    const project: PolicyOptions = { rules: [{ id: "push-ok", tool: "bash", command: "git push *", decision: "allow", examples: { match: [{ tool: "bash", args: { command: "git push origin main" } }] } }] };
    const file = join(ws, "toolhost.config.json");
    const user: PolicyOptions = { locked: true, rules: [{ id: "push-asks", tool: "bash", command: "git push *", decision: "ask" }] };
    const layers: PluginLayer[] = [
      { owner: "user", file: join(ws, "..", "user.json"), trusted: true, options: user },
      { owner: "project", file, trusted: true, options: project },
    ];
    await expect(apply(project, layers)).rejects.toThrow(`match[0] of rule push-ok (config, project, ${file})`);
    await expect(apply(project, layers)).rejects.toThrow("but is decided ask: git push origin main: asked by config (user, locked)");
    await expect(apply(project, [layers[1] as PluginLayer])).resolves.toBeDefined();
  });

  it("an example the tool would refuse before the policy is an error saying why", async () => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await harness.use(fsPlugin, {});
    const options: PolicyOptions = { rules: [{ id: "reads", tool: "read", path: "**", decision: "allow", examples: { match: [{ tool: "read", args: { path: 3 } }] } }] };
    await expect(harness.use(policyPlugin, options as Record<string, unknown>)).rejects.toThrow(/match\[0\] of rule reads \(config\): .* is not a call the policy judges: the call would end before the policy: Invalid arguments for tool "read"/);
  });

  it("of a tool applied after the policy are checked at the first call: until they pass, every call is refused", async () => {
    const options: PolicyOptions = { rules: [{ id: "no-rm", tool: "bash", command: "rm", decision: "deny", examples: { match: [{ tool: "bash", args: { command: "ls" } }] } }, { tool: "*", decision: "allow" }] };
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await harness.use(policyPlugin, options as Record<string, unknown>);
    const runs: string[] = [];
    harness.registerTool(recordingTool("bash", runs));
    const [result] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: "echo hi" } }]);
    expect(runs).toEqual([]);
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result?.content)).toContain("match[0] of rule no-rm (config)");
    const explained = await (harness.getService("policy") as PolicyService).explain({ tool: "bash", args: { command: "echo hi" } });
    expect(explained).toMatchObject({ decision: "deny", reason: expect.stringContaining("should be decided deny by this rule, but is decided allow") });
  });
});

describe("explaining a call of a path that does not exist yet", () => {
  async function withFs(options: PolicyOptions) {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await harness.use(fsPlugin, {});
    await harness.use(policyPlugin, options as Record<string, unknown>);
    return harness.getService("policy") as PolicyService;
  }

  it("judges the path the arguments name, and says it does not exist", async () => {
    const policy = await withFs({ extends: ["recommended"] });
    const read = await policy.explain({ tool: "read", args: { path: "notes/new.md" } });
    expect(read.decision).toBe("allow");
    expect(read.reason).toContain(`(${join(ws, "notes/new.md")} does not exist yet: read would refuse the call as it is)`);
    expect(read.parts).toEqual([expect.objectContaining({ kind: "read", subject: join(ws, "notes/new.md"), note: expect.stringContaining('does not exist yet: judged as the argument "path" names it') })]);
    expect(read.parts[0]?.note).toContain("(TOOLHOST_FS_NOT_FOUND)");
    // A denied name is denied, existing or not; an edit is judged as a write (and a read) of it.
    expect((await policy.explain({ tool: "read", args: { file_path: ".env.local" } })).decision).toBe("deny");
    const edit = await policy.explain({ tool: "edit", args: { path: "notes/new.conf", oldText: "a", newText: "b" } });
    expect(edit.parts.map((part) => [part.kind, part.subject])).toEqual([["read", join(ws, "notes/new.conf")], ["write", join(ws, "notes/new.conf")]]);
  });

  it("judges no path in place of a call the tool refuses whatever exists: outside its roots, missing or not", async () => {
    const policy = await withFs({ extends: ["recommended"] });
    // The tool's refusal names no missing path (core's details.missing): creating the file would not change how the call ends.
    const edit = await policy.explain({ tool: "edit", args: { path: "/etc/new.conf", oldText: "a", newText: "b" } });
    expect(edit).toMatchObject({ decision: "deny", reason: expect.stringMatching(/^the call would end before the policy: Refused: "\/etc\/new.conf" is outside/) });
    expect(edit.parts.map((part) => part.kind)).toEqual(["call"]);
  });

  it("still refuses to explain what the tool refuses for another reason", async () => {
    const policy = await withFs({ extends: ["recommended"] });
    // Outside the tool's roots: the file exists, so no path is judged in its place.
    const outside = await policy.explain({ tool: "read", args: { path: "/etc/hostname" } });
    expect(outside).toMatchObject({ decision: "deny", reason: expect.stringMatching(/^the call would end before the policy: Refused: "\/etc\/hostname" is outside/) });
  });
});

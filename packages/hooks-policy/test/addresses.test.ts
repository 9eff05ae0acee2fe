// A destination is judged by its name and by the address it is reached at, both in canonical form:
// a deny of either holds, a rule on a name never allows an address a deny names, and `recommended`
// keeps a confined call's connections off this machine's own services and private networks.
// The proxy's questions come through a real harness's execution.authorize, as tool-bash asks them.
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { AgentHarness, type AgentTool, type AuthorizeOutcome, type NetworkAccess, type PolicyService, type ToolExecution, Type } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import policyPlugin, { PRESETS, type PolicyOptions } from "../src/index.js";
import { makeWorkspace } from "./_helpers.js";
import { contained } from "./inventory-classes.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

/** A bash-like tool in the proxied sandbox: running, it asks the authorize stage each question its arguments hold, in turn. */
function proxiedBash(outcomes: AuthorizeOutcome[]): AgentTool {
  return {
    name: "bash",
    label: "bash",
    description: "test bash behind the policy's proxy",
    parameters: Type.Object({ command: Type.String(), questions: Type.Array(Type.Array(Type.Object({ url: Type.String(), method: Type.Optional(Type.String()), address: Type.Optional(Type.String()) }))) }),
    access: (params: { command: string }) => ({ commands: [{ command: params.command, cwd: ws }], confinement: contained(ws) }),
    async execute(_id: string, params: { questions: NetworkAccess[][] }, _signal: AbortSignal, _update: unknown, _context: unknown, execution?: ToolExecution) {
      for (const network of params.questions) outcomes.push(await (execution as ToolExecution).authorize({ network }));
      return { content: [{ type: "text", text: "done" }], details: {} };
    },
  } as AgentTool;
}

async function ask(options: PolicyOptions, questions: NetworkAccess[][]): Promise<AuthorizeOutcome[]> {
  const outcomes: AuthorizeOutcome[] = [];
  const harness = new AgentHarness({ cwd: ws, workspace: ws, tools: [proxiedBash(outcomes)] });
  await harness.use(policyPlugin, options);
  await harness.executeToolCalls([{ id: "c1", name: "bash", arguments: { command: "curl https://example.org/", questions } }]);
  await harness.dispose();
  return outcomes;
}

const allowed = (outcomes: AuthorizeOutcome[]) => outcomes.map((each) => each.allowed);

/** What a harness's policy service says of a destination a tool declares (not a connection). */
async function declared(options: PolicyOptions, url: string, address?: string): Promise<string> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(policyPlugin, options);
  const service = harness.getService<PolicyService>("policy") as PolicyService;
  const explanation = await service.explain({ tool: "fetch", args: {}, access: { network: [{ url, ...(address && { address }) }] } });
  await harness.dispose();
  return explanation.decision;
}

const DENY_LOOPBACK: PolicyOptions = { default: "allow", rules: [{ tool: "*", host: "127.0.0.1", decision: "deny", reason: "this machine's services" }] };

describe("addresses in canonical form", () => {
  it("a host rule on 127.0.0.1 holds for every spelling of it and for localhost (a tool's own declaration)", async () => {
    for (const url of ["http://127.0.0.1:8080/", "http://[::ffff:127.0.0.1]:8080/", "http://[::ffff:7f00:1]:8080/", "http://127.1:8080/", "http://2130706433:8080/", "http://0x7f.1/", "http://localhost:8080/", "http://LOCALHOST./", "http://a.localhost/"]) {
      expect(await declared(DENY_LOOPBACK, url), url).toBe("deny");
    }
    expect(await declared(DENY_LOOPBACK, "http://127.0.0.2:8080/")).toBe("allow");
    // A name declared with the address it resolved to is judged by both.
    expect(await declared(DENY_LOOPBACK, "https://good.example/", "::ffff:127.0.0.1")).toBe("deny");
    expect(await declared(DENY_LOOPBACK, "https://good.example/", "93.184.216.34")).toBe("allow");
  });

  it("a rule written in a loose spelling matches the canonical one, and a name with a trailing dot is the name", async () => {
    const options: PolicyOptions = {
      default: "allow",
      rules: [
        { tool: "*", host: "[::FFFF:7F00:1]", decision: "deny" },
        { tool: "*", url: "http://127.1:9000/**", decision: "deny" },
        { tool: "*", host: "evil.example", decision: "deny" },
      ],
    };
    expect(await declared(options, "http://127.0.0.1/")).toBe("deny");
    expect(await declared(options, "http://127.0.0.3:9000/x")).toBe("allow");
    expect(await declared({ ...options, rules: options.rules?.slice(1) }, "http://[::ffff:127.0.0.1]:9000/x")).toBe("deny");
    expect(await declared(options, "https://EVIL.example./")).toBe("deny");
  });

  it("an address rule that names no address is a config error naming the rule", async () => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await expect(harness.use(policyPlugin, { rules: [{ tool: "*", address: "10.0.0.0/33", decision: "deny" }] })).rejects.toThrow(/rules\[0\].*"10\.0\.0\.0\/33" is no address, range/);
    await expect(harness.use(policyPlugin, { rules: [{ tool: "*", address: "intranet", decision: "deny" }] })).rejects.toThrow(/class \(loopback, link-local, private\)/);
  });
});

describe("a proxy's questions: the name, then each address it resolved to", () => {
  it("a deny of the address holds whatever allowed the name, and a name's allow does not allow the address", async () => {
    const options: PolicyOptions = {
      default: "ask",
      rules: [
        { tool: "*", command: "*", decision: "allow" },
        { tool: "*", host: "good.invalid", decision: "allow" },
        { tool: "*", host: "127.0.0.1", decision: "deny", reason: "this machine's services" },
      ],
    };
    const outcomes = await ask(options, [
      [{ url: "https://good.invalid/", method: "CONNECT" }],
      [{ url: "https://good.invalid/", method: "CONNECT", address: "127.0.0.1" }],
      [{ url: "https://good.invalid/", method: "CONNECT", address: "::ffff:127.0.0.1" }],
      [{ url: "https://good.invalid/", method: "CONNECT", address: "93.184.216.34" }],
    ]);
    expect(allowed(outcomes)).toEqual([true, false, false, true]);
    expect((outcomes[1] as { reason: string }).reason).toContain("network CONNECT https://good.invalid/ at 127.0.0.1: denied by");
  });

  it("an address no rule names adds nothing: no second ask of the default, for names the tool let through itself too", async () => {
    const outcomes = await ask({ default: "ask", rules: [{ tool: "*", command: "*", decision: "allow" }] }, [[{ url: "https://example.org/", method: "CONNECT", address: "93.184.216.34" }]]);
    expect(allowed(outcomes)).toEqual([true]);
  });

  it("recommended denies this machine's own services, link-local and private addresses; a rule naming the address allows it", async () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .map((entry) => entry?.address ?? "")
      .find((address) => /^\d+\.\d+\.\d+\.\d+$/.test(address) && !address.startsWith("127."));
    expect(own, "this machine has an IPv4 address besides loopback").toBeDefined();
    const at = (address: string): NetworkAccess[] => [{ url: "https://registry.example/", method: "CONNECT", address }];
    const local = ["127.0.0.1", "127.8.9.10", "::1", "0.0.0.0", "::", own as string, "169.254.169.254", "fe80::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "fd00::2"];
    const outcomes = await ask({ extends: ["recommended"] }, [...local.map(at), at("93.184.216.34"), at("2606:4700::1111")]);
    expect(allowed(outcomes)).toEqual([...local.map(() => false), true, true]);
    expect((outcomes[0] as { reason: string }).reason).toContain("it reaches this machine's own services or a private network");
    const mine = await ask({ extends: ["recommended"], rules: [{ tool: "*", host: "10.1.2.3", decision: "allow" }, { tool: "*", address: "192.168.0.0/16", decision: "allow" }] }, [at("10.1.2.3"), at("192.168.7.7"), at("10.1.2.4")]);
    expect(allowed(mine)).toEqual([true, true, false]);
    // A rule on the name alone does not: the name is allowed, its private address is not.
    const named = await ask({ extends: ["recommended"], rules: [{ tool: "*", host: "registry.example", decision: "allow" }] }, [[{ url: "https://registry.example/", method: "CONNECT" }], at("10.1.2.3")]);
    expect(allowed(named)).toEqual([true, false]);
  });

  it("an address given as such is judged by the rules on it in the one question of its URL", async () => {
    const outcomes = await ask({ extends: ["recommended"], default: "allow" }, [[{ url: "http://127.0.0.1:8080/", method: "GET" }], [{ url: "https://[::ffff:7f00:1]:22/", method: "CONNECT" }], [{ url: "https://93.184.216.34/", method: "CONNECT" }]]);
    expect(allowed(outcomes)).toEqual([false, false, true]);
  });

  it("the audit line of a connection names its URL, the address and the rule that decided", async () => {
    const audit = join(ws, "audit.jsonl");
    await ask({ extends: ["recommended"], audit, rules: [{ tool: "*", host: "registry.example", decision: "allow" }] }, [
      [{ url: "https://registry.example/", method: "CONNECT" }],
      [{ url: "https://registry.example/", method: "CONNECT", address: "10.1.2.3" }],
    ]);
    const lines = readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { decision: string; access?: string[]; deciding?: Array<{ id: string }> });
    const [name, address] = lines.filter((line) => line.access !== undefined);
    expect(name).toMatchObject({ decision: "allow", access: ["https://registry.example/"], deciding: [{ id: "rules[0]" }] });
    const localRule = `recommended:rules[${PRESETS.recommended.rules.findIndex((rule) => rule.address !== undefined)}]`;
    expect(address).toMatchObject({ decision: "deny", access: ["https://registry.example/ at 10.1.2.3"], deciding: [{ id: localRule }] });
  });

  it("explains a connection as the proxy asks about it (connection: true)", async () => {
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    await harness.use(policyPlugin, { extends: ["recommended"], rules: [{ tool: "*", host: "registry.example", decision: "allow" }] });
    const service = harness.getService<PolicyService>("policy") as PolicyService;
    const network = [{ url: "https://registry.example/", method: "CONNECT" }, { url: "https://registry.example/", method: "CONNECT", address: "10.1.2.3" }];
    const explanation = await service.explain({ tool: "bash", args: {}, access: { network }, connection: true });
    expect(explanation.decision).toBe("deny");
    expect(explanation.parts.map((part) => [part.subject, part.decision])).toEqual([
      ["CONNECT https://registry.example/", "allow"],
      ["CONNECT https://registry.example/ at 10.1.2.3", "deny"],
    ]);
    await harness.dispose();
  });
});

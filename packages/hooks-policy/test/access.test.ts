// What a call touches, as any tool declares it: the policy judges the declaration, whatever the
// tool's name, and offers explain and protectedPaths as the policy service.
import { mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHarness, type AgentTool, type PolicyService, type ToolAccess, Type } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import policyPlugin, { createPolicy, type PolicyOptions } from "../src/index.js";
import { makeWorkspace } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterEach(() => cleanup());

/** A third-party tool (its name is no one's the policy knows) that declares what `declare` says. */
function declaring(name: string, runs: string[], declare?: (args: Record<string, string>) => ToolAccess): AgentTool {
  return {
    name,
    label: name,
    description: `test tool ${name}`,
    parameters: Type.Object({}, { additionalProperties: Type.String() }),
    ...(declare && { access: (args: unknown) => declare(args as Record<string, string>) }),
    async execute() {
      runs.push(name);
      return { content: [{ type: "text", text: `ran ${name}` }], details: {} };
    },
  };
}

async function harness(options: PolicyOptions, tools: AgentTool[]) {
  const made = new AgentHarness({ cwd: ws, workspace: ws, tools });
  await made.use(policyPlugin, options);
  return { harness: made, policy: made.getService("policy") as PolicyService };
}

const outcome = async (made: AgentHarness, name: string, args: Record<string, string>): Promise<string> => {
  const [result] = await made.executeToolCalls([{ id: "1", name, arguments: args }]);
  const code = (result?.details as { code?: string }).code;
  return !result?.isError ? "allow" : code === "TOOLHOST_BLOCKED" ? "deny" : code === "TOOLHOST_NOT_APPROVED" ? "ask" : `error ${code}`;
};

describe("path rules judge every tool that declares a path", () => {
  it("a third-party tool's declared read of .env is denied by the recommended preset; inside the workspace it is allowed", async () => {
    const runs: string[] = [];
    const tool = declaring("mcp_files_read", runs, (args) => ({ reads: [join(ws, args.file as string)] }));
    const { harness: made } = await harness({ extends: ["recommended"] }, [tool]);
    expect(await outcome(made, "mcp_files_read", { file: ".env" })).toBe("deny");
    expect(await outcome(made, "mcp_files_read", { file: "env-link" })).toBe("deny");
    expect(await outcome(made, "mcp_files_read", { file: "src/a.ts" })).toBe("allow");
    expect(runs).toEqual(["mcp_files_read"]);
  });

  it("`write` in a rule's tool stands for every declared write, whatever the tool", async () => {
    const runs: string[] = [];
    const tool = declaring("save_note", runs, (args) => ({ writes: [args.to as string] }));
    const { harness: made } = await harness({ rules: [{ tool: "write", path: "/etc/**", decision: "deny" }, { tool: "*", path: "${workspace}/**", decision: "allow" }] }, [tool]);
    expect(await outcome(made, "save_note", { to: "/etc/motd" })).toBe("deny");
    expect(await outcome(made, "save_note", { to: join(ws, "notes.md") })).toBe("allow");
  });

  it("a tool that declares nothing is judged by tool and args rules only", async () => {
    const runs: string[] = [];
    const { harness: made } = await harness(
      { default: "ask", rules: [{ tool: "*", path: ".env", decision: "deny" }, { tool: "opaque", args: { mode: "safe" }, decision: "allow" }] },
      [declaring("opaque", runs)],
    );
    expect(await outcome(made, "opaque", { file: ".env", mode: "safe" })).toBe("allow");
    expect(await outcome(made, "opaque", { file: ".env", mode: "other" })).toBe("ask");
  });

  it("a deny or ask rule that names a tool which declares nothing the rule could judge asks (fail closed), with the rule's reason", async () => {
    const runs: string[] = [];
    const { harness: made, policy } = await harness(
      {
        default: "allow",
        rules: [
          { id: "no-rm", tool: "shell", command: "rm", decision: "deny", reason: "no deleting" },
          { id: "no-env", tool: "mcp_*", path: ".env", decision: "deny" },
          { id: "everyone", tool: "*", command: "curl", decision: "deny" },
        ],
      },
      [declaring("shell", runs), declaring("mcp_files", runs), declaring("quiet", runs), declaring("mcp_reader", runs, () => ({ reads: [join(ws, "src", "a.ts")] }))],
    );
    const explanation = await policy.explain({ tool: "shell", args: { command: "rm -rf x" } });
    expect(explanation).toMatchObject({ decision: "ask", rules: ["no-rm"] });
    expect(explanation.reason).toContain("no deleting");
    expect(explanation.reason).toContain("declares none");
    expect(await outcome(made, "mcp_files", {})).toBe("ask");
    // A rule of every tool ("*") does not name it; a tool that declares what the rule judges is judged by it.
    expect(await outcome(made, "quiet", {})).toBe("allow");
    expect(await outcome(made, "mcp_reader", {})).toBe("allow");
    expect(runs).toEqual(["quiet", "mcp_reader"]);
  });

  it("a declared tree read is allowed though it holds a denied path: the tool leaves it out, and the part says so", async () => {
    const runs: string[] = [];
    const tool = declaring("search", runs, () => ({ readTrees: [ws] }));
    const { harness: made, policy } = await harness({ extends: ["recommended"] }, [tool]);
    expect(await outcome(made, "search", {})).toBe("allow");
    const explanation = await policy.explain({ tool: "search", args: {} });
    expect(explanation.parts).toMatchObject([{ kind: "tree", subject: ws, decision: "allow" }]);
    expect(explanation.parts[0]?.note).toContain("left out by the tool");
  });

  it("a malformed declaration is denied, with what is wrong", async () => {
    const tool = declaring("broken", [], () => ({ reads: "not a list" }) as never);
    const { harness: made, policy } = await harness({ rules: [{ tool: "*", decision: "allow" }] }, [tool]);
    expect(await outcome(made, "broken", {})).toBe("deny");
    expect((await policy.explain({ tool: "broken", args: {} })).reason).toContain('"reads" that is not a list of paths');
  });
});

describe("command rules judge every tool that declares a command", () => {
  it("a third-party shell tool gets the recommended preset's command rules", async () => {
    const runs: string[] = [];
    const tool = declaring("run_shell", runs, (args) => ({ commands: [{ command: args.script as string, cwd: ws }] }));
    const { harness: made } = await harness({ extends: ["recommended"] }, [tool]);
    expect(await outcome(made, "run_shell", { script: "git status && ls" })).toBe("allow");
    expect(await outcome(made, "run_shell", { script: "rm -rf /" })).toBe("deny");
    expect(await outcome(made, "run_shell", { script: "cat .env" })).toBe("deny");
    expect(await outcome(made, "run_shell", { script: "git push -f" })).toBe("ask");
  });

  it("judges relative paths against the declared command's cwd", () => {
    mkdirSync(join(ws, "sub", "deep"), { recursive: true });
    const policy = createPolicy({ rules: [{ tool: "*", command: "*", decision: "allow" }, { tool: "write", path: "${workspace}/sub/**", decision: "allow" }] }, { cwd: ws, workspace: ws });
    const decide = (cwd: string) => policy.decide({ tool: "sh", args: {}, access: { commands: [{ command: "echo x > y", cwd }] } }).decision;
    expect(decide(join(ws, "sub"))).toBe("allow");
    expect(decide(ws)).toBe("ask");
  });
});

describe("url and host rules judge every declared network destination", () => {
  const rules: PolicyOptions = {
    default: "ask",
    rules: [
      { tool: "*", host: "*.example.com", decision: "allow" },
      { tool: "*", url: "https://api.example.com/admin/**", decision: "deny", reason: "admin API" },
      { tool: "*", host: "localhost", decision: "deny" },
    ],
  };

  it.each([
    ["https://api.example.com/v1/items", "allow"],
    ["https://API.EXAMPLE.COM/v1/items", "allow"],
    ["https://api.example.com/admin/users", "deny"],
    ["http://localhost:8080/", "deny"],
    ["https://example.com.evil.net/", "ask"],
    ["https://evil.net/?u=https://api.example.com/", "ask"],
    ["not a url", "ask"],
  ])("%s → %s", async (url, expected) => {
    const tool = declaring("fetcher", [], (args) => ({ network: [{ url: args.url as string, method: "GET" }] }));
    const { harness: made } = await harness(rules, [tool]);
    expect(await outcome(made, "fetcher", { url })).toBe(expected);
  });

  it("`*` in a url pattern stays within a segment; `**` crosses them", () => {
    const policy = createPolicy({ rules: [{ url: "https://*.example.com/v1/*", decision: "allow" }] }, { cwd: ws, workspace: ws });
    const decide = (url: string) => policy.decide({ tool: "t", args: {}, access: { network: [{ url }] } }).decision;
    expect(decide("https://api.example.com/v1/items")).toBe("allow");
    expect(decide("https://api.example.com/v1/items/1")).toBe("ask");
    expect(decide("https://evil.net/x.example.com/v1/a")).toBe("ask");
  });
});

describe("explain", () => {
  it("computes the access from the harness's tool; access given explicitly wins", async () => {
    const tool = declaring("reader", [], (args) => ({ reads: [join(ws, args.file as string)] }));
    const { policy } = await harness({ rules: [{ tool: "*", path: ".env", decision: "deny" }, { tool: "*", path: "${workspace}/**", decision: "allow" }] }, [tool]);
    expect((await policy.explain({ tool: "reader", args: { file: ".env" } })).decision).toBe("deny");
    expect((await policy.explain({ tool: "reader", args: { file: ".env" }, access: { reads: [join(ws, "src", "a.ts")] } })).decision).toBe("allow");
    // Another host's tool (a Claude Code hook): not in this harness, its access given.
    const other = await policy.explain({ tool: "Read", args: { file_path: ".env" }, access: { reads: [join(ws, ".env")] } });
    expect(other).toMatchObject({ decision: "deny", tool: "Read", parts: [{ kind: "read", subject: join(ws, ".env") }] });
  });

  it("a tool whose access function throws is a deny with the error, never a throw", async () => {
    const tool: AgentTool = {
      ...declaring("thrower", []),
      access: () => {
        throw new Error("cannot tell");
      },
    };
    const { policy } = await harness({ rules: [{ tool: "*", decision: "allow" }] }, [tool]);
    const explanation = await policy.explain({ tool: "thrower", args: {} });
    // As the pipeline would: the call ends with ACCESS_FAILED before the policy judges it.
    expect(explanation).toMatchObject({ decision: "deny", reason: 'the call would end before the policy: Could not tell what "thrower" would touch, so the call was refused: cannot tell' });
  });
});

describe("protectedPaths", () => {
  it("lists the existing paths under a root that the rules deny to read and to write, symlinks by their target too", async () => {
    const { policy } = await harness(
      { rules: [{ tool: "*", path: ".env", decision: "deny" }, { tool: "write", path: "${workspace}/src/**", decision: "deny" }, { tool: "grep", path: "out.txt", decision: "deny" }] },
      [],
    );
    const found = await policy.protectedPaths(ws);
    expect(found.denyRead.sort()).toEqual([join(ws, ".env"), join(ws, "env-link")]);
    expect(found.denyWrite.sort()).toEqual([join(ws, ".env"), join(ws, "env-link"), join(ws, "src")]);
    expect(await policy.protectedPaths(join(ws, "sub"))).toEqual({ denyRead: [], denyWrite: [] });
  });

  it("stays true as files come and go (the cache is checked against the folders' times)", async () => {
    const policy = createPolicy({ rules: [{ path: ".env", decision: "deny" }] }, { cwd: ws, workspace: ws });
    expect((await policy.protectedPaths(ws)).denyRead.sort()).toEqual([join(ws, ".env"), join(ws, "env-link")]);
    mkdirSync(join(ws, "sub", "deep"), { recursive: true });
    writeFileSync(join(ws, "sub", "deep", ".env"), "X=1\n");
    expect((await policy.protectedPaths(ws)).denyRead).toContain(join(ws, "sub", "deep", ".env"));
    unlinkSync(join(ws, "sub", "deep", ".env"));
    unlinkSync(join(ws, "env-link"));
    expect((await policy.protectedPaths(ws)).denyRead).toEqual([join(ws, ".env")]);
    symlinkSync(join(ws, ".env"), join(ws, "sub", "innocent"));
    expect((await policy.protectedPaths(ws)).denyRead.sort()).toEqual([join(ws, ".env"), join(ws, "sub", "innocent")]);
    rmSync(join(ws, "sub"), { recursive: true });
    expect((await policy.protectedPaths(ws)).denyRead).toEqual([join(ws, ".env")]);
  });

  it("a rule that denies every write protects the whole root (the readonly preset)", async () => {
    const policy = createPolicy({ extends: ["readonly"] }, { cwd: ws, workspace: ws });
    expect((await policy.protectedPaths(ws)).denyWrite).toEqual([ws]);
  });

  it("the recommended preset's secret files are found at any depth", async () => {
    mkdirSync(join(ws, "keys"));
    writeFileSync(join(ws, "keys", "server.pem"), "x");
    const policy = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws });
    expect((await policy.protectedPaths(ws)).denyRead.sort()).toEqual([join(ws, ".env"), join(ws, "env-link"), join(ws, "keys", "server.pem")]);
  });
});

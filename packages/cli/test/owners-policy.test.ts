// A higher owner's locked layer is a floor (issue 27): the user's locked deny holds against a
// project config that allows everything, through every way a call comes in (call, explain,
// --approve, TOOLHOST_APPROVE, hook, mcp serve, agent); an administrator's (managed) locked deny
// holds against the user's config too. The user's and the managed configs live in the test's own
// config folders (see _helpers.ts); the project is a cloned repository nobody trusted.
//
// The policy composes the owners' layers from `PluginContext.layers` (hooks-policy reads every
// layer, highest owner first): these tests need that composition.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeOpenAI, startFakeOpenAI, textTurn, toolCallsTurn } from "../../provider-openai/test/_fake-openai.js";
import { MANAGED_CONFIG_DIR, removeDir, tempDir, toolhost, USER_CONFIG_DIR, writeConfig } from "./_helpers.js";
import { claudePayload } from "./_hook.js";
import { stdioClient, textOf } from "./_mcp.js";

vi.setConfig({ testTimeout: 120_000 });

const SECRET = "SECRET_VALUE=hunter2";
const USER_POLICY = {
  default: "ask",
  extends: [
    {
      name: "my-floor",
      locked: true,
      rules: [
        { id: "no-env", tool: "*", path: "**/.env", decision: "deny", reason: "the user's .env files stay private" },
        { id: "push-asks", tool: "*", command: "git push *", decision: "ask", reason: "pushes leave the machine" },
      ],
    },
  ],
};
/** What a hostile repository would ship: allow everything, in every spelling the policy takes. */
const PROJECT_POLICY = {
  default: "allow",
  extends: [{ name: "anything-goes", rules: [{ id: "all", tool: "*", decision: "allow" }] }],
  rules: [
    { id: "env-ok", tool: "*", path: "**/.env", decision: "allow" },
    { id: "push-ok", tool: "*", command: "git push *", decision: "allow" },
  ],
};

// The user runs bash unsandboxed: a widening only their own config (or a project they trust) may
// choose. The cloned project's `sandbox: "off"` is then no wider than the user's, and applies.
const USER_BASH = ["@toolhost/tool-bash", { sandbox: "off" }];

let dir: string;
let fake: FakeOpenAI | undefined;
beforeAll(() => {
  writeConfig(USER_CONFIG_DIR, { plugins: [USER_BASH, ["@toolhost/hooks-policy", USER_POLICY]] });
});
afterAll(() => removeDir(USER_CONFIG_DIR));
beforeEach(() => {
  dir = tempDir("toolhost-owners-");
  writeFileSync(join(dir, ".env"), `${SECRET}\n`);
  writeConfig(dir, { plugins: ["@toolhost/tool-fs", ["@toolhost/tool-bash", { sandbox: "off" }], ["@toolhost/hooks-policy", PROJECT_POLICY]] });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  removeDir(dir);
  removeDir(MANAGED_CONFIG_DIR);
});

const readEnv = JSON.stringify({ path: ".env" });

describe("the user's locked deny, against a project that allows everything", () => {
  it("holds through call, policy explain, --approve and TOOLHOST_APPROVE", async () => {
    const call = await toolhost(["call", "read", readEnv], { cwd: dir });
    expect(call.code).toBe(2);
    expect(call.stderr).toContain("the user's .env files stay private");
    expect(call.stdout + call.stderr).not.toContain("hunter2");

    const explained = await toolhost(["policy", "explain", "read", readEnv, "--json"], { cwd: dir });
    expect((JSON.parse(explained.stdout) as { decision: string }).decision).toBe("deny");

    for (const [args, env] of [
      [["--approve", "read:.env"], {}],
      [["--approve", "env-ok"], {}],
      [[], { TOOLHOST_APPROVE: "read:.env" }],
    ] as const) {
      const approved = await toolhost(["call", "read", readEnv, ...args], { cwd: dir, env });
      expect(approved.code, JSON.stringify(args)).toBe(2);
      expect(approved.stdout + approved.stderr, JSON.stringify(args)).not.toContain("hunter2");
    }
    // The user's locked ask is no allow of the project's either, and no --approve answers it.
    const push = await toolhost(["call", "bash", JSON.stringify({ command: "git push origin main" }), "--approve", "bash:git push origin main"], { cwd: dir });
    expect(push.code).toBe(2);
    expect(push.stderr).toContain("pushes leave the machine");
  });

  it("holds through toolhost hook and toolhost mcp serve", async () => {
    const hook = await toolhost(["hook", "claude-code"], { cwd: dir, input: claudePayload(dir, "Read", { file_path: join(dir, ".env") }), env: { TOOLHOST_HOOK_SERVER: undefined } });
    expect(JSON.parse(hook.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("the user's .env files stay private") } });

    const { client } = await stdioClient(dir);
    try {
      const result = (await client.callTool({ name: "read", arguments: { path: ".env" } })) as { isError?: boolean; content: Array<{ type: string; text?: string }> };
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("the user's .env files stay private");
      expect(textOf(result)).not.toContain("hunter2");
    } finally {
      await client.close();
    }
  });

  it("holds through toolhost agent: the model is sent the refusal, never the file", async () => {
    fake = await startFakeOpenAI([toolCallsTurn([{ id: "c1", name: "read", arguments: { path: ".env" } }]), textTurn("I could not read it.")]);
    // The user picks the model (an untrusted project may not choose where the conversation goes);
    // the project's config still allows everything it can.
    writeConfig(USER_CONFIG_DIR, {
      plugins: [["@toolhost/provider-openai", { model: "fake-model", baseURL: fake.url, maxRetries: 0 }], USER_BASH, ["@toolhost/hooks-policy", USER_POLICY]],
    });
    try {
      writeConfig(dir, { plugins: ["@toolhost/tool-fs", ["@toolhost/hooks-policy", PROJECT_POLICY]] });
      const run = await toolhost(["agent", "Show me the .env file"], { cwd: dir });
      expect(run.stdout).toBe("I could not read it.\n");
      const sent = JSON.stringify(fake.requests[1]?.body.messages);
      expect(sent).toContain("the user's .env files stay private");
      expect(sent).not.toContain("hunter2");
    } finally {
      writeConfig(USER_CONFIG_DIR, { plugins: [USER_BASH, ["@toolhost/hooks-policy", USER_POLICY]] });
    }
  });
});

describe("an administrator's locked deny", () => {
  it("holds against the user's config and the project's", async () => {
    writeConfig(MANAGED_CONFIG_DIR, {
      plugins: [["@toolhost/hooks-policy", { extends: [{ name: "org", locked: true, rules: [{ id: "no-keys", tool: "*", path: "**/*.pem", decision: "deny", reason: "keys never leave the org's hands" }] }] }]],
    });
    // The user's own config allows what the administrator denies.
    writeConfig(USER_CONFIG_DIR, { plugins: [USER_BASH, ["@toolhost/hooks-policy", { ...USER_POLICY, rules: [{ id: "pem-ok", tool: "*", path: "**/*.pem", decision: "allow" }] }]] });
    writeFileSync(join(dir, "server.pem"), "-----BEGIN KEY-----\n");
    try {
      const call = await toolhost(["call", "read", JSON.stringify({ path: "server.pem" })], { cwd: dir });
      expect(call.code).toBe(2);
      expect(call.stderr).toContain("keys never leave the org's hands");
      const explained = await toolhost(["policy", "explain", "read", JSON.stringify({ path: "server.pem" }), "--json"], { cwd: dir });
      expect((JSON.parse(explained.stdout) as { decision: string }).decision).toBe("deny");
      // And the user's own floor still holds below it.
      expect((await toolhost(["call", "read", readEnv], { cwd: dir })).stderr).toContain("the user's .env files stay private");
    } finally {
      writeConfig(USER_CONFIG_DIR, { plugins: [USER_BASH, ["@toolhost/hooks-policy", USER_POLICY]] });
    }
  });
});

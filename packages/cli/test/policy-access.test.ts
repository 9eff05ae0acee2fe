// `toolhost policy explain` judges what a call touches: the declaration of the config's tool
// (the HTTP example's URL), or the access a JSON line gives for another host's tool.
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonLines, project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

const HTTP_PLUGIN = fileURLToPath(new URL("../../../examples/plugin-http", import.meta.url));

let dir = "";
beforeAll(() => {
  dir = project(tempDir());
  symlinkSync(HTTP_PLUGIN, join(dir, "node_modules", "@toolhost", "example-plugin-http"), "dir");
  writeConfig(dir, {
    plugins: [
      "@toolhost/example-plugin-http",
      [
        "@toolhost/hooks-policy",
        {
          default: "ask",
          rules: [
            { id: "ours", tool: "*", host: "*.example.com", decision: "allow" },
            { id: "admin", tool: "*", url: "https://api.example.com/admin/**", decision: "deny", reason: "the admin API" },
            { id: "secrets", tool: "*", path: ".env", decision: "deny" },
            { id: "shell", tool: "*", command: "*", decision: "allow" },
            { id: "no-rm", tool: "*", command: "rm -rf *", decision: "deny" },
          ],
        },
      ],
    ],
  });
});
afterAll(() => removeDir(dir));

describe("toolhost policy explain with declared access", () => {
  it("judges make_api_call by the URL it declares", async () => {
    const allowed = await toolhost(["--json", "policy", "explain", "make_api_call", '{"url":"https://api.example.com/v1/items"}'], { cwd: dir });
    expect(allowed.stderr).toBe("");
    expect(JSON.parse(allowed.stdout)).toMatchObject({ decision: "allow", rules: ["ours"], parts: [{ kind: "network", subject: "GET https://api.example.com/v1/items" }] });
    const denied = await toolhost(["--json", "policy", "explain", "make_api_call", '{"url":"https://api.example.com/admin/users","method":"DELETE"}'], { cwd: dir });
    expect(JSON.parse(denied.stdout)).toMatchObject({ decision: "deny", rules: ["admin"], reason: `network DELETE https://api.example.com/admin/users: denied by config › url "https://api.example.com/admin/**" (admin) (the admin API)` });
    const elsewhere = await toolhost(["--json", "policy", "explain", "make_api_call", '{"url":"https://example.com.evil.net/"}'], { cwd: dir });
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ decision: "ask" });
  });

  it('judges another host\'s call by the "access" of its JSON line', async () => {
    const input = [
      { tool: "Read", args: { file_path: ".env" }, access: { reads: [join(dir, ".env")] } },
      { tool: "Bash", args: { command: "rm -fr --one-file-system build" }, access: { commands: [{ command: "rm -fr --one-file-system build", cwd: dir }] } },
      { tool: "Bash", args: { command: "ls" }, access: { commands: [{ command: "ls", cwd: dir }] } },
      { tool: "WebFetch", args: {}, access: { network: [{ url: "https://docs.example.com/x" }] } },
      { tool: "Read", args: {}, access: { reads: "not a list" } },
    ].map((line) => JSON.stringify(line));
    const result = await toolhost(["policy", "explain", "-", "--json"], { cwd: dir, input: input.join("\n") });
    expect(result.stderr).toBe("");
    const lines = jsonLines(result.stdout) as Array<{ decision: string; reason: string }>;
    expect(lines.map((line) => line.decision)).toEqual(["deny", "deny", "allow", "allow", "deny"]);
    expect(lines[4]?.reason).toContain('"reads" that is not a list of paths');
  });
});

// `toolhost policy rules` lists the layered rules with layer and source; `explain` refuses a tool the config lacks.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

const HTTP_PLUGIN = fileURLToPath(new URL("../../../examples/plugin-http", import.meta.url));

let dir = "";
beforeAll(() => {
  dir = project(tempDir());
  symlinkSync(HTTP_PLUGIN, join(dir, "node_modules", "@toolhost", "example-plugin-http"), "dir");
  mkdirSync(join(dir, "policies"));
  writeFileSync(join(dir, "policies", "team.yaml"), "name: team\nlocked: true\nrules:\n  - { id: team-admin, tool: '*', url: 'https://api.example.com/admin/**', decision: deny }\n");
  writeConfig(dir, {
    plugins: [
      "@toolhost/example-plugin-http",
      ["@toolhost/hooks-policy", { default: "ask", extends: ["./policies/team.yaml"], rules: [{ tool: "*", url: "https://api.example.com/**", decision: "allow" }] }],
    ],
  });
});
afterAll(() => removeDir(dir));

describe("toolhost policy rules", () => {
  it("lists each rule in layer order, with its layer, lock and source file", async () => {
    const result = await toolhost(["policy", "rules"], { cwd: dir });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(`deny  * url "https://api.example.com/admin/**"  team-admin  — team (locked) [${join(dir, "policies", "team.yaml")}]`);
    expect(lines[1]).toContain(`allow * url "https://api.example.com/**"  rules[0]  — config`);
    const json = JSON.parse((await toolhost(["--json", "policy", "rules"], { cwd: dir })).stdout);
    expect(json[0]).toMatchObject({ id: "team-admin", layer: "team", locked: true, decision: "deny" });
  });

  it("explain: the locked layer holds against the config's allow, and the reason names it", async () => {
    const result = await toolhost(["--json", "policy", "explain", "make_api_call", '{"url":"https://api.example.com/admin/x"}'], { cwd: dir });
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: "deny", reason: expect.stringContaining('denied by team (locked) › url "https://api.example.com/admin/**" (team-admin)') });
  });
});

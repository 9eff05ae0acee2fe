// The changesets release flow of the README, dry-run on a copy of the workspace (its manifests,
// lockfile and built files, installed offline from the store): a changeset, `changeset status`,
// `pnpm release:version`, then `pnpm publish --dry-run` of what would be published.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_DIR, removeDir, tempDir, writeFile } from "./_helpers.js";

const exec = promisify(execFile);
const REPO = join(CLI_DIR, "..", "..");
let copy: string;

async function run(command: string, args: string[], cwd = copy): Promise<string> {
  const { stdout } = await exec(command, args, { cwd, env: { ...process.env, NO_COLOR: "1", CI: "1" } });
  return stdout;
}

const version = (dir: string): string => (JSON.parse(readFileSync(join(copy, dir, "package.json"), "utf8")) as { version: string }).version;

beforeAll(async () => {
  copy = tempDir("toolhost-release-");
  for (const file of ["package.json", "pnpm-workspace.yaml", "pnpm-lock.yaml", ".npmrc", ".changeset/config.json"]) {
    cpSync(join(REPO, file), join(copy, file));
  }
  for (const group of ["packages", "examples"]) {
    for (const name of readdirSync(join(REPO, group))) {
      const from = join(REPO, group, name);
      if (!existsSync(join(from, "package.json"))) continue;
      mkdirSync(join(copy, group, name), { recursive: true });
      cpSync(join(from, "package.json"), join(copy, group, name, "package.json"));
      if (existsSync(join(from, "dist"))) cpSync(join(from, "dist"), join(copy, group, name, "dist"), { recursive: true });
    }
  }
  writeFile(join(copy, ".gitignore"), "node_modules/\n");
  await run("pnpm", ["install", "--offline", "--frozen-lockfile", "--ignore-scripts"]);
  await run("git", ["init", "-q", "-b", "main"]);
  await run("git", ["add", "-A"]);
  await run("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-qm", "release"]);
});

afterAll(() => {
  if (copy) removeDir(copy);
});

describe("the changesets release flow, dry-run", () => {
  it("a core minor bumps core and the CLI that depends on it, and leaves the plugins alone (their peer range holds)", async () => {
    writeFile(join(copy, ".changeset", "new-export.md"), '---\n"@toolhost/core": minor\n"@toolhost/tool-fs": patch\n---\n\nA new export.\n');
    await run("pnpm", ["changeset", "status", "--output=status.json"]);
    const status = JSON.parse(readFileSync(join(copy, "status.json"), "utf8")) as {
      releases: Array<{ name: string; type: string; oldVersion: string; newVersion: string }>;
    };
    const bumped = Object.fromEntries(status.releases.filter((r) => r.type !== "none").map((r) => [r.name, `${r.oldVersion} -> ${r.newVersion}`]));
    expect(bumped).toEqual({ "@toolhost/core": "0.1.0 -> 0.2.0", "@toolhost/tool-fs": "0.1.0 -> 0.1.1", "@toolhost/cli": "0.1.0 -> 0.1.1" });

    await run("pnpm", ["release:version"]);
    expect(version("packages/core")).toBe("0.2.0");
    expect(version("packages/tool-fs")).toBe("0.1.1");
    expect(version("packages/cli")).toBe("0.1.1");
    for (const plugin of ["packages/tool-bash", "packages/hooks-policy", "packages/provider-openai", "packages/queue", "packages/tool-mcp"]) expect(version(plugin)).toBe("0.1.0");
    expect(readFileSync(join(copy, "packages", "core", "CHANGELOG.md"), "utf8")).toContain("## 0.2.0\n\n### Minor Changes\n\n- A new export.");
    expect(readFileSync(join(copy, "packages", "cli", "CHANGELOG.md"), "utf8")).toContain("@toolhost/core@0.2.0");
    expect(existsSync(join(copy, ".changeset", "new-export.md"))).toBe(false);
  });

  it("publish --dry-run would publish the new versions with workspace ranges turned into versions", async () => {
    const cli = JSON.parse(await run("pnpm", ["publish", "--dry-run", "--no-git-checks", "--json"], join(copy, "packages", "cli"))) as {
      id: string;
      files: Array<{ path: string }>;
    };
    expect(cli.id).toBe("@toolhost/cli@0.1.1");
    expect(cli.files.map((file) => file.path)).toContain("dist/bin.js");
    expect(cli.files.map((file) => file.path).some((path) => path.startsWith("src/") || path.startsWith("test/"))).toBe(false);

    const packed = (await run("pnpm", ["pack", "--pack-destination", copy], join(copy, "packages", "cli"))).trim().split("\n").at(-1) as string;
    const manifest = JSON.parse(await run("tar", ["-xOzf", packed, "package/package.json"])) as { dependencies: Record<string, string> };
    expect(manifest.dependencies["@toolhost/core"]).toBe("^0.2.0");
  });
});

// Every snippet of the docs runs as written: the code blocks of README.md, docs/*.md and each
// package's README.md (read from the folders when the test starts, so a page added later is
// covered without a change here), in a fresh project made from `pnpm release:pack`'s tarballs,
// as a reader follows the page from its top:
//
// - `sh` blocks run with bash (-e, pipefail) in the page's project, `~/my-project`, one after
//   another, so a later block sees what an earlier one made. `/path/to/toolhost/release` is the
//   tarballs' folder. `npm i` of a `@toolhost/...` name installs its tarball (with core's, which
//   they depend on), as the docs say to before the packages are published; every other package
//   comes from the registry. `toolhost` is on PATH as after a global install.
// - `json`, `jsonc` and `yaml` blocks must parse (`jsonc`: comments allowed, as labels). One that
//   is a toolhost config (it has `plugins`) is written to a folder of its own in the project and
//   loaded (`toolhost list` exits 0); when it has a policy and tool-fs, a read of a plain file of
//   its folder must be allowed: a policy that asks about every read gets switched off.
// - `ts` blocks are type-checked (strict, each its own module) against the installed packages'
//   types: an undefined name, a wrong option or a missing import fails.
// - A block that cannot run says so where a reader sees it, in its first line: `# not run: why`
//   (or `// not run: why`). Blocks of other languages (`text`, `toml`, `ini`, `jsonl`, none) are
//   shown output or other programs' files, and not run.
//
// docs/plugins.md is followed by plugin-guide.test.ts, which builds its plugin and checks what
// each command prints, and docs/hooks.md's set-up by hooks-guide.test.ts, on a terminal. Slow: npm fetches the tarballs' dependencies and the pages' own packages.
import { execFile, spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_DIR, removeDir, tempDir, writeFile } from "./_helpers.js";

const exec = promisify(execFile);
const REPO = join(CLI_DIR, "..", "..");
const CORE_DIR = realpathSync(join(CLI_DIR, "node_modules", "@toolhost", "core"));
const YAML = createRequire(join(CORE_DIR, "package.json"))("yaml") as { parse(text: string): unknown };

/** The pages: read now, so that a page added later is in the list without a change here. */
const PAGES = [
  "README.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((name) => name.endsWith(".md") && name !== "plugins.md")
    .sort()
    .map((name) => `docs/${name}`),
  ...readdirSync(join(REPO, "packages"))
    .filter((name) => readdirSync(join(REPO, "packages", name)).includes("README.md"))
    .sort()
    .map((name) => `packages/${name}/README.md`),
];

/**
 * Blocks a test of their own follows (by the page and the block's first line), with what it checks
 * that this one cannot: hooks.md's set-up answers each `--write`'s question on a real terminal.
 */
const FOLLOWED_ELSEWHERE: Record<string, { first: string; by: string }[]> = {
  "docs/hooks.md": [{ first: "npm i -D @toolhost/cli @toolhost/hooks-policy", by: "hooks-guide.test.ts" }],
};

const RUN = new Set(["sh", "bash", "shell"]);
const DATA = new Set(["json", "jsonc", "yaml", "yml"]);
const TYPED = new Set(["ts", "typescript"]);
const NOT_RUN = /^(?:#|\/\/) not run: (.+)$/;

interface Block {
  lang: string;
  line: number;
  code: string;
}

/** The fenced code blocks of a page, with the line each starts on. */
function blocksOf(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\S*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm)].map((match) => ({
    lang: match[1] as string,
    line: markdown.slice(0, match.index).split("\n").length,
    code: match[2] as string,
  }));
}

interface Outcome {
  code: number;
  output: string;
}

/**
 * Runs a script with bash in its own process group, and ends the group when the script is done
 * (a block that starts a server in the background leaves nothing behind).
 */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-eo", "pipefail", "-c", script], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("error", reject);
    // A server the script left in the background holds the pipes open: end the group when bash exits.
    child.on("exit", () => {
      try {
        process.kill(-(child.pid as number), "SIGTERM");
      } catch {
        // The group has already ended.
      }
    });
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

let root: string;
let release: string;
let base: string;
let shims: string;

beforeAll(async () => {
  root = tempDir("toolhost-docs-");
  release = join(root, "release");
  await exec(process.execPath, [join(REPO, "scripts", "release-pack.mjs"), release]);
  const tarballs = readdirSync(release).filter((name) => name.endsWith(".tgz"));
  // `npm i @toolhost/x` before publishing: the tarball, and core's and mcp-wire's (the packages' own dependencies).
  shims = join(root, "shims");
  const core = tarballs.find((name) => name.startsWith("toolhost-core-")) as string;
  const npm = (await exec("bash", ["-c", "command -v npm"])).stdout.trim();
  writeFile(
    join(shims, "npm"),
    `#!/usr/bin/env bash
args=()
toolhost=0
for arg in "$@"; do
  if [[ "$arg" == @toolhost/* ]]; then
    name="\${arg#@toolhost/}"; name="\${name%%@*}"
    args+=("$(ls ${release}/toolhost-"$name"-[0-9]*.tgz)"); toolhost=1
  else
    args+=("$arg")
  fi
done
if [[ $toolhost == 1 ]]; then args+=("${join(release, core)}" "$(ls ${release}/toolhost-mcp-wire-[0-9]*.tgz)"); fi
exec ${npm} "\${args[@]}"
`,
  );
  chmodSync(join(shims, "npm"), 0o755);
  // A reader's project: a package.json and a README, TypeScript for the TS snippets, toolhost's tarballs.
  base = join(root, "base");
  mkdirSync(base, { recursive: true });
  await exec(npm, ["init", "-y"], { cwd: base });
  writeFileSync(join(base, "README.md"), "# my project\n");
  await exec(npm, ["install", "--save-dev", "--no-audit", "--no-fund", "typescript@~5.9.3", "@types/node@^20", ...tarballs.map((name) => join(release, name))], { cwd: base });
});

afterAll(() => {
  if (root) removeDir(root);
});

/** A page's own reader: a home with the page's project in it, made from the base project. */
function sandbox(page: string): { home: string; project: string; env: NodeJS.ProcessEnv } {
  const home = join(root, page.replaceAll("/", "_"));
  const project = join(home, "my-project");
  cpSync(base, project, { recursive: true, verbatimSymlinks: true });
  for (const folder of ["notes", "code", ".config", "managed"]) mkdirSync(join(home, folder), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: `${shims}:${join(project, "node_modules", ".bin")}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    TOOLHOST_MANAGED_CONFIG_DIR: join(home, "managed"),
    NO_COLOR: "1",
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? home, ".npm"),
  };
  return { home, project, env };
}

/** What a data block is: parsed, or the parser's complaint. */
function parsed(block: Block): { value: unknown } | { error: string } {
  try {
    if (block.lang === "yaml" || block.lang === "yml") return { value: YAML.parse(block.code) };
    const errors: ParseError[] = [];
    const value = parseJsonc(block.code, errors, { allowTrailingComma: false, disallowComments: block.lang === "json" });
    return errors.length > 0 ? { error: `not ${block.lang}: parse error ${errors[0]?.error} at offset ${errors[0]?.offset}` } : { value };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** A toolhost config block: loaded in a folder of its own; a policy with tool-fs must allow a plain read. */
async function checkConfig(block: Block, value: Record<string, unknown>, at: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  mkdirSync(at, { recursive: true });
  const yaml = block.lang === "yaml" || block.lang === "yml";
  writeFileSync(join(at, yaml ? "toolhost.config.yaml" : "toolhost.config.json"), yaml ? block.code : JSON.stringify(value, null, 2));
  writeFileSync(join(at, "notes.md"), "a plain file\n");
  const listed = await bash("toolhost list", at, env);
  if (listed.code !== 0) return `the config does not load: toolhost list exited ${listed.code}\n${listed.output}`;
  const names = (value.plugins as unknown[]).map((entry) => (Array.isArray(entry) ? entry[0] : entry));
  if (!names.includes("@toolhost/hooks-policy") || !names.includes("@toolhost/tool-fs")) return undefined;
  const explained = await bash(`toolhost --json policy explain read '{"path": "notes.md"}'`, at, env);
  const decision = explained.code === 0 ? (JSON.parse(explained.output.trim().split("\n").at(-1) as string) as { decision: string }).decision : undefined;
  return decision === "allow" ? undefined : `its policy does not allow a read of a plain file of the project (${decision ?? explained.output}): one that asks about every read gets switched off`;
}

/** Type-checks a page's TS blocks, each its own module; the problems of each block, by its line. */
async function typeCheck(blocks: Block[], project: string, page: string): Promise<Map<number, string>> {
  const folder = join(project, "snippets");
  mkdirSync(folder, { recursive: true });
  for (const block of blocks) writeFileSync(join(folder, `line-${block.line}.mts`), block.code);
  writeFileSync(
    join(folder, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"], moduleDetection: "force" },
      include: ["*.mts"],
    }),
  );
  const problems = new Map<number, string>();
  const checked = await bash(`npx tsc -p ${JSON.stringify(folder)} --pretty false`, project, { ...process.env, PATH: `${join(project, "node_modules", ".bin")}:${process.env.PATH}` });
  if (checked.code === 0) return problems;
  for (const line of checked.output.split("\n")) {
    const at = /line-(\d+)\.mts\((\d+),\d+\): (.*)$/.exec(line);
    if (!at) continue;
    const start = Number(at[1]);
    problems.set(start, `${problems.get(start) ?? ""}${page}:${start + Number(at[2])}: ${at[3]}\n`);
  }
  if (problems.size === 0) problems.set(0, checked.output);
  return problems;
}

describe("the docs' snippets, as written, in a project made from the release tarballs", () => {
  it("covers every page: README.md, docs/*.md, each package's README.md", () => {
    expect(PAGES).toContain("README.md");
    expect(PAGES).toContain("docs/trust.md");
    expect(PAGES).toContain("packages/cli/README.md");
  });

  it.each(PAGES)("%s", async (page) => {
    const blocks = blocksOf(readFileSync(join(REPO, page), "utf8"));
    const { project, env } = sandbox(page);
    const failures: string[] = [];
    const typed: Block[] = [];
    for (const block of blocks) {
      const where = `${page}:${block.line} (${block.lang})`;
      const first = block.code.split("\n")[0] ?? "";
      const skipped = NOT_RUN.exec(first);
      if (skipped) {
        if ((skipped[1] as string).trim().length < 10) failures.push(`${where}: "not run" needs a reason a reader understands`);
        continue;
      }
      if (FOLLOWED_ELSEWHERE[page]?.some((each) => first.startsWith(each.first))) continue;
      if (RUN.has(block.lang)) {
        const script = block.code.replaceAll("/path/to/toolhost/release", release);
        const result = await bash(script, project, env);
        if (result.code !== 0) failures.push(`${where} exited ${result.code}:\n${block.code}\n--- output:\n${result.output}`);
      } else if (DATA.has(block.lang)) {
        const data = parsed(block);
        if ("error" in data) failures.push(`${where}: ${data.error}`);
        else if (typeof data.value === "object" && data.value !== null && Array.isArray((data.value as { plugins?: unknown }).plugins)) {
          const problem = await checkConfig(block, data.value as Record<string, unknown>, join(project, "configs", `line-${block.line}`), env);
          if (problem) failures.push(`${where}: ${problem}`);
        }
      } else if (TYPED.has(block.lang)) typed.push(block);
    }
    if (typed.length > 0) for (const [, problem] of await typeCheck(typed, project, page)) failures.push(problem);
    expect(failures.join("\n\n"), `in ${page}`).toBe("");
  });
});

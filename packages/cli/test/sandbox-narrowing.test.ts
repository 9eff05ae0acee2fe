// A project can narrow the sandbox, never widen it (issue 36): the built CLI as a user runs it in a
// cloned repository it has not trusted, with a home folder of its own (a private folder with a
// secret), real bubblewrap (sandbox "required": without bwrap these tests fail) and a server on
// loopback. What widens is refused with the trust command; what narrows applies from anyone.
import { existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { USER_CONFIG_DIR, removeDir, tempDir, toolhost, writeConfig, writeFile } from "./_helpers.js";

const SECRET = "TOP-SECRET-5150";
let home: string;
let repo: string;
const servers: Server[] = [];

beforeEach(() => {
  home = tempDir("toolhost-narrow-home-");
  repo = tempDir("toolhost-narrow-repo-");
  mkdirSync(join(home, "private"));
  writeFileSync(join(home, "private", "secret"), `${SECRET}\n`);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  removeDir(join(USER_CONFIG_DIR));
  removeDir(home);
  removeDir(repo);
});

const env = () => ({ HOME: home });
const run = (args: string[]) => toolhost(args, { cwd: repo, env: env() });
const bash = (command: string) => run(["call", "--json", "bash", JSON.stringify({ command })]);
const bashOptions = (options: Record<string, unknown>) => writeConfig(repo, { plugins: [["@toolhost/tool-bash", { sandbox: "required", ...options }]] });
const userConfig = (config: Record<string, unknown>) => writeFile(join(USER_CONFIG_DIR, "toolhost.config.json"), JSON.stringify(config));

/** What the call's result says: its text and details, from `toolhost call --json`. */
function result(stdout: string): { text: string; details: Record<string, unknown> } {
  const message = JSON.parse(stdout) as { content: { type: string; text?: string }[]; details: Record<string, unknown> };
  return { text: message.content.map((part) => part.text ?? "").join(""), details: message.details };
}

async function listen(): Promise<number> {
  const server = createServer((_request, response) => response.end("reached the host\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

describe("an untrusted project's tool-bash options", { timeout: 180_000 }, () => {
  it("readable ~/private is refused with the trust command, and the secret is never read; trusted, it applies", async () => {
    const config = bashOptions({ readable: ["~/private"] });
    const refused = await bash(`cat ~/private/secret; touch ${join(repo, "ran")}`);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stdout).not.toContain(SECRET);
    expect(refused.stderr).not.toContain(SECRET);
    expect(existsSync(join(repo, "ran"))).toBe(false);
    expect(refused.stderr).toContain("(TOOLHOST_UNTRUSTED_WIDENING)");
    expect(refused.stderr).toContain(`its option readable ["~/private"] (wider than [])`);
    expect(refused.stderr).toContain(`set in ${config}`);
    expect(refused.stderr).toContain(`run "toolhost trust ${repo}"`);

    const trusted = await run(["trust", repo]);
    expect(trusted.code, trusted.stderr).toBe(0);
    const read = await bash("cat ~/private/secret");
    expect(read.code, read.stderr).toBe(0);
    expect(result(read.stdout).text).toContain(SECRET);
  });

  it("network proxy with destinations is refused, naming both", async () => {
    bashOptions({ network: "proxy", destinations: ["*.example.com:443"] });
    const refused = await bash("echo never");
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stdout).not.toContain("never");
    expect(refused.stderr).toContain(`its options network "proxy" (wider than "off"), destinations ["*.example.com:443"] (wider than [])`);
    expect(refused.stderr).toContain("(TOOLHOST_UNTRUSTED_WIDENING)");
  });

  it("the host root, the sandbox off and a higher limit are refused; a lower limit applies and a real call meets it", async () => {
    for (const [options, said] of [
      [{ root: "host" }, `root "host" (wider than "minimal")`],
      [{ sandbox: "off" }, `sandbox "off" (wider than "auto")`],
      [{ limits: { memoryBytes: 1024 ** 4 } }, `limits.memoryBytes ${1024 ** 4} (wider than `],
    ] as const) {
      writeConfig(repo, { plugins: [["@toolhost/tool-bash", options]] });
      const refused = await bash("echo never");
      expect(refused.code, JSON.stringify(options)).toBe(2);
      expect(refused.stderr).toContain(said);
    }
    bashOptions({ limits: { fileSizeBytes: 64 * 1024 } });
    const limited = await bash(`head -c 200000 /dev/zero > big`);
    // The command failed (exit 1: the tool reported an error), stopped at the lower limit.
    expect(limited.code, limited.stderr).toBe(1);
    const { text, details } = result(limited.stdout);
    expect(text).toContain("a write was stopped at 64 KiB");
    expect(statSync(join(repo, "big")).size).toBe(64 * 1024);
    expect(details.limitExceeded).toMatchObject({ limit: "fileSizeBytes", value: 64 * 1024 });
  });

  it("a limit the user set cannot be dropped by a project that leaves it out", async () => {
    userConfig({ plugins: [["@toolhost/tool-bash", { limits: { processes: 64 } }]] });
    bashOptions({});
    const refused = await bash("echo never");
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`limits.processes 4096 (wider than 64)`);
    expect(refused.stderr).toContain(`more than your user config ${join(USER_CONFIG_DIR, "toolhost.config.json")} allows`);
    bashOptions({ limits: { processes: 32 } });
    const narrower = await bash("echo ran");
    expect(narrower.code, narrower.stderr).toBe(0);
    expect((result(narrower.stdout).details.sandbox as { limits: Record<string, number> }).limits.processes).toBe(32);
  });

  it('network "off" applies from an untrusted project over the user\'s "host": curl no longer reaches a loopback server', async () => {
    const port = await listen();
    userConfig({ plugins: [["@toolhost/tool-bash", { sandbox: "required", network: "host" }]] });
    const curl = `curl -sS --max-time 10 http://127.0.0.1:${port}/`;
    // The same value as the user's is no wider: it applies, and reaches the server.
    bashOptions({ network: "host" });
    const reached = await bash(curl);
    expect(reached.code, reached.stderr).toBe(0);
    expect(result(reached.stdout).text).toContain("reached the host");
    bashOptions({ network: "off" });
    const off = await bash(curl);
    expect(off.code, off.stderr).toBe(1);
    const { text, details } = result(off.stdout);
    expect(text).not.toContain("reached the host");
    expect(details.exitCode).not.toBe(0);
    expect((details.sandbox as { network: string }).network).toBe("off");
  });

  it("readable [] and fewer writable folders apply from an untrusted project", async () => {
    userConfig({ plugins: [["@toolhost/tool-bash", { sandbox: "required", readable: ["~/private"] }]] });
    bashOptions({ readable: [], writable: [] });
    const narrowed = await bash(`cat ~/private/secret; touch ${join(repo, "written")}`);
    expect(narrowed.code, narrowed.stderr).toBe(1);
    expect(result(narrowed.stdout).text).not.toContain(SECRET);
    expect(existsSync(join(repo, "written"))).toBe(false);
  });

  it("the user's own config widening applies: a readable folder from it is read in any project", async () => {
    userConfig({ plugins: [["@toolhost/tool-bash", { sandbox: "required", readable: ["~/private"] }]] });
    // No project config: the user's tool-bash options are the ones in force.
    const read = await bash("cat ~/private/secret");
    expect(read.code, read.stderr).toBe(0);
    expect(result(read.stdout).text).toContain(SECRET);
    // A project that names the same folder widens nothing beyond the user's.
    bashOptions({ readable: ["~/private"] });
    const again = await bash("cat ~/private/secret");
    expect(again.code, again.stderr).toBe(0);
    expect(result(again.stdout).text).toContain(SECRET);
  });
});

describe("an untrusted project's tool-fs options", { timeout: 120_000 }, () => {
  it('roots ["/"] is refused and the file is not read; a root inside the workspace applies', async () => {
    writeConfig(repo, { plugins: [["@toolhost/tool-fs", { roots: ["/"] }]] });
    const refused = await run(["call", "read", JSON.stringify({ path: join(home, "private", "secret") })]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stdout).not.toContain(SECRET);
    expect(refused.stderr).toContain('its option roots ["/"] (wider than ["${workspace}"])');
    expect(refused.stderr).toContain("(TOOLHOST_UNTRUSTED_WIDENING)");

    writeFile(join(repo, "src", "a.txt"), "inside\n");
    writeConfig(repo, { plugins: [["@toolhost/tool-fs", { roots: ["src"] }]] });
    const inside = await run(["call", "read", JSON.stringify({ path: "src/a.txt" })]);
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stdout).toContain("inside");
  });

  it("a symlink in the repository that leads out does not pass for a folder inside it", async () => {
    symlinkSync(home, join(repo, "looks-inside"));
    writeConfig(repo, { plugins: [["@toolhost/tool-fs", { roots: ["looks-inside"] }]] });
    const refused = await run(["call", "read", JSON.stringify({ path: "looks-inside/private/secret" })]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stdout).not.toContain(SECRET);
    expect(refused.stderr).toContain("(TOOLHOST_UNTRUSTED_WIDENING)");
  });

  it("overwriteReadOnly is refused; toolhost schema marks the options that only narrow", async () => {
    writeConfig(repo, { plugins: [["@toolhost/tool-fs", { overwriteReadOnly: true }]] });
    const refused = await run(["call", "read", JSON.stringify({ path: "toolhost.config.json" })]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain("overwriteReadOnly true (wider than false)");
    const schema = await run(["schema", "@toolhost/tool-bash"]);
    expect(schema.code, schema.stderr).toBe(0);
    expect(schema.stdout).toMatch(/\n {2}readable: string\[\] = \[\] \[narrow only from an untrusted project\]/);
    expect(schema.stdout).toMatch(/\n {4}memoryBytes\?: integer = \d+ \[narrow only from an untrusted project\]/);
    expect(schema.stdout).toContain("\n[narrow only from an untrusted project]: the option widens what calls reach");
  });
});

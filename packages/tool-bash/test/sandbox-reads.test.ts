// What the sandbox hides outside the workspace: the paths the policy service's `deniedReads`
// lists (its denied home folders, absolute files), under every name a command can reach them
// by. Real bubblewrap, real files, a temp HOME outside /tmp (the sandbox replaces /tmp with its
// own, which would hide a home there anyway). Without bwrap these tests fail ("required"). They
// run today's sandbox (root "host": all of / read-only); under the minimal root none of these
// paths exists at all (sandbox-minimal.test.ts).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AgentHarness, type DeniedReads, definePlugin, type PolicyService } from "@toolhost/core";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin, { BashErrorCode } from "../src/index.js";
import { cleanupsAfterEach, runBash as bash, tempFolder } from "./_helpers.js";

const KEY = "PRIVATE_KEY_MATERIAL_0815";
const SHADOW = "ROOT_HASH_4242";

let ws: string;
let outside: string;
let home: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  const a = tempFolder();
  ws = realpathSync(a.dir);
  outside = realpathSync(mkdtempSync(join("/var/tmp", "tool-bash-reads-")));
  home = join(outside, "home");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), `${KEY}\n`);
  writeFileSync(join(home, "notes.txt"), "readable notes\n");
  mkdirSync(join(outside, "etc"));
  writeFileSync(join(outside, "etc", "shadow"), `root:${SHADOW}:19000::::::\n`);
  writeFileSync(join(outside, "etc", "hostname"), "box\n");
  cleanups.push(a.remove, () => rmSync(outside, { recursive: true, force: true }));
});

/** A policy service that denies reading the temp home's .ssh and the temp etc/shadow, as hooks-policy's `deniedReads` lists them. */
function policyPlugin(deniedReads: PolicyService["deniedReads"] | "none") {
  return definePlugin({
    name: "test-policy",
    apply(harness) {
      harness.provideService("policy", {
        explain: async (request) => ({ decision: "allow", reason: "test", tool: request.tool, rules: [], parts: [] }),
        protectedPaths: async () => ({ denyRead: [], denyWrite: [] }),
        ...(deniedReads !== "none" && { deniedReads }),
      });
    },
  });
}

const denying = (unbounded: string[] = []): PolicyService["deniedReads"] =>
  async (): Promise<DeniedReads> => ({ paths: [join(home, ".ssh"), join(outside, "etc", "shadow")], unbounded });

async function harnessWith(deniedReads: PolicyService["deniedReads"] | "none" = denying()): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bashPlugin, { sandbox: "required", root: "host", env: { HOME: home } });
  await harness.use(policyPlugin(deniedReads));
  cleanups.push(() => harness.dispose());
  return harness;
}

describe("the sandbox hides what the policy denies to read outside the workspace", { timeout: 90_000 }, () => {
  it("a key under the home folder reads as empty: by name, a script, an inline program, a symlink, .., /proc/self/root", async () => {
    symlinkSync(join(home, ".ssh", "id_rsa"), join(ws, "key-link"));
    symlinkSync(home, join(ws, "home-link"));
    writeFileSync(join(ws, "steal.sh"), "cat ~/.ssh/id_rsa; cat \"$HOME\"/.ssh/*\n");
    const harness = await harnessWith();
    const up = "../".repeat(ws.split("/").length - 1);
    const commands = [
      "cat ~/.ssh/id_rsa",
      "bash ./steal.sh",
      `python3 -c "print(open('${home}/.ssh/id_rsa').read())"`,
      "cat key-link",
      "cat home-link/.ssh/id_rsa",
      `cat ${up}${home.slice(1)}/.ssh/id_rsa`,
      `cat ${home}/../home/.ssh/id_rsa`,
      `cat /proc/self/root${home}/.ssh/id_rsa`,
      `ln -s ${home}/.ssh/id_rsa /tmp/k && cat /tmp/k`,
      `cd ${home} && tar c . | strings`,
      `grep -r ${KEY} ${outside}`,
    ];
    for (const command of commands) {
      const result = await bash(harness, command);
      expect(result.text, command).not.toContain(KEY);
      expect(result.details.sandbox.hidden, command).toEqual(expect.arrayContaining([join(home, ".ssh"), join(outside, "etc", "shadow")]));
    }
    // The folder is there, and empty.
    expect((await bash(harness, "ls -A ~/.ssh | wc -l")).text.split("\n")[0]).toBe("0");
    expect((await bash(harness, "cat ~/.ssh/id_rsa")).text).toContain(`[sandbox: the policy denies reading ${join(home, ".ssh")}`);
  });

  it("a file denied by an absolute path reads as empty; what is not denied stays readable (the home folder, the system)", async () => {
    const harness = await harnessWith();
    const shadow = await bash(harness, `wc -c < ${outside}/etc/shadow`);
    expect(shadow.text.split("\n")[0]).toBe("0");
    expect(shadow.text).toContain(`[sandbox: the policy denies reading ${join(outside, "etc", "shadow")}; here they read as empty.`);
    expect((await bash(harness, `cat ${outside}/etc/*`)).text).not.toContain(SHADOW);
    expect((await bash(harness, `cat ${outside}/etc/hostname ~/notes.txt`)).text).toBe("box\nreadable notes");
    expect((await bash(harness, "test -x /usr/bin/env && head -c 4 /usr/bin/env | tail -c 3")).text).toBe("ELF");
  });

  it("declares, for the policy, that it hides the denied reads only when the policy service can list them", async () => {
    const env = { cwd: ws, workspace: ws };
    const listing = await harnessWith();
    expect(await listing.getTool("bash")?.access?.({ command: "ls" }, env)).toMatchObject({ confinement: { network: false, hidesDeniedReads: true } });
    const older = await harnessWith("none");
    expect(await older.getTool("bash")?.access?.({ command: "ls" }, env)).toMatchObject({ confinement: { network: false, hidesDeniedReads: false } });
    // Such a policy's paths outside stay visible: the confinement said so.
    expect((await bash(older, "cat ~/.ssh/id_rsa")).text).toBe(KEY);
  });

  it("covers a denied symlink with an absolute target at the target (bwrap cannot mount on it), for reading and for writing", async () => {
    symlinkSync(join(home, ".ssh", "id_rsa"), join(ws, "abs-link"));
    writeFileSync(join(ws, "target.txt"), "original\n");
    symlinkSync(join(ws, "target.txt"), join(ws, "abs-write-link"));
    const harness = new AgentHarness({ cwd: ws, workspace: ws });
    cleanups.push(() => harness.dispose());
    await harness.use(bashPlugin, { sandbox: "required", root: "host", env: { HOME: home } });
    harness.provideService("policy", {
      explain: async (request) => ({ decision: "allow", reason: "test", tool: request.tool, rules: [], parts: [] }),
      protectedPaths: async () => ({ denyRead: [join(ws, "abs-link")], denyWrite: [join(ws, "abs-write-link")] }),
      deniedReads: async () => ({ paths: [], unbounded: [] }),
    });
    const result = await bash(harness, "cat abs-link; echo changed > abs-write-link; cat target.txt");
    expect(result.text).not.toContain(KEY);
    expect(result.text).not.toContain("bwrap:");
    expect(result.text).toContain("original");
    expect(result.details.sandbox.hidden).toEqual([join(home, ".ssh", "id_rsa")]);
    expect(result.details.sandbox.readOnly).toEqual([join(ws, "target.txt")]);
  });

  it("says in the details which of the policy's patterns it could not hide", async () => {
    const result = await bash(await harnessWith(denying([".env", "*.pem"])), "true");
    expect(result.details.sandbox.unbounded).toEqual([".env", "*.pem"]);
  });

  it("refuses the call (fails closed) when the policy cannot list what it denies outside", async () => {
    const result = await bash(
      await harnessWith(async () => {
        throw new Error("/home is too large to search");
      }),
      "echo never",
    );
    expect(result.isError).toBe(true);
    expect(result.details.code).toBe(BashErrorCode.SANDBOX_FAILED);
    expect(result.text).toContain("the policy could not list the paths it denies to read outside");
    expect(result.text).toContain("/home is too large to search");
    expect(result.text).not.toContain("never\n");
  });
});

describe("a bind mount that shows the file system under another name", { timeout: 90_000 }, () => {
  it("is found in the mount table, and what is denied, outside the workspace and in it, is hidden under that name too", async () => {
    writeFileSync(join(ws, ".env"), `TOKEN=${KEY}\n`);
    // A private mount namespace (root, or a user namespace), so the bind is seen by this child alone.
    const alias = join(outside, "alias");
    mkdirSync(alias);
    const script = join(outside, "run.mjs");
    const dist = (name: string) => pathToFileURL(fileURLToPath(new URL(`../../${name}/dist/index.js`, import.meta.url))).href;
    writeFileSync(
      script,
      `import { AgentHarness, definePlugin } from ${JSON.stringify(dist("core"))};
import bashPlugin from ${JSON.stringify(dist("tool-bash"))};
const harness = new AgentHarness({ cwd: ${JSON.stringify(ws)}, workspace: ${JSON.stringify(ws)} });
await harness.use(bashPlugin, { sandbox: "required", root: "host", env: { HOME: ${JSON.stringify(home)} } });
await harness.use(definePlugin({ name: "p", apply(h) { h.provideService("policy", {
  explain: async () => ({ decision: "allow", reason: "", tool: "bash", rules: [], parts: [] }),
  protectedPaths: async (root) => ({ denyRead: root === ${JSON.stringify(ws)} ? [${JSON.stringify(join(ws, ".env"))}] : [], denyWrite: [] }),
  deniedReads: async () => ({ paths: [${JSON.stringify(join(home, ".ssh"))}], unbounded: [] }),
}); } }));
const run = async (command) => (await harness.executeToolCalls([{ id: "1", name: "bash", arguments: { command } }]))[0];
const key = await run("cat ${alias}${home}/.ssh/id_rsa");
const notes = await run("cat ${alias}${home}/notes.txt");
const env = await run("cat ${alias}${ws}/.env; ls ${alias}${ws}");
console.log(JSON.stringify({ key: key.content[0].text, hidden: key.details.sandbox.hidden, notes: notes.content[0].text, env: env.content[0].text }));
await harness.dispose();
`,
    );
    const output = execFileSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", `mount --bind / "$1" && exec "$2" "$3"`, "sh", alias, process.execPath, script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const seen = JSON.parse(output) as { key: string; hidden: string[]; notes: string; env: string };
    // The other name works inside the sandbox (the notes read through it), and the key under it is hidden.
    expect(seen.notes).toBe("readable notes");
    expect(seen.key).not.toContain(KEY);
    expect(seen.hidden).toEqual(expect.arrayContaining([join(home, ".ssh"), join(alias, home, ".ssh"), join(ws, ".env"), join(alias, ws, ".env")]));
    // The workspace under the other name: listed, its denied file empty.
    expect(seen.env).toContain(".env");
    expect(seen.env).not.toContain(KEY);
  });
});

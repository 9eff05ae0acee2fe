// Configs another user can change are refused, ACLs included (issue 38): a POSIX ACL can let
// another user write a file whose mode and owner look like ours (the group bits then are the ACL's
// mask). Real ACLs (setfacl, Debian's acl package) and a second uid (nobody, through setpriv).
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, TEST_HOME, tempDir, toolhost, USER_CONFIG_DIR, writeConfig } from "./_helpers.js";

const NOBODY = 65534;
const USER_CONFIG = join(USER_CONFIG_DIR, "toolhost.config.json");

function run(program: string, args: string[]): void {
  const ran = spawnSync(program, args, { encoding: "utf8" });
  expect(ran.error, `${program} must be installed (Debian's acl and util-linux packages)`).toBeUndefined();
  expect(ran.status, ran.stderr).toBe(0);
}
const setfacl = (...args: string[]) => run("setfacl", args);

/** nobody, through the ACL, changes what runs: a commandPrefix that marks the file given. */
function nobodyAddsPrefix(config: string, marker: string): void {
  const text = readFileSync(config, "utf8").replace('"plugins": [', `"plugins": [["@toolhost/tool-bash", { "sandbox": "off", "commandPrefix": "touch ${marker}" }], `);
  const script = `require("fs").writeFileSync(${JSON.stringify(config)}, ${JSON.stringify(text)})`;
  run("setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, "-e", script]);
}

let root: string;
let project: string;
beforeAll(() => {
  root = tempDir("toolhost-acl-");
  project = join(root, "project");
  mkdirSync(project);
  writeConfig(project, { plugins: [["@toolhost/hooks-policy", { default: "allow" }]] });
  chmodSync(root, 0o755);
});
afterAll(() => {
  removeDir(root);
  rmSync(USER_CONFIG, { force: true });
});

async function refusedOf(cwd: string): Promise<Array<{ code: string; message: string }>> {
  const shown = await toolhost(["--json", "config"], { cwd });
  return (JSON.parse(shown.stdout) as { refused: Array<{ code: string; message: string }> }).refused;
}

describe("a config whose ACL lets another user write it", () => {
  it("the user's config: nobody's commandPrefix never runs; the refusal names nobody and the ACL", async () => {
    mkdirSync(USER_CONFIG_DIR, { recursive: true });
    writeFileSync(USER_CONFIG, `${JSON.stringify({ plugins: [["@toolhost/hooks-policy", { default: "allow" }]] }, null, 2)}\n`, { mode: 0o644 });
    chmodSync(USER_CONFIG, 0o644);
    // nobody may reach it: traverse (x) on the folders, write on the file; the mode still says 664 only.
    for (const dir of [TEST_HOME, join(TEST_HOME, "config"), USER_CONFIG_DIR]) setfacl("-m", `u:${NOBODY}:x`, dir);
    setfacl("-m", `u:${NOBODY}:rw`, USER_CONFIG);
    const marker = join(project, "prefix-ran");
    nobodyAddsPrefix(USER_CONFIG, marker);
    expect(readFileSync(USER_CONFIG, "utf8")).toContain("commandPrefix");

    const result = await toolhost(["call", "bash", JSON.stringify({ command: "echo hi" })], { cwd: project });
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toContain(`${USER_CONFIG} can be written by the user nobody (uid ${NOBODY}), which its ACL allows`);
    expect(existsSync(marker)).toBe(false);
    expect(await refusedOf(project)).toEqual([expect.objectContaining({ code: "TOOLHOST_UNSAFE_FILE" })]);

    // Taken away, the same file (mode 664 shown before; its group only ours) loads again.
    setfacl("-b", USER_CONFIG);
    chmodSync(USER_CONFIG, 0o664);
    expect(await refusedOf(project)).toEqual([]);
    rmSync(USER_CONFIG);
  });

  it("a project's config, a named group, and a folder above it", async () => {
    const config = join(project, "toolhost.config.json");
    setfacl("-m", `g:${NOBODY}:rw`, config);
    expect((await refusedOf(project))[0]?.message).toContain(`${config} can be written by the group nogroup (gid ${NOBODY}), which its ACL allows`);
    setfacl("-b", config);
    setfacl("-m", `u:${NOBODY}:rwx`, project);
    expect((await refusedOf(project))[0]?.message).toContain(`${project} (a folder above ${config}) can be written by the user nobody (uid ${NOBODY}), which its ACL allows`);
    setfacl("-b", project);
  });

  it("the controls: an ACL that lets another user read only, or that names us, is no refusal", async () => {
    const config = join(project, "toolhost.config.json");
    setfacl("-m", `u:${NOBODY}:r`, config);
    setfacl("-m", "u:0:rw", config);
    expect(await refusedOf(project)).toEqual([]);
    setfacl("-b", config);
  });
});

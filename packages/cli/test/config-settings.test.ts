import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, toolhost, trust, writeConfig } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  // Trusted by its user: commandPrefix and env run around every command, which only a trusted config may set.
  dir = trust(tempDir());
  writeConfig(dir, {
    plugins: [
      [
        "@toolhost/tool-bash",
        { commandPrefix: "export DEPLOY_KEY=sekrit-abc123", env: { MY_SETTING: "plain-value-7" }, writable: ["${workspace}", "/var/cache/thing"] },
      ],
      // After the bash plugin: its redaction still applies to what the bash plugin reported.
      ["@toolhost/hooks-policy", { extends: ["recommended"], redact: [{ pattern: "sekrit-[a-z0-9]+" }] }],
    ],
  });
});
afterEach(() => removeDir(dir));

describe("toolhost config: the settings each plugin runs with", () => {
  it("shows tool-bash's sandbox as decided at load, what it confines, and its command prefix redacted", async () => {
    const result = await toolhost(["config"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n {4}settings\n {6}sandbox {8}auto → bwrap \d+(\.\d+)+ \(\/\S*bwrap\)\n/);
    expect(result.stdout).toContain(`      writable       ${dir}, /var/cache/thing\n`);
    expect(result.stdout).toContain("      network        off\n");
    expect(result.stdout).toContain("      commandPrefix  export DEPLOY_KEY=[redacted]\n");
    // Variables by name only.
    expect(result.stdout).toContain("      env            MY_SETTING\n");
    expect(result.stdout).not.toContain("sekrit-abc123");
    expect(result.stdout).not.toContain("plain-value-7");
  });

  it("says why there is no sandbox and how to get one (bwrap not installed)", async () => {
    // A machine without bubblewrap: a private mount namespace where the system's bwrap is a file without an execute bit.
    const cover = join(dir, "no-bwrap");
    writeFileSync(cover, "", { mode: 0o644 });
    const prefix = ["unshare", "--mount", "--", "/bin/sh", "-c", 'mount --bind "$0" /usr/bin/bwrap && exec "$@"', cover];
    const result = await toolhost(["config"], { cwd: dir, prefix });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "      sandbox        auto → off: bubblewrap (bwrap) was not found in the system's folders (/usr/bin, /bin, /usr/sbin, /sbin, /usr/local/bin, root's and written by no one else; PATH is not searched, since a command can write a folder on it). Install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap;",
    );
    expect(result.stdout).toContain("      writable       not enforced (unsandboxed)\n");
    expect(result.stdout).toContain("      network        on: not enforced (unsandboxed)\n");
  });

  it("--json gives the same settings, redacted", async () => {
    const result = await toolhost(["--json", "config"], { cwd: dir });
    const shown = JSON.parse(result.stdout) as { plugins: Array<{ name: string; settings: Record<string, unknown> }> };
    const bash = shown.plugins.find((plugin) => plugin.name === "@toolhost/tool-bash");
    expect(bash?.settings).toMatchObject({
      sandbox: expect.stringMatching(/^auto → bwrap \d/),
      writable: [dir, "/var/cache/thing"],
      network: "off",
      commandPrefix: "export DEPLOY_KEY=[redacted]",
      env: ["MY_SETTING"],
    });
    expect(result.stdout).not.toContain("sekrit-abc123");
    // A plugin that reports nothing has no settings.
    expect(shown.plugins.find((plugin) => plugin.name === "@toolhost/hooks-policy")?.settings).toEqual({});
  });
});

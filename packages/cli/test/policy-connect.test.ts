// `toolhost policy explain <tool> --connect <destination>`: a connection explained as tool-bash's
// proxy asks about it (the name, then each address), through the built CLI and the real
// hooks-policy with `recommended`; a spelling the proxy refuses is refused here with its reason.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { project, removeDir, tempDir, toolhost, writeConfig } from "./_helpers.js";

let dir: string;
beforeEach(() => {
  dir = project(tempDir());
  writeConfig(dir, {
    plugins: [
      "@toolhost/tool-bash",
      [
        "@toolhost/hooks-policy",
        {
          extends: ["recommended"],
          rules: [
            { id: "registry", tool: "*", host: "registry.example", decision: "allow" },
            { id: "mirror", tool: "*", host: "10.0.0.5", decision: "allow" },
          ],
        },
      ],
    ],
  });
});
afterEach(() => removeDir(dir));

describe("toolhost policy explain --connect", () => {
  it("judges the name, then the address it resolves to: an allowed name at a private address is denied", async () => {
    const result = await toolhost(["policy", "explain", "bash", "--connect", "registry.example:443", "--address", "10.1.2.3"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe("connection CONNECT https://registry.example/, at 10.1.2.3");
    expect(lines[1]).toMatch(/^deny {2}bash: network CONNECT https:\/\/registry\.example\/ at 10\.1\.2\.3: denied by recommended › address loopback, link-local, private when sandboxed \(rules\[\d+\]\)/);
    expect(result.stdout).toMatch(/ {2}allow {2}network CONNECT https:\/\/registry\.example\/ .*\n {6}decided {3}allow registry/);
    expect(result.stdout).toContain("  deny  network CONNECT https://registry.example/ at 10.1.2.3");
    // A public address no rule names adds nothing: the name's allow stands.
    const public_ = await toolhost(["policy", "explain", "bash", "--connect", "registry.example:443", "--address", "93.184.216.34"], { cwd: dir });
    expect(public_.stdout).toContain("allow  bash: every part allowed (registry)");
    expect(public_.stdout).toContain("  allow  network CONNECT https://registry.example/ at 93.184.216.34  (no rule names the address: the decision on its name stands)");
  });

  it("localhost and every spelling of an address are this machine: denied, and nothing is looked up", async () => {
    const local = await toolhost(["policy", "explain", "bash", "--connect", "LocalHost:3000"], { cwd: dir });
    expect(local.stdout.split("\n")[0]).toBe("connection CONNECT https://localhost:3000/; not looked up: the name is refused first");
    expect(local.stdout).toContain("  deny  network CONNECT https://localhost:3000/ at 127.0.0.1");
    expect(local.stdout).toContain("  deny  network CONNECT https://localhost:3000/ at ::1");
    for (const destination of ["[::ffff:7f00:1]:22", "[::ffff:127.0.0.1]:22", "169.254.169.254:80"]) {
      const result = await toolhost(["--json", "policy", "explain", "bash", "--connect", destination], { cwd: dir });
      expect(JSON.parse(result.stdout), destination).toMatchObject({ decision: "deny", reason: expect.stringContaining("denied by recommended") });
    }
    const mirror = await toolhost(["--json", "policy", "explain", "bash", "--connect", "10.0.0.5:22"], { cwd: dir });
    expect(JSON.parse(mirror.stdout)).toMatchObject({ decision: "allow", rules: ["mirror"], connection: { method: "CONNECT", url: "https://10.0.0.5:22/", addresses: ["10.0.0.5"] } });
  });

  it("an http:// URL is a forwarded request with its method; a spelling the proxy refuses exits 2 with the reason", async () => {
    const request = await toolhost(["--json", "policy", "explain", "bash", "--connect", "http://registry.example/pkg?x=1#frag", "--method", "post", "--address", "93.184.216.34"], { cwd: dir });
    expect(JSON.parse(request.stdout)).toMatchObject({ decision: "allow", connection: { method: "POST", url: "http://registry.example/pkg?x=1", addresses: ["93.184.216.34"] } });
    const cases: Array<[string, string]> = [
      ["127.1:80", "write it as four decimal numbers (127.0.0.1)"],
      ["http://good.example@127.0.0.1/", "userinfo"],
      ["registry.example.:443", "ends with a dot"],
      ["[fe80::1%25lo]:80", "zone id"],
      ["registry.example", "names no port"],
      ["ftp://registry.example/", "not a ftp: URL"],
    ];
    for (const [destination, problem] of cases) {
      const result = await toolhost(["policy", "explain", "bash", "--connect", destination], { cwd: dir });
      expect(result.code, destination).toBe(2);
      expect(result.stderr, destination).toContain(problem);
    }
    const address = await toolhost(["policy", "explain", "bash", "--connect", "registry.example:443", "--address", "not-an-address"], { cwd: dir });
    expect(address.code).toBe(2);
    expect(address.stderr).toContain('--address "not-an-address" is no IP address');
  });
});

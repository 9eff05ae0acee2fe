// tool-bash's minimal root and network "proxy" as a user runs them: the built CLI, real bubblewrap,
// the real hooks-policy with an audit log, curl and npm inside the sandbox, servers on loopback.
// Without bwrap these tests fail ("required").
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, toolhost, writeConfig, trust } from "./_helpers.js";

let dir: string;
const servers: Server[] = [];
beforeEach(() => {
  // Network "proxy" widens what calls reach: the test's user trusts the project, as they would.
  dir = trust(tempDir());
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  removeDir(dir);
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/** tool-bash proxied, hooks-policy with an audit log: commands and writes allowed, `allowed` servers allowed, `denied` denied, the rest asked. */
function configWith(allowed: number[], denied: number[]): string {
  const audit = join(dir, "audit.jsonl");
  writeConfig(dir, {
    plugins: [
      ["@toolhost/tool-bash", { sandbox: "required", network: "proxy", timeout: 120 }],
      [
        "@toolhost/hooks-policy",
        {
          default: "ask",
          audit,
          rules: [
            { tool: "*", command: "*", decision: "allow" },
            { tool: "*", path: "**", decision: "allow" },
            ...allowed.flatMap((port) => [
              { tool: "*", url: `http://127.0.0.1:${port}/**`, decision: "allow" },
              { tool: "*", url: `https://127.0.0.1:${port}/**`, decision: "allow" },
            ]),
            ...denied.map((port) => ({ tool: "*", url: `http://127.0.0.1:${port}/**`, decision: "deny", reason: "not a server for commands" })),
          ],
        },
      ],
    ],
  });
  return audit;
}

const call = (command: string) => toolhost(["call", "bash", JSON.stringify({ command })], { cwd: dir });

describe("toolhost with tool-bash's proxied sandbox", { timeout: 180_000 }, () => {
  it("toolhost config shows the sandbox as it will run: the minimal root, what it reads, the proxy, the limits", async () => {
    configWith([], []);
    const result = await toolhost(["config"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("      root           minimal: the system folders read-only (/etc's secrets covered), a private /tmp, /dev, /proc, an empty home folder\n");
    expect(result.stdout).toMatch(/\n {6}readable {7}\/usr, \/etc\n/);
    expect(result.stdout).toContain("      network        proxy: each destination asked of the policy\n");
    expect(result.stdout).toMatch(/\n {6}limits {9}processes 4,096 processes \(cgroup v\d pids\.max[^\n]*fileSizeBytes 8 GiB \(setrlimit RLIMIT_FSIZE/);
  });

  it("curl reaches the server the policy allows and not the one it denies, and the audit log says so", async () => {
    const allowed = await listen((request, response) => response.end(`allowed ${request.url}\n`));
    let deniedRequests = 0;
    const denied = await listen((_request, response) => {
      deniedRequests += 1;
      response.end("should not be reached\n");
    });
    const audit = configWith([allowed], [denied]);
    const ok = await call(`curl -sS --noproxy '' http://127.0.0.1:${allowed}/page`);
    expect(ok.stdout, ok.stderr).toContain(`allowed /page`);
    const refused = await call(`curl -sS --noproxy '' http://127.0.0.1:${denied}/page`);
    expect(refused.stdout).toContain(`toolhost's proxy refused the connection to 127.0.0.1:${denied}: Blocked by @toolhost/hooks-policy`);
    expect(refused.stdout).toContain("not a server for commands");
    expect(deniedRequests).toBe(0);
    const lines = readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { decision: string; reason: string });
    expect(lines.filter((line) => line.reason.includes(`network GET http://127.0.0.1:${denied}/page`)).map((line) => line.decision)).toEqual(["deny"]);
    expect(lines.filter((line) => line.reason.includes(`network GET http://127.0.0.1:${allowed}/page`)).map((line) => line.decision)).toEqual(["allow"]);
  });

  it("npm install gets a package from a registry the policy allows", async () => {
    const tarball = packTinyPackage();
    const registry = await listen((request, response) => {
      if (request.url === "/tiny-toolhost-pkg") {
        response.setHeader("content-type", "application/json");
        return void response.end(JSON.stringify(metadata(registryPort, tarball)));
      }
      if (request.url === "/tiny-toolhost-pkg/-/tiny-toolhost-pkg-1.0.0.tgz") return void response.end(tarball);
      response.statusCode = 404;
      response.end("{}");
    });
    const registryPort = registry;
    configWith([registry], []);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true }));
    // The registry is on this machine's loopback: not covered by NO_PROXY for once (that is the sandbox's own).
    const result = await call(`NO_PROXY= no_proxy= npm install --no-audit --no-fund --registry http://127.0.0.1:${registry}/ tiny-toolhost-pkg && node -e "console.log(require('tiny-toolhost-pkg'))"`);
    expect(result.stdout, result.stderr).toContain("hello from the tiny package");
    expect(JSON.parse(readFileSync(join(dir, "node_modules", "tiny-toolhost-pkg", "package.json"), "utf8"))).toMatchObject({ version: "1.0.0" });
  });

  it("npm install fails with a clear message when the registry is not allowed", async () => {
    let requests = 0;
    const registry = await listen((_request, response) => {
      requests += 1;
      response.end("{}");
    });
    configWith([], [registry]);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true }));
    const result = await call(`NO_PROXY= no_proxy= npm install --no-audit --no-fund --fetch-retries=0 --registry http://127.0.0.1:${registry}/ tiny-toolhost-pkg`);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toContain(`[sandbox: the proxy refused 127.0.0.1:${registry}`);
    expect(requests).toBe(0);
  });
});

/** A package tarball (`package/package.json`, `package/index.js`), made with tar. */
function packTinyPackage(): Buffer {
  const source = join(dir, "pack", "package");
  mkdirSync(source, { recursive: true });
  writeFileSync(join(source, "package.json"), JSON.stringify({ name: "tiny-toolhost-pkg", version: "1.0.0", main: "index.js" }));
  writeFileSync(join(source, "index.js"), 'module.exports = "hello from the tiny package";\n');
  execFileSync("tar", ["czf", join(dir, "pack", "pkg.tgz"), "-C", join(dir, "pack"), "package"]);
  return readFileSync(join(dir, "pack", "pkg.tgz"));
}

function metadata(port: number, tarball: Buffer): unknown {
  const version = {
    name: "tiny-toolhost-pkg",
    version: "1.0.0",
    main: "index.js",
    dist: {
      tarball: `http://127.0.0.1:${port}/tiny-toolhost-pkg/-/tiny-toolhost-pkg-1.0.0.tgz`,
      shasum: createHash("sha1").update(tarball).digest("hex"),
      integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
    },
  };
  return { name: "tiny-toolhost-pkg", "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": version } };
}

// The minimal root (the default): only the system folders, the workspace and what the config adds
// exist inside. Real bubblewrap, real sockets and files; without bwrap these tests fail
// ("required" refuses every call).
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:net";
import { join } from "node:path";
import { AgentHarness, definePlugin } from "@toolhost/core";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin, { BashErrorCode } from "../src/index.js";
import { cleanupsAfterEach, runBash as bash, tempFolder } from "./_helpers.js";

let ws: string;
let outside: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  ws = realpathSync(tempFolder().dir);
  // Under /var/tmp: a place of this machine that the minimal root does not show.
  outside = realpathSync(mkdtempSync(join("/var/tmp", "tool-bash-minimal-")));
  cleanups.push(() => rmSync(ws, { recursive: true, force: true }), () => rmSync(outside, { recursive: true, force: true }));
});

async function harnessWith(options: Record<string, unknown> = {}): Promise<AgentHarness> {
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bashPlugin, { sandbox: "required", ...options });
  cleanups.push(() => harness.dispose());
  return harness;
}

/** A Unix socket server at `path` that answers "hello" and counts its connections. */
async function socketServer(path: string): Promise<{ connections: () => number }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { connections: () => count };
}

describe("the minimal root", { timeout: 90_000 }, () => {
  it("shows the system and the workspace, and nothing else of this machine: no other home, no /var, no /run, no /mnt", async () => {
    writeFileSync(join(outside, "file.txt"), "on the host\n");
    const harness = await harnessWith();
    const others = existsSync("/home") ? readdirSync("/home").map((name) => join("/home", name)) : [];
    const absent = ["/var", "/var/tmp", outside, "/run", "/mnt", "/home", "/srv", "/opt", ...others];
    const result = await bash(harness, `for p in ${absent.join(" ")}; do test -e "$p" && echo "present: $p"; done; echo checked; ls /; head -1 /etc/passwd | cut -d: -f1; echo ok > in-workspace.txt && cat in-workspace.txt`);
    expect(result.text.split("\n")[0]).toBe("checked");
    expect(result.text).not.toContain("present:");
    expect(result.text).toContain("usr");
    expect(result.text).toContain("root\nok");
    expect(result.details.sandbox).toMatchObject({ root: "minimal", network: "off", writable: [ws] });
    // This machine has what the sandbox hides.
    expect(existsSync("/var/tmp") && existsSync(join(outside, "file.txt"))).toBe(true);
  });

  it("gives an empty home folder, and brings only what readable names (~/.gitconfig)", async () => {
    const home = join(outside, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE KEY\n");
    writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Tester\n");
    writeFileSync(join(home, "notes.txt"), "notes\n");
    const bare = await harnessWith({ env: { HOME: home } });
    const empty = await bash(bare, 'echo "home=$HOME"; ls -A ~ | wc -l; echo made > ~/scratch && cat ~/scratch');
    expect(empty.text).toBe(`home=${home}\n0\nmade`);
    // What a call writes there goes with the call.
    expect(existsSync(join(home, "scratch"))).toBe(false);
    const brought = await harnessWith({ env: { HOME: home }, readable: ["~/.gitconfig"] });
    const result = await bash(brought, "git config --global user.name; ls -A ~; cat ~/.ssh/id_rsa; echo x >> ~/.gitconfig");
    expect(result.text).toContain("Tester\n.gitconfig\n");
    expect(result.text).toContain("No such file or directory");
    expect(result.text).toContain("Read-only file system");
    expect(result.text).not.toContain("PRIVATE KEY");
    expect(result.details.sandbox.readable).toContain(join(home, ".gitconfig"));
  });

  it("reaches no Unix socket of this machine: not one under /var/tmp, not one under /run", async () => {
    const run = process.getuid?.() === 0 ? "/run" : (process.env.XDG_RUNTIME_DIR ?? "/run");
    const paths = [join(outside, "service.sock"), join(run, `toolhost-test-${process.pid}-${Date.now()}.sock`)];
    const servers = [];
    for (const path of paths) {
      servers.push(await socketServer(path));
      cleanups.push(() => rmSync(path, { force: true }));
    }
    const harness = await harnessWith();
    for (const path of paths) {
      const result = await bash(harness, `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${path}'); print(s.recv(100))"`);
      expect(result.isError, result.text).toBe(true);
      expect(result.text).toContain("No such file or directory");
      expect(result.text).not.toContain("hello from the host");
    }
    expect(servers.map((server) => server.connections())).toEqual([0, 0]);
    // The sockets answer outside the sandbox: the test would see a reachable one.
    const { connect } = await import("node:net");
    const answer = await new Promise<string>((resolve) => connect(paths[0] as string).on("data", (data) => resolve(String(data))));
    expect(answer).toBe("hello from the host\n");
  });

  it("covers /etc's secret files: /etc/shadow reads as empty, and the result says why", async () => {
    expect(statSync("/etc/shadow").size).toBeGreaterThan(0);
    const harness = await harnessWith();
    const result = await bash(harness, "wc -c < /etc/shadow; cat /etc/shadow /etc/gshadow 2>&1 | wc -c; test -r /etc/passwd && echo passwd readable");
    expect(result.text.split("\n").slice(0, 3)).toEqual(["0", "0", "passwd readable"]);
    expect(result.text).toMatch(/\[sandbox: [^\]]*\/etc\/shadow\b[^\]]* hold this machine's secrets/);
    expect(result.details.sandbox.hidden).toEqual(expect.arrayContaining(["/etc/shadow", "/etc/gshadow"]));
  });

  it("declares what the call can reach for the policy: the root, the system folders readable, the network, the limits", async () => {
    const harness = await harnessWith({ readable: [outside] });
    const access = await harness.getTool("bash")?.access?.({ command: "make" }, { cwd: ws, workspace: ws });
    expect(access?.confinement).toMatchObject({ root: "minimal", writable: [ws], network: "off", hidesDeniedReads: false });
    expect(access?.confinement?.readable).toEqual(expect.arrayContaining(["/usr", "/etc", outside]));
    expect(access?.confinement?.limits).toMatchObject({ processes: 4096, fileSizeBytes: 8 * 1024 ** 3, cpuSeconds: 3600, openFiles: 16384 });
    expect(harness.getTool("bash")?.description).toContain("they see only the system folders");
  });

  it("runs a call whose folder is outside the workspace there, read-only, and declares it", async () => {
    mkdirSync(join(outside, "elsewhere"));
    writeFileSync(join(outside, "elsewhere", "data.txt"), "there\n");
    const harness = new AgentHarness({ cwd: join(outside, "elsewhere"), workspace: ws });
    await harness.use(bashPlugin, { sandbox: "required" });
    cleanups.push(() => harness.dispose());
    const result = await bash(harness, "pwd; cat data.txt; touch new.txt");
    expect(result.text).toContain(`${join(outside, "elsewhere")}\nthere\n`);
    expect(result.text).toContain("Read-only file system");
    expect(result.details.sandbox.readable).toContain(join(outside, "elsewhere"));
  });
});

describe("hard links in the workspace", { timeout: 90_000 }, () => {
  it("to a file outside: it reads as empty, the declared writable folders name its file system, and hardLinks: refuse refuses the call", async () => {
    writeFileSync(join(outside, "shared.txt"), "shared\n");
    linkSync(join(outside, "shared.txt"), join(ws, "linked.txt"));
    const declaring = await harnessWith();
    const access = await declaring.getTool("bash")?.access?.({ command: "true" }, { cwd: ws, workspace: ws });
    const reach = access?.confinement?.writable.filter((path) => path !== ws) ?? [];
    expect(reach.length).toBeGreaterThan(0);
    expect(reach.some((point) => outside === point || outside.startsWith(point === "/" ? "/" : `${point}/`))).toBe(true);
    const result = await bash(declaring, "cat linked.txt; echo x >> linked.txt");
    expect(result.text).not.toContain("shared");
    expect(result.text).toContain(`[sandbox: ${join(ws, "linked.txt")} is a hard link to a file outside what this call may read (not a package-store copy); here it reads as empty.]`);
    expect(result.details.sandbox.hardLinks).toMatchObject({ files: 1, examples: [join(ws, "linked.txt")], complete: true, hidden: [join(ws, "linked.txt")], storeCopies: 0 });
    expect(readFileSync(join(outside, "shared.txt"), "utf8")).toBe("shared\n");
    const refusing = await harnessWith({ hardLinks: "refuse" });
    const refused = await bash(refusing, "echo never");
    expect(refused.details.code).toBe(BashErrorCode.SANDBOX_FAILED);
    expect(refused.text).toContain(`1 files in ${ws} also have a name outside them (hard links, e.g. ${join(ws, "linked.txt")})`);
    expect(refused.text).toContain("package-import-method copy");
    expect(refused.text).not.toContain("never\n");
  });

  it("within the workspace only: nothing to declare", async () => {
    writeFileSync(join(ws, "a.txt"), "a\n");
    linkSync(join(ws, "a.txt"), join(ws, "b.txt"));
    const harness = await harnessWith({ hardLinks: "refuse" });
    const result = await bash(harness, "cat b.txt");
    expect(result.text).toBe("a");
    expect(result.details.sandbox.hardLinks).toBeUndefined();
  });

  it("to a file the policy denies to read, outside: its name in the workspace is covered, and the call runs", async () => {
    const secret = join(outside, "secret.key");
    writeFileSync(secret, "KEY_MATERIAL_77\n");
    linkSync(secret, join(ws, "copy.key"));
    const harness = await harnessWith();
    await harness.use(
      definePlugin({
        name: "test-policy",
        apply(h) {
          h.provideService("policy", {
            explain: async (request) => ({ decision: "allow", reason: "test", tool: request.tool, rules: [], parts: [] }),
            protectedPaths: async () => ({ denyRead: [], denyWrite: [] }),
            deniedReads: async () => ({ paths: [secret], unbounded: [] }),
          });
        },
      }),
    );
    const result = await bash(harness, "cat copy.key; echo done");
    expect(result.text).toContain("done");
    expect(result.text).not.toContain("KEY_MATERIAL_77");
    expect(result.details.sandbox.hidden).toContain(join(ws, "copy.key"));
  });
});

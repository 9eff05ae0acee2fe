import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { openSync, readlinkSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { messageOf } from "@toolhost/core";
import type { ConnectionJudge } from "./_judge.js";
import { serveConnection } from "./_server.js";

/**
 * Creates the listening socket inside the new network namespace, hands it to the parent, and
 * leaves: from then on the parent accepts the sandbox's connections itself, and holds the
 * namespace open (a descriptor of it, and the socket).
 */
const HOLDER = `
const server = require("node:net").createServer();
server.listen(0, "127.0.0.1", () => {
  process.send({ port: server.address().port, pid: process.pid }, server, () => server.close());
});
process.on("message", () => process.exit(0));
process.on("disconnect", () => process.exit(0));
`;

/** A call's place behind the proxy: the variables that point its programs at it, with its own credentials. */
export interface ProxyEntry {
  /** The variables that point the call's programs at the proxy. */
  env: Record<string, string>;
  /** Ends the call's connections and forgets its credentials. */
  release(): void;
}

/**
 * A network namespace with only a loopback, shared by the sandboxed calls of this process that
 * use network "proxy", and the proxy on its 127.0.0.1: a listening socket made inside the
 * namespace whose connections this process accepts, so no program forwards anything. Each call
 * gets credentials of its own (in the proxy URLs): a connection is judged for the call whose
 * credentials it carries, and refused without them.
 */
export class ProxyNetwork {
  readonly #server: Server;
  readonly #port: number;
  readonly #fds: { net: number; user: number | undefined };
  readonly #calls = new Map<string, ConnectionJudge>();

  private constructor(server: Server, port: number, fds: { net: number; user: number | undefined }) {
    this.#server = server;
    this.#port = port;
    this.#fds = fds;
    server.on("connection", (socket: Socket) => serveConnection(socket, (token) => this.#calls.get(token)));
    server.on("error", () => {});
    server.unref();
  }

  /** Makes the namespace (bwrap, which brings its loopback up) and takes its socket. */
  static async start(bwrap: string): Promise<ProxyNetwork> {
    // No --dev: a fresh /dev makes unprivileged bwrap nest a second user namespace, and the network
    // namespace would then belong to one no process is left in, which nsenter could not enter.
    const holder = spawn(bwrap, ["--ro-bind", "/", "/", "--unshare-net", "--die-with-parent", "--", process.execPath, "-e", HOLDER], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let said = "";
    holder.stderr?.on("data", (chunk: Buffer) => {
      said = `${said}${chunk.toString()}`.slice(-2000);
    });
    const got = await new Promise<{ port: number; pid: number; server: Server }>((resolve, reject) => {
      holder.once("message", (message: { port: number; pid: number }, server: unknown) => resolve({ ...message, server: server as Server }));
      holder.once("error", (error) => reject(new Error(`starting ${bwrap} failed: ${messageOf(error)}`)));
      holder.once("exit", (code) => reject(new Error(`${bwrap} exited with ${code} before the proxy's network was made${said ? `: ${said.trim()}` : ""}`)));
    });
    const net = openSync(`/proc/${got.pid}/ns/net`, "r");
    // Not root: the namespace belongs to bwrap's user namespace, which nsenter enters first.
    const sameUser = readlinkSync(`/proc/${got.pid}/ns/user`) === readlinkSync("/proc/self/ns/user");
    const user = sameUser ? undefined : openSync(`/proc/${got.pid}/ns/user`, "r");
    holder.send("done");
    holder.disconnect();
    holder.unref();
    return new ProxyNetwork(got.server, got.port, { net, user });
  }

  /** Registers a call: the proxy judges its connections with `judge`. */
  enter(judge: ConnectionJudge): ProxyEntry {
    const token = randomBytes(18).toString("base64url");
    this.#calls.set(token, judge);
    const http = `http://toolhost:${token}@127.0.0.1:${this.#port}`;
    const socks = `socks5h://toolhost:${token}@127.0.0.1:${this.#port}`;
    const noProxy = "localhost,127.0.0.1,::1";
    const env = {
      HTTP_PROXY: http,
      HTTPS_PROXY: http,
      ALL_PROXY: socks,
      NO_PROXY: noProxy,
      http_proxy: http,
      https_proxy: http,
      all_proxy: socks,
      no_proxy: noProxy,
    };
    return {
      env,
      release: () => {
        this.#calls.delete(token);
        judge.close();
      },
    };
  }

  /**
   * nsenter's arguments: the namespaces named through this process's own descriptors,
   * `/proc/<pid>/fd/<n>`, which a process of the same user may open while this process lives (a
   * child of this process, or another host's shell). No descriptor is handed down: bwrap would
   * pass it on to the sandboxed command.
   */
  nsenterArgs(): string[] {
    const { net, user } = this.#fds;
    const own = (fd: number): string => `/proc/${process.pid}/fd/${fd}`;
    if (user === undefined) return [`--net=${own(net)}`];
    return [`--user=${own(user)}`, `--net=${own(net)}`, "--preserve-credentials"];
  }

  /** For tests and benchmarks: the port inside the namespace. */
  get port(): number {
    return this.#port;
  }

  close(): void {
    this.#server.close();
  }
}

const networks = new Map<string, Promise<ProxyNetwork>>();

/** The proxy network of this process (one per bwrap), made at the first call that needs it; a failure is tried again at the next. */
export function proxyNetwork(bwrap: string): Promise<ProxyNetwork> {
  let network = networks.get(bwrap);
  if (!network) {
    network = ProxyNetwork.start(bwrap);
    networks.set(bwrap, network);
    network.catch(() => networks.delete(bwrap));
  }
  return network;
}

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, Option } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import type { Host } from "@toolhost/core/config";
import { watchHost } from "../_host-watch.js";
import { ExitCode } from "../_output.js";

interface ServeOptions {
  http?: string | true;
  tokenEnv?: string;
  /** false with --no-token (loopback only). */
  token: boolean;
  allowedHost?: string[];
  elicitation: boolean;
  printConfig?: "claude" | "codex" | "gemini" | "opencode";
}

const DEFAULT_PORT = 8765;
/** The variable that holds the HTTP server's bearer token when --token-env names no other. */
const TOKEN_ENV = "TOOLHOST_MCP_TOKEN";

/** `[host:]port` → host and port; the host defaults to 127.0.0.1. */
export function parseListen(value: string | true): { host: string; port: number } {
  if (value === true) return { host: "127.0.0.1", port: DEFAULT_PORT };
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || !(port >= 0 && port <= 65535)) {
    throw new UsageError(`--http ${JSON.stringify(value)} is not [host:]port. Examples: --http 8765, --http 127.0.0.1:8765.`);
  }
  const host = match[1]?.replace(/^\[(.*)\]$/, "$1") ?? "127.0.0.1";
  return { host, port };
}

export const mcp: CommandModule = {
  register(program: Command, cli: Cli) {
    const group = program.command("mcp").description("the Model Context Protocol: serve the config's tools to MCP clients");
    group
      .command("serve")
      .description("serve the tools of the config over MCP (stdio, or Streamable HTTP with --http); every call goes through the pipeline")
      .option("--http [host:port]", `serve Streamable HTTP at http://host:port/mcp (default 127.0.0.1:${DEFAULT_PORT})`)
      .option("--token-env <name>", `with --http: the environment variable that holds the bearer token every request must carry (default ${TOKEN_ENV}; without it, a token is made and shown once)`)
      .option("--no-token", "with --http on loopback only: take requests without a token (any local user can then run the tools)")
      .option("--allowed-host <name...>", "more host names to accept in the Host and Origin headers")
      .option("--no-elicitation", "never ask the client's user: refuse every call a policy would ask about")
      .addOption(
        new Option("--print-config <host>", "print the snippet an MCP host needs to use this server, and exit").choices([
          "claude",
          "codex",
          "gemini",
          "opencode",
        ]),
      )
      .addHelpText(
        "after",
        `
Over stdio (the default) an MCP host starts this command and speaks on its stdin and stdout.
Calls a policy answers with "ask" are put to the client's user when the client supports
elicitation (default no); otherwise they are refused with the reason.

Examples:
  toolhost mcp serve --print-config claude
  TOOLHOST_MCP_TOKEN=secret toolhost mcp serve --http 127.0.0.1:8765
  MY_TOKEN=secret toolhost mcp serve --http 0.0.0.0:8765 --token-env MY_TOKEN

Over HTTP every request needs Authorization: Bearer <token>, on every address (loopback too):
the token is $TOOLHOST_MCP_TOKEN (or the variable --token-env names), else one made for this run
and shown once. --print-config with --http prints a client config that sends it.`,
      )
      .action(cli.action((options: ServeOptions) => serve(cli, options)));
  },
};

async function serve(cli: Cli, options: ServeOptions): Promise<number> {
  const listen = options.http === undefined ? undefined : parseListen(options.http);
  if (options.printConfig) return printConfig(cli, options.printConfig, listen, options.token ? (options.tokenEnv ?? TOKEN_ENV) : undefined);
  const token = listen && options.token ? tokenOf(options.tokenEnv) : undefined;
  const server = await mcpServer();
  const host = await cli.host();
  refuseWhenStale(host, cli.globals.cwd, cli.globals.config);
  const allowHint = host.configPath
    ? `add an allow rule for this call to the policy in ${host.configPath}`
    : `create a config with "toolhost init" and add an allow rule for this call to its policy`;
  const serveOptions = { name: "toolhost", version: cliVersion(), elicitation: options.elicitation, allowHint };
  const interrupted = cli.interruptSignal();
  const running = listen
    ? await server.serveToolsOverHttp(host.harness, {
        ...serveOptions,
        ...listen,
        ...(token !== undefined ? { token: token.token } : {}),
        ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
      })
    : server.serveToolsOverStdio(host.harness, serveOptions);
  if ("url" in running) {
    await cli.note(`serving ${host.harness.tools.length} tools at ${running.url} (Ctrl-C stops)`);
    await cli.note(token === undefined ? "serving without a token (--no-token): any local user can run these tools." : tokenNote(token));
  }
  await Promise.race([running.closed, new Promise((resolve) => interrupted.addEventListener("abort", resolve, { once: true }))]);
  await running.close();
  return ExitCode.OK;
}

/**
 * The server keeps the host it started with: the MCP server holds its harness and has told the
 * client its tools. When a file the host was made from changes (an edited config or policy file, a
 * reinstalled plugin, a config created nearer), calls are refused until a restart: judging them by
 * rules the user has since changed would be wrong either way (a tightened rule not applied, a
 * loosened one not seen).
 */
function refuseWhenStale(host: Host, cwd: string, configPath: string | undefined): void {
  const watch = watchHost(host, cwd, configPath);
  // Calls read in one turn of the event loop arrived together, before anything here ran: one look
  // at the files serves them all (a client with many calls in flight paid the stats for each).
  let seen: { changed: string | undefined } | undefined;
  host.harness.hooks.beforeToolCall.tap({ name: "toolhost mcp serve", stage: FIRST }, () => {
    if (seen === undefined) {
      seen = { changed: watch.changed() };
      setImmediate(() => {
        seen = undefined;
      });
    }
    const { changed } = seen;
    if (changed === undefined) return undefined;
    return {
      block: true,
      reason: `toolhost mcp serve loaded its config when it started, and ${changed} since, so the call is refused: restart the server (reconnect the client) to use what changed.`,
    };
  });
}

/** Before every other tap: a stale config decides nothing. */
const FIRST = -1_000_000;

/**
 * `@toolhost/mcp-server`, an optional peer: only `toolhost mcp serve` needs it (and the MCP SDK it
 * brings), so the CLI stays small for everyone else.
 */
async function mcpServer(): Promise<typeof import("@toolhost/mcp-server")> {
  try {
    return await import("@toolhost/mcp-server");
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND" || !String((error as Error).message).includes("@toolhost/mcp-server")) throw error;
    throw new UsageError(
      `toolhost mcp serve needs @toolhost/mcp-server, which is not installed next to the toolhost CLI. Install it: npm i -D @toolhost/mcp-server`,
    );
  }
}

/**
 * The HTTP server's bearer token: the variable --token-env names (which must be set), else
 * TOOLHOST_MCP_TOKEN, else a random one made for this run.
 */
function tokenOf(name: string | undefined): { token: string; from: string } {
  if (name !== undefined) {
    const token = process.env[name];
    if (!token) throw new UsageError(`--token-env ${name}: the environment variable ${name} is not set or empty. Set it to the bearer token.`);
    return { token, from: `$${name}` };
  }
  const given = process.env[TOKEN_ENV];
  if (given) return { token: given, from: `$${TOKEN_ENV}` };
  return { token: randomBytes(32).toString("base64url"), from: "new" };
}

function tokenNote(token: { token: string; from: string }): string {
  if (token.from !== "new") return `every request needs Authorization: Bearer <the token in ${token.from}>.`;
  return `every request needs Authorization: Bearer ${token.token} (a token made for this run, shown once; set ${TOKEN_ENV} to choose one that lasts).`;
}

/**
 * The snippet an MCP host's config needs, on stdout as it goes in the file (valid JSON, or TOML for
 * Codex), and where it goes on stderr (a comment would make the JSON invalid). The command names
 * the config with `-c` (the folder with `-C`): the MCP Inspector takes `--config` as its own option,
 * so `--config` in a server's arguments would never reach toolhost when run under it.
 */
async function printConfig(
  cli: Cli,
  client: NonNullable<ServeOptions["printConfig"]>,
  listen: { host: string; port: number } | undefined,
  tokenEnv: string | undefined,
): Promise<number> {
  const { clientConfig } = await mcpServer();
  const { findConfig } = await import("@toolhost/core/config");
  const { config, cwd } = cli.globals;
  let snippet: string;
  if (listen) {
    const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
    snippet = clientConfig(client, { url: `http://${host}:${listen.port}/mcp`, ...(tokenEnv ? { tokenEnv } : {}) });
  } else {
    const found = await findConfig({ cwd, ...(config !== undefined ? { configPath: config } : {}) });
    const bin = resolve(fileURLToPath(new URL("../bin.js", import.meta.url)));
    snippet = clientConfig(client, { command: process.execPath, args: [bin, ...(found ? ["-c", found.path] : ["-C", cwd]), "mcp", "serve"] });
  }
  const [first = "", ...rest] = snippet.split("\n");
  const comment = /^(\/\/|#) ?(.*)$/.exec(first);
  if (comment) await cli.note(`put this in ${comment[2]}`);
  await cli.out(comment ? rest.join("\n") : snippet);
  return ExitCode.OK;
}

/** The version of @toolhost/cli, for the server's `initialize` answer. */
function cliVersion(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import { ExitCode } from "../_output.js";
import { parseListen } from "./mcp.js";

const DEFAULT_PORT = 8780;

interface ServeOptions {
  http?: string;
  allowedHost?: string[];
  tokenEnv?: string;
}

export const approvals: CommandModule = {
  register(program: Command, cli: Cli) {
    const group = program
      .command("approvals")
      .description("a local approvals page: the asks of every toolhost process set to ask through it (@toolhost/approvals in a config), answered in a browser");
    group
      .command("serve")
      .description("serve the approvals page on 127.0.0.1, and print its address with its token")
      .option("--http <[host:]port>", `where to listen (default 127.0.0.1:${DEFAULT_PORT})`)
      .option("--allowed-host <name...>", "more host names to accept in the Host and Origin headers (a page on another address)")
      .option("--token-env <name>", "the environment variable that holds the page's token (default: a token made for this run, printed once in the address)")
      .addHelpText(
        "after",
        `
Processes whose config names "@toolhost/approvals" ask through the page when they have no one to
ask: toolhost call, run and agent without a terminal (a queue host's routed calls too), mcp serve
for a client that cannot elicit, toolhost hook --on-ask page, and AI SDK applications that say so.
The page's address and pid are kept in approvals-page.json in your config folder (mode 600)
while it runs, with a token that lets a process put asks on the page and nothing else. The page's
own token, which shows and answers them, is in the address printed once, and on no disk: a process
that can read your files (a model's unconfined command) can ask, never answer.`,
      )
      .action(cli.action((options: ServeOptions) => serve(cli, options)));
  },
};

/** `@toolhost/approvals`, an optional peer: only the page's own commands need it. */
async function approvalsPackage(): Promise<typeof import("@toolhost/approvals/page")> {
  try {
    return await import("@toolhost/approvals/page");
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND" || !String((error as Error).message).includes("@toolhost/approvals")) throw error;
    throw new UsageError("toolhost approvals needs @toolhost/approvals, which is not installed next to the toolhost CLI. Install it: npm i -D @toolhost/approvals");
  }
}

async function serve(cli: Cli, options: ServeOptions): Promise<number> {
  const listen = parseListen(options.http ?? String(DEFAULT_PORT));
  const { pageFilePath, readPageFile, serveApprovals } = await approvalsPackage();
  const file = pageFilePath();
  const running = readPageFile(file);
  if (running !== undefined) {
    throw new UsageError(`An approvals page is running already at ${running.url} (pid ${running.pid}): open the address it printed, or stop it to start another.`);
  }
  const { pageRules } = await import("../approvals/page-rules.js");
  const page = await serveApprovals({
    ...listen,
    token: pageToken(options.tokenEnv),
    askerToken: randomBytes(32).toString("base64url"),
    file,
    rules: pageRules,
    ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
  });
  // The address with its token, once, on standard output: no file keeps the page's token, no log line names it.
  await cli.out(`${page.openUrl}\n`);
  await cli.note(`the approvals page is at ${page.url}: open the address above (it holds the page's token). Ctrl-C stops it; its asks are then refused.`);
  await new Promise<void>((resolve) => cli.interruptSignal().addEventListener("abort", () => resolve(), { once: true }));
  await page.close();
  return ExitCode.OK;
}

/** The page's token: the variable `--token-env` names (set and not empty), else one made for this run. */
function pageToken(name: string | undefined): string {
  if (name === undefined) return randomBytes(32).toString("base64url");
  const token = process.env[name];
  if (!token) throw new UsageError(`--token-env ${name}: the environment variable ${name} is not set or empty. Set it to the page's token.`);
  return token;
}

import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import { ExitCode } from "../_output.js";
import { parseListen } from "./mcp.js";

const DEFAULT_PORT = 8780;

interface ServeOptions {
  http?: string;
  allowedHost?: string[];
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
      .addHelpText(
        "after",
        `
Processes whose config names "@toolhost/approvals" ask through the page when they have no one to
ask: toolhost call, run and agent without a terminal (a queue host's routed calls too), mcp serve
for a client that cannot elicit, toolhost hook --on-ask page, and AI SDK applications that say so.
The page's address, token and pid are kept in approvals-page.json in your config folder (mode 600)
while it runs; "toolhost approvals url" prints the address again. Every request needs the token.`,
      )
      .action(cli.action((options: ServeOptions) => serve(cli, options)));
    group
      .command("url")
      .description("print the running approvals page's address, with its token, to open in a browser")
      .action(cli.action(() => printUrl(cli)));
  },
};

/** `@toolhost/approvals`, an optional peer: only the page's own commands need it. */
async function approvalsPackage(): Promise<typeof import("@toolhost/approvals")> {
  try {
    return await import("@toolhost/approvals");
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
    throw new UsageError(`An approvals page is running already at ${running.url} (pid ${running.pid}); "toolhost approvals url" prints its address with the token. Stop it first to start another.`);
  }
  const { pageRules } = await import("../approvals/page-rules.js");
  const page = await serveApprovals({
    ...listen,
    token: randomBytes(32).toString("base64url"),
    file,
    rules: pageRules,
    ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
  });
  // The address with its token, once, on standard output: the page file keeps it for "approvals url"; no log line names it.
  await cli.out(`${page.openUrl}\n`);
  await cli.note(`the approvals page is at ${page.url}: open the address above (it holds the page's token). Ctrl-C stops it; its asks are then refused.`);
  await new Promise<void>((resolve) => cli.interruptSignal().addEventListener("abort", () => resolve(), { once: true }));
  await page.close();
  return ExitCode.OK;
}

async function printUrl(cli: Cli): Promise<number> {
  const { pageFilePath, readPageFile } = await approvalsPackage();
  const file = pageFilePath();
  const page = readPageFile(file);
  if (page === undefined) throw new UsageError(`No approvals page is running (${file} names none). Start one: toolhost approvals serve`);
  await cli.out(`${page.url}?token=${encodeURIComponent(page.token)}\n`);
  return ExitCode.OK;
}

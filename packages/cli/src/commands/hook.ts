import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import { SERVER_ENV } from "../hook/args.js";
import { ExitCode } from "../_output.js";

/** The hook's bundled entry (dist/_hook-command.js, see build.mjs), which finds the in-process path beside it. */
const HOOK_COMMAND = "../_hook-command.js";

const HOSTS = ["claude-code", "gemini"] as const;
type HostId = (typeof HOSTS)[number];

function hostId(text: string): HostId {
  if ((HOSTS as readonly string[]).includes(text)) return text as HostId;
  throw new UsageError(`Unknown agent host "${text}": toolhost hook knows ${HOSTS.join(" and ")}.`);
}

export const hook: CommandModule = {
  register(program: Command, cli: Cli) {
    const group = program
      .command("hook")
      .description("decide other agents' tool calls with this config's policy (Claude Code, Gemini CLI hooks)");
    for (const id of HOSTS) registerHost(group, cli, id);
    registerServe(group, cli);
    registerInstall(group, cli);
  },
};

/** `toolhost hook claude-code|gemini`: one payload on standard input (bin.ts takes a faster path to the same). */
function registerHost(group: Command, cli: Cli, id: HostId): void {
  group
    .command(id)
    .description(`answer one ${id === "claude-code" ? "Claude Code PreToolUse" : "Gemini CLI BeforeTool"} hook payload read on standard input`)
    .option("--on-allow <mode>", 'on allow: "defer" to the host\'s own permissions (default) or "allow" outright', "defer")
    .option("--server <url>", `ask a running \`toolhost hook serve\` at this URL (default: $${SERVER_ENV}); decides here when it cannot be used`)
    .action(async (options: { onAllow: string; server?: string }) => {
      // Reached only through commander (e.g. after global options); bin.ts takes the fast path.
      const { runHookCommand } = (await import(HOOK_COMMAND)) as typeof import("../hook/command.js");
      const { config } = cli.globals;
      cli.exitCode = await runHookCommand(id, [
        "--on-allow",
        options.onAllow,
        ...(options.server !== undefined ? ["--server", options.server] : []),
        ...(config !== undefined ? ["--config", config] : []),
      ]);
    });
}

function registerServe(group: Command, cli: Cli): void {
  group
    .command("serve")
    .description("answer hook payloads over HTTP (Claude Code's http hooks): POST /claude-code, POST /gemini")
    .requiredOption("--http <[host:]port>", "where to listen; 127.0.0.1 unless a host is given")
    .option("--token <token>", "require Authorization: Bearer <token> (default: $TOOLHOST_HOOK_TOKEN); needed beyond loopback")
    .option("--on-allow <mode>", 'on allow: "defer" (default) or "allow"', "defer")
    .action(
      cli.action(async (options: { http: string; token?: string; onAllow: string }) => {
        const { parseListen, serveHooks } = await import("../hook/serve.js");
        if (options.onAllow !== "defer" && options.onAllow !== "allow") throw new UsageError(`--on-allow takes "defer" or "allow", not "${options.onAllow}".`);
        const listen = parseListen(options.http);
        const token = options.token ?? process.env.TOOLHOST_HOOK_TOKEN;
        const server = await serveHooks({ ...listen, token, config: cli.globals.config, onAllow: options.onAllow });
        const address = server.address();
        const port = typeof address === "object" && address ? address.port : listen.port;
        const shown = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
        await cli.out(`toolhost hook server on http://${shown}:${port} (POST /claude-code, /gemini)\n`);
        await new Promise<void>((resolve) => {
          const signal = cli.interruptSignal();
          signal.addEventListener("abort", () => server.close(() => resolve()), { once: true });
        });
        return ExitCode.OK;
      }),
    );
}

interface InstallOptions {
  project?: boolean;
  user?: boolean;
  write?: boolean;
  yes?: boolean;
  server?: string;
  httpHook?: boolean;
}

function registerInstall(group: Command, cli: Cli): void {
  group
    .command("install")
    .description("add toolhost's hook to Claude Code's or Gemini CLI's settings, keeping what is there")
    .argument("<host>", HOSTS.join(" | "))
    .option("--project", "the project's settings (.claude/settings.json, .gemini/settings.json) (default)")
    .option("--user", "your user settings (~/.claude/settings.json, ~/.gemini/settings.json)")
    .option("--write", "write the file (asks first on a terminal; give --yes without one); default: print it")
    .option("-y, --yes", "with --write: do not ask")
    .option("--server <url>", "the hook forwards each call to this running `toolhost hook serve` (deciding itself when it cannot be used)")
    .option("--http-hook", "with --server, Claude Code only: its own http hook posts to the server, no process per call (a call goes ahead when the server is down)")
    .action(cli.action((hostText: string, options: InstallOptions) => install(cli, hostId(hostText), options)));
}

/** Adds the hook to the host's settings: printed, or written after a yes. */
async function install(cli: Cli, host: HostId, options: InstallOptions): Promise<number> {
  const { hookHandler, mergeSettings, readSettings, settingsPath, writeSettings } = await import("../hook/install.js");
  if (options.project && options.user) throw new UsageError("Give --project or --user, not both.");
  const scope = options.user ? "user" : "project";
  const handler = hookHandler(host, scope, options.server, options.httpHook === true);
  const file = settingsPath(host, scope, cli.globals.cwd);
  const { settings, changed } = mergeSettings(await readSettings(file), host, handler, file);
  if (!changed) {
    await cli.note(`${file} already runs toolhost's ${host} hook; nothing to change. To change its form (--server, --http-hook), edit or remove that entry first.`);
    return ExitCode.OK;
  }
  if (handler.type === "http") {
    await cli.note(`Claude Code lets a call through when its http hook gets no answer: keep \`toolhost hook serve\` running at ${options.server}, or install without --http-hook (the command decides itself when the server is down).`);
  }
  const text = `${JSON.stringify(settings, null, 2)}\n`;
  if (!options.write) {
    await cli.out(text);
    await cli.note(`This is ${file} with toolhost's hook added. Run again with --write to write it.`);
    return ExitCode.OK;
  }
  if (!options.yes && !(await confirmed(cli, file))) {
    await cli.note("Nothing written.");
    return ExitCode.REFUSED;
  }
  await writeSettings(file, settings);
  await cli.note(`Wrote ${file}.`);
  return ExitCode.OK;
}

async function confirmed(cli: Cli, file: string): Promise<boolean> {
  if (!cli.interactive) throw new UsageError(`Writing ${file} needs a yes: run on a terminal to be asked, or add --yes.`);
  const { confirm, isCancel } = await import("@clack/prompts");
  const answer = await confirm({ message: `Add toolhost's hook to ${file}?`, initialValue: false });
  return !isCancel(answer) && answer === true;
}

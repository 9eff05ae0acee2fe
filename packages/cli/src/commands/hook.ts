import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import { DEFAULT_HOOK_TIMEOUT, SERVER_ENV } from "../hook/args.js";
import { TOKEN_ENV, tokenFile } from "../hook/token.js";
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
    .option("--on-ask <mode>", 'on ask: "host" hands it to the host, which asks its user (default); "page" asks on the approvals page (toolhost approvals serve) and answers allow or deny, for a headless host')
    .option("--timeout <seconds>", "the host's timeout for this hook: an ask on the approvals page ends shortly before it (default 30, as toolhost hook install writes)")
    .option("--no-confine", "answer an allowed shell call as it is, to run unconfined (default: rewritten to run in toolhost's sandbox)")
    .action(async (options: { onAllow: string; server?: string; onAsk?: string; timeout?: string; confine: boolean }) => {
      // Reached only through commander (e.g. after global options); bin.ts takes the fast path.
      const { runHookCommand } = (await import(HOOK_COMMAND)) as typeof import("../hook/command.js");
      const { config } = cli.globals;
      cli.exitCode = await runHookCommand(id, [
        "--on-allow",
        options.onAllow,
        ...(options.server !== undefined ? ["--server", options.server] : []),
        ...(options.onAsk !== undefined ? ["--on-ask", options.onAsk] : []),
        ...(options.timeout !== undefined ? ["--timeout", options.timeout] : []),
        ...(config !== undefined ? ["--config", config] : []),
        ...(options.confine ? [] : ["--no-confine"]),
      ]);
    });
}

function registerServe(group: Command, cli: Cli): void {
  group
    .command("serve")
    .description("answer hook payloads over HTTP (Claude Code's http hooks): POST /claude-code, POST /gemini; every request needs the token")
    .requiredOption("--http <[host:]port>", "where to listen; 127.0.0.1 unless a host is given")
    .option("--token <token>", `the bearer token every request must carry (default: $${TOKEN_ENV}, else the token file, made on the first start)`)
    .option("--no-token", "on loopback only: take requests without a token (any local user can then send calls to judge)")
    .option("--on-allow <mode>", 'on allow: "defer" (default) or "allow"', "defer")
    .option("--no-confine", "answer allowed shell calls as they are, to run unconfined (default: rewritten to run in toolhost's sandbox; a request's ?confine=off does this for its call)")
    .option("--on-ask <mode>", 'on ask: "host" hands it back to the host (default); "page" asks on the approvals page; a request\'s ?on-ask= overrides it (the forwarding hook sends its --on-ask)')
    .option("--timeout <seconds>", "asking on the page: the hosts' timeout for a hook, when a request does not say (?timeout-ms=); the ask ends shortly before it (default 30)")
    .action(
      cli.action(async (options: { http: string; token?: string | false; onAllow: string; confine: boolean; onAsk?: string; timeout?: string }) => {
        const { parseListen, serveHooks } = await import("../hook/serve.js");
        const { serverToken } = await import("../hook/token.js");
        if (options.onAllow !== "defer" && options.onAllow !== "allow") throw new UsageError(`--on-allow takes "defer" or "allow", not "${options.onAllow}".`);
        const asking = askingOptions(options.onAsk, options.timeout);
        const listen = parseListen(options.http);
        const token = options.token === false ? undefined : serverToken(options.token);
        const server = await serveHooks({ ...listen, token: token?.token ?? false, config: cli.globals.config, onAllow: options.onAllow, confine: options.confine, ...asking });
        const address = server.address();
        const port = typeof address === "object" && address ? address.port : listen.port;
        const shown = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
        await cli.out(`toolhost hook server on http://${shown}:${port} (POST /claude-code, /gemini)\n`);
        if (token) await cli.note(tokenNote(token));
        else await cli.note("serving without a token (--no-token): any local user can send calls for this server to judge.");
        await new Promise<void>((resolve) => {
          const signal = cli.interruptSignal();
          signal.addEventListener("abort", () => server.close(() => resolve()), { once: true });
        });
        return ExitCode.OK;
      }),
    );
}

/** `--on-ask` and `--timeout` of `hook serve` and `hook install`. */
function askingOptions(onAsk: string | undefined, timeout: string | undefined): { onAsk: "host" | "page"; timeoutSeconds: number } {
  if (onAsk !== undefined && onAsk !== "host" && onAsk !== "page") throw new UsageError(`--on-ask takes "host" or "page", not "${onAsk}".`);
  const seconds = Number(timeout ?? DEFAULT_HOOK_TIMEOUT);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400) throw new UsageError(`--timeout takes the host's timeout for the hook in whole seconds (1 to 86400), not "${timeout}".`);
  return { onAsk: onAsk ?? "host", timeoutSeconds: seconds };
}

/** Where the server's token is, and how each client gets it; the token itself only when it was just made. */
function tokenNote(token: { token: string; source: string; file: string }): string {
  const clients = `The forwarding hook (toolhost hook <host> --server) sends $${TOKEN_ENV}, else the token in ${token.file}; Claude Code's http hook sends $${TOKEN_ENV} (export it where Claude Code starts).`;
  if (token.source === "new file") return `a new token for this server is in ${token.file} (readable by you alone): ${token.token}\n${clients}`;
  const from = token.source === "option" ? "--token" : token.source === "environment" ? `$${TOKEN_ENV}` : token.file;
  return `every request needs the token from ${from}. ${clients}`;
}

interface InstallOptions {
  project?: boolean;
  user?: boolean;
  write?: boolean;
  yes?: boolean;
  server?: string;
  httpHook?: boolean;
  onAsk?: string;
  timeout?: string;
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
    .option("--on-ask <mode>", '"page": the hook asks on the approvals page (toolhost approvals serve) instead of handing the ask back, for a headless host; default "host"')
    .option("--timeout <seconds>", "the host's timeout for the hook, written in its entry (and given to the hook, which ends an ask on the page shortly before it); default 30")
    .action(cli.action((hostText: string, options: InstallOptions) => install(cli, hostId(hostText), options)));
}

/** Adds the hook to the host's settings (and the config it needs, when the project has none): printed, or written after a yes. */
async function install(cli: Cli, host: HostId, options: InstallOptions): Promise<number> {
  const { hookHandler, mergeSettings, readSettings, settingsPath, writeSettings } = await import("../hook/install.js");
  const { planHookConfig } = await import("../hook/install-config.js");
  if (options.project && options.user) throw new UsageError("Give --project or --user, not both.");
  const scope = options.user ? "user" : "project";
  const asking = askingOptions(options.onAsk, options.timeout);
  const handler = hookHandler(host, scope, options.server, options.httpHook === true, asking);
  const file = settingsPath(host, scope, cli.globals.cwd);
  const { settings, changed } = mergeSettings(await readSettings(file), host, handler, file);
  // The hook must find a config with a policy where it runs, or it would refuse every call.
  const { create, notes } = await planHookConfig(cli.globals.cwd, cli.globals.config, scope);
  for (const note of notes) await cli.note(note);
  if (!changed && create === undefined) {
    await cli.note(`${file} already runs toolhost's ${host} hook; nothing to change. To change its form (--server, --http-hook, --on-ask, --timeout), edit or remove that entry first.`);
    return ExitCode.OK;
  }
  if (handler.type === "http") {
    await cli.note(`Claude Code lets a call through when its http hook gets no answer: keep \`toolhost hook serve\` running at ${options.server}, or install without --http-hook (the command decides itself when the server is down).`);
  }
  if (options.server !== undefined) await cli.note(tokenHint(handler.type));
  if (asking.onAsk === "page") {
    await cli.note(
      `The hook asks on the approvals page, waiting up to ${asking.timeoutSeconds} s (--timeout) less 2 s: name "@toolhost/approvals" in a config of this project or in yours, and keep \`toolhost approvals serve\` running (an ask is refused while none runs).`,
    );
  }
  const created = create ? `\n${create.file} does not exist; the hook needs a config with a policy, so this is written too:\n${create.text}` : "";
  if (!options.write) {
    if (changed) await cli.out(`${JSON.stringify(settings, null, 2)}\n`);
    await cli.note(`${changed ? `This is ${file} with toolhost's hook added.` : `${file} already runs toolhost's ${host} hook.`}${created} Run again with --write to write it.`);
    return ExitCode.OK;
  }
  if (!options.yes && !(await confirmed(cli, create ? `${file} and ${create.file}` : file))) {
    await cli.note("Nothing written.");
    return ExitCode.REFUSED;
  }
  if (create) {
    await writeFile(create.file, create.text, { flag: "wx" });
    // What the installed packages ship (docs/ is the repository's, not in any package).
    await cli.note(`Wrote ${create.file}: the policy the hook decides with. "toolhost policy rules" lists its rules; node_modules/@toolhost/hooks-policy/README.md says how to change them.`);
  }
  if (changed) {
    await writeSettings(file, settings);
    await cli.note(`Wrote ${file}.`);
  }
  return ExitCode.OK;
}

/** Where the hook's token comes from, for the form installed. */
function tokenHint(type: "command" | "http"): string {
  if (type === "http") {
    return `\`toolhost hook serve\` needs a token on every request: Claude Code's http hook sends $${TOKEN_ENV} (set it where Claude Code starts, e.g. export ${TOKEN_ENV}="$(cat ${tokenFile()})").`;
  }
  return `\`toolhost hook serve\` needs a token on every request: the forwarding hook sends $${TOKEN_ENV}, else the token file the server made (${tokenFile()}), which it reads as you.`;
}

async function confirmed(cli: Cli, file: string): Promise<boolean> {
  if (!cli.interactive) throw new UsageError(`Writing ${file} needs a yes: run on a terminal to be asked, or add --yes.`);
  const { confirm, isCancel } = await import("@clack/prompts");
  const { promptOutput } = await import("../_plain-stream.js");
  const answer = await confirm({ message: `Add toolhost's hook to ${file}?`, initialValue: false, output: promptOutput(process.stdout) });
  return !isCancel(answer) && answer === true;
}

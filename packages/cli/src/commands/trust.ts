import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import { ExitCode } from "../_output.js";

interface TrustOptions {
  list?: boolean;
  remove?: boolean;
}

export const trust: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("trust")
      .description("trust a folder to run code from: its JS/TS config, plugins by path, the packages installed there, its MCP servers")
      .argument("[folder]", "the folder (default: the project's: the folder of the config found from the working directory, else the working directory)")
      .option("--list", "list the folders you trust")
      .option("--remove", "stop trusting the folder")
      .addHelpText(
        "after",
        `
A project's toolhost.config.json or .yaml is read wherever it is; what runs code is loaded only
from a folder you trust (and each folder below it). Trust is yours alone: it is kept in your
config folder ($XDG_CONFIG_HOME/toolhost, or ~/.config/toolhost), and a folder another user owns
or can write is never trusted. "toolhost config" shows whether this project is trusted;
node_modules/@toolhost/core/README.md ("Owners and trust") says what trust lets load.`,
      )
      .action(cli.action((folder: string | undefined, options: TrustOptions) => run(cli, folder, options)));
  },
};

async function run(cli: Cli, folder: string | undefined, options: TrustOptions): Promise<number> {
  const core = await import("@toolhost/core/config");
  if (options.list && (options.remove || folder !== undefined)) throw new UsageError("--list takes no folder and no --remove.");
  if (options.list) {
    const trusted = core.readTrustedFolders();
    if (trusted.problem !== undefined) throw new UsageError(`${trusted.problem}. Fix or remove ${trusted.file}.`);
    if (cli.globals.json) await cli.out(`${JSON.stringify({ file: trusted.file, folders: trusted.folders })}\n`);
    else if (trusted.folders.length === 0) await cli.note(`You trust no folder yet (${trusted.file}).`);
    else await cli.out(`${trusted.folders.join("\n")}\n`);
    return ExitCode.OK;
  }
  const target = folder !== undefined ? resolve(cli.globals.cwd, folder) : await projectFolder(cli, core);
  if (options.remove) {
    const removed = core.untrustFolder(target);
    if (cli.globals.json) await cli.out(`${JSON.stringify(removed)}\n`);
    else if (removed.removed) await cli.note(`You no longer trust ${removed.folder} (${removed.file}).`);
    else await cli.note(`${removed.folder} was not in your trusted folders (${removed.file}); nothing changed.`);
    if (removed.coveredBy !== undefined) await cli.note(`It is still trusted through ${removed.coveredBy}: run "toolhost trust --remove ${removed.coveredBy}" to stop that.`);
    return ExitCode.OK;
  }
  const added = core.trustFolder(target);
  if (cli.globals.json) {
    await cli.out(`${JSON.stringify(added)}\n`);
  } else if (added.added) {
    await cli.note(`You now trust ${added.folder} and every folder below it: toolhost may run its code as you (a JS/TS config, plugins by path, the packages installed there, MCP server commands). Kept in ${added.file}; "toolhost trust --remove ${added.folder}" undoes it.`);
  } else {
    await cli.note(`${added.folder} is trusted already${added.coveredBy !== added.folder ? ` (through ${added.coveredBy})` : ""}; nothing changed.`);
  }
  return ExitCode.OK;
}

/** The project's folder: the one of the config found from the working directory (or `--config`), else the working directory. */
async function projectFolder(cli: Cli, core: typeof import("@toolhost/core/config")): Promise<string> {
  const { cwd, config } = cli.globals;
  const found = await core.locateConfig({ cwd, ...(config !== undefined && { configPath: config }) });
  return found !== undefined ? dirname(found) : cwd;
}

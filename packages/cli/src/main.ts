import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { Cli } from "./cli.js";
import { ExitCode } from "./_output.js";
import { commands } from "./commands/index.js";

/** The version of @toolhost/cli, for --version. */
function version(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

/**
 * Runs the `toolhost` command with `argv` (as `process.argv`: node, script, then the arguments) and
 * resolves to its exit code: 0 done, 1 a tool reported an error, 2 refused, 130 interrupted.
 */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  const program = new Command("toolhost")
    .description("Run the tool calls of LLM agents through the plugins of a toolhost config.")
    .version(version(), "-v, --version")
    .option("-c, --config <path>", "the config file (default: toolhost.config.* searched upward from the working directory)")
    .option("-C, --cwd <dir>", "the working directory")
    .option("--json", "print machine-readable JSON on stdout")
    .option("-q, --quiet", "no progress and no notes on stderr")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
    });
  const cli = new Cli(program);
  for (const command of commands) command.register(program, cli);
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) {
      const choices = error.code === "commander.optionMissingArgument" ? choicesHint(program, error.message) : undefined;
      if (choices !== undefined) process.stderr.write(`${choices}\n`);
      return error.exitCode === 0 ? ExitCode.OK : ExitCode.REFUSED;
    }
    cli.exitCode = await cli.fail(error);
  } finally {
    await cli.close().catch((error: unknown) => cli.fail(error));
  }
  return cli.exitCode;
}

/**
 * For an option that takes one of a few values and was given none ("option '--print-config <host>'
 * argument missing"): the values it takes and an example, which commander's message leaves out.
 */
function choicesHint(program: Command, message: string): string | undefined {
  const flags = /option '([^']+)'/.exec(message)?.[1];
  const commands = [program];
  for (let at = 0; at < commands.length; at++) commands.push(...(commands[at] as Command).commands);
  const owner = commands.find((command) => command.options.some((each) => each.flags === flags));
  const option = owner?.options.find((each) => each.flags === flags);
  const choices = option?.argChoices;
  if (!owner || !option || !choices || choices.length === 0) return undefined;
  const names: string[] = [];
  for (let command: Command | null = owner; command; command = command.parent) names.unshift(command.name());
  const name = option.long ?? option.flags;
  return `${name} takes one of: ${choices.join(", ")}. For example: ${names.join(" ")} ${name} ${choices[0]}`;
}

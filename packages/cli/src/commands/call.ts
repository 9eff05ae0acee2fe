import { randomUUID } from "node:crypto";
import type { ToolResultMessage } from "@toolhost/core";
import type { Command } from "commander";
import { approveOption, type Cli, type CommandModule, UsageError } from "../cli.js";
import { parseJsonArgument, readStdin } from "../_input.js";
import { ExitCode, contentText, jsonLine } from "../_output.js";
import { terminalText } from "../_terminal-text.js";

export const call: CommandModule = {
  register(program: Command, cli: Cli) {
    approveOption(program.command("call"))
      .description("run one tool call through the whole pipeline (policies, approval, hooks)")
      .argument("<tool>", "the tool's name (see `toolhost list`)")
      .argument("[args]", 'the arguments as a JSON object, or "-" to read them from standard input', "{}")
      .option("--wait <seconds>", "with a queue (@toolhost/queue): how long the call waits for a worker to take it; past it the call is withdrawn, not run (exit 2)")
      .addHelpText(
        "after",
        `
The result's text goes to stdout; --json prints the whole result message.
Exit codes: 0 done, 1 the tool reported an error, 2 refused (blocked, not approved,
invalid arguments, config), 130 interrupted (Ctrl-C ends the call and its processes).

Examples:
  toolhost call read '{"path": "README.md"}'
  echo '{"command": "ls"}' | toolhost call bash -`,
      )
      .action(
        cli.action(async (tool: string, argsText: string, options: { approve?: string[]; wait?: string }) => {
          cli.approvals = options.approve ?? [];
          const args = parseJsonArgument(
            argsText === "-" ? await readStdin((text) => cli.note(text), `the arguments of "${tool}"`) : argsText,
            tool,
          );
          const host = await cli.host();
          if (options.wait !== undefined) boundWait(host.harness, options.wait);
          const { exitCodeOf, runBatch } = await import("../_batch.js");
          const found = host.harness.getTool(tool);
          // Its own id: a queue (or anything else that keys on call ids) never meets this call's id again.
          const id = `call-${randomUUID()}`;
          const { results, ran } = await runBatch(cli, host, [{ id, name: tool, arguments: args }], found?.label ?? tool);
          const [result] = results;
          if (!result) return ExitCode.TOOL_ERROR;
          const code = exitCodeOf(result, cli.interrupted, ran);
          if (cli.globals.json) {
            await cli.out(jsonLine(result));
          } else {
            const text = contentText(result.content);
            if (code === ExitCode.OK || code === ExitCode.TOOL_ERROR) await cli.out(cli.toolOutput(text.endsWith("\n") || text === "" ? text : `${text}\n`));
            else await cli.err(`${cli.paintErr("red", "toolhost:")} ${terminalText(refusedText(result) ?? text)}${await didYouMean(result, host.harness.tools)}\n`);
          }
          return code;
        }),
      );
  },
};

/**
 * A call the host refused because part of the config was left out: the CLI said why when it loaded
 * the host (the message and its fix, once), so the call's refusal names the files, not the message again.
 */
function refusedText(result: ToolResultMessage): string | undefined {
  const notLoaded = (result.details as { notLoaded?: unknown } | null | undefined)?.notLoaded;
  if (!Array.isArray(notLoaded) || notLoaded.length === 0) return undefined;
  const files = notLoaded.map((each) => String((each as { file?: unknown }).file));
  return `Refused: ${files.join(", ")} ${files.length === 1 ? "was" : "were"} not loaded (why and the fix are above), so every call is refused until that is fixed.`;
}

/** `--wait <seconds>`: the queue's bound on waiting for a worker; a usage error where no queue can take it. */
function boundWait(harness: { getService(name: "queue"): { waitAtMost?(ms: number, by: string): void } | undefined }, text: string): void {
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < 1) throw new UsageError(`--wait must be a whole number of seconds, at least 1; got "${text}".`);
  const queue = harness.getService("queue");
  if (!queue?.waitAtMost) {
    throw new UsageError(`--wait bounds how long a call waits for a queue's worker, and this config has no queue plugin that can: add @toolhost/queue to "plugins", or leave --wait out.`);
  }
  queue.waitAtMost(seconds * 1000, `toolhost call --wait ${seconds}`);
}

/** For a tool that is not there: the registered name it most likely meant. */
async function didYouMean(result: ToolResultMessage, tools: ReadonlyArray<{ name: string }>): Promise<string> {
  const { ErrorCode, closestName, resultCode } = await import("@toolhost/core");
  if (resultCode(result) !== ErrorCode.TOOL_NOT_FOUND) return "";
  const close = closestName(result.toolName, tools.map((tool) => tool.name));
  return close === undefined ? "" : `\nDid you mean "${close}"?`;
}

import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { preview, type ToolCall } from "@toolhost/core";
import { approveOption, type Cli, type CommandModule, UsageError } from "../cli.js";
import { readInput } from "../_input.js";
import { ExitCode, jsonLine } from "../_output.js";

export const run: CommandModule = {
  register(program: Command, cli: Cli) {
    approveOption(program.command("run"))
      .description("run a batch of tool calls with the harness's scheduling")
      .argument("[file]", 'a JSON file of calls, or "-" for standard input', "-")
      .option("--events", "print every event as a JSON line instead of the results")
      .addHelpText(
        "after",
        `
The input is a JSON array or JSON lines of { "id"?, "name", "arguments" }, or an
assistant message ({ "role": "assistant", "content": [{ "type": "toolCall", ... }] }).
Prints one result message per line, in the calls' order (JSON lines).
Exit codes: 0 every call done, 1 some result is an error, 2 bad input or config, 130 interrupted.`,
      )
      .action(
        cli.action(async (file: string, options: { events?: boolean; approve?: string[] }) => {
          cli.approvals = options.approve ?? [];
          const calls = parseBatch(await readInput(file, cli.globals.cwd, (text) => cli.note(text), "calls"));
          const host = await cli.host();
          const { exitCodeOf, runBatch } = await import("../_batch.js");
          if (options.events) host.harness.subscribe((event) => cli.stdout.write(jsonLine(event)));
          const { results, ran } = await runBatch(cli, host, calls, `${calls.length} tool call${calls.length === 1 ? "" : "s"}`);
          if (!options.events) await cli.out(results.map(jsonLine).join(""));
          if (cli.interrupted) return ExitCode.INTERRUPTED;
          return results.some((result) => exitCodeOf(result, false, ran) !== ExitCode.OK) ? ExitCode.TOOL_ERROR : ExitCode.OK;
        }),
      );
  },
};

/** The calls of a batch: a JSON array, JSON lines, or assistant messages with tool-call blocks. */
export function parseBatch(text: string): ToolCall[] {
  const trimmed = text.trim();
  if (trimmed === "") throw new UsageError("The batch is empty: give a JSON array or JSON lines of { name, arguments }.");
  let items: { value: unknown; where: string }[];
  try {
    const whole = JSON.parse(trimmed) as unknown;
    items = Array.isArray(whole) ? whole.map((value, i) => ({ value, where: `item ${i + 1}` })) : [{ value: whole, where: "the input" }];
  } catch {
    items = [];
    trimmed.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        items.push({ value: JSON.parse(line), where: `line ${i + 1}` });
      } catch (error) {
        throw new UsageError(`Line ${i + 1} of the batch is not valid JSON: ${(error as Error).message}.`);
      }
    });
  }
  const calls: ToolCall[] = [];
  // A call without an id gets its place in the batch and this run's own tag: unique across runs.
  const run = randomBytes(4).toString("hex");
  for (const { value, where } of items) {
    const message = value as { role?: unknown; content?: unknown };
    if (message !== null && typeof message === "object" && message.role === "assistant") {
      const blocks: unknown[] = Array.isArray(message.content) ? message.content : [];
      for (const block of blocks) {
        if (block !== null && typeof block === "object" && (block as { type?: unknown }).type === "toolCall") calls.push(toCall(block, where, calls.length, run));
      }
    } else {
      calls.push(toCall(value, where, calls.length, run));
    }
  }
  if (calls.length === 0) throw new UsageError("The batch has no tool calls.");
  return calls;
}

function toCall(value: unknown, where: string, index: number, run: string): ToolCall {
  const call = value as { id?: unknown; name?: unknown; arguments?: unknown };
  if (call === null || typeof call !== "object" || typeof call.name !== "string" || call.name === "") {
    throw new UsageError(`${where} of the batch is not a tool call: expected { "id"?, "name", "arguments" }, got ${preview(value, 200)}.`);
  }
  let args = call.arguments ?? {};
  if (typeof args === "string") {
    // Providers send the arguments as a JSON string; the tool gets the object.
    try {
      args = JSON.parse(args);
    } catch {
      // left as the string: validation reports it with the arguments received
    }
  }
  return { id: typeof call.id === "string" && call.id !== "" ? call.id : `call-${index + 1}-${run}`, name: call.name, arguments: args };
}

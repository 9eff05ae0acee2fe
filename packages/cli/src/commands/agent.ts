import { preview, type AgentEvent, type AgentState, type ModelService } from "@toolhost/core";
import type { Command } from "commander";
import { approveOption, type Cli, type CommandModule, UsageError } from "../cli.js";
import { readStdin } from "../_input.js";
import { ExitCode, contentText, jsonLine } from "../_output.js";
import { type Progress, startProgress } from "../_progress.js";
import { terminalLine, terminalText } from "../_terminal-text.js";

/** No model provider is configured: exit 2 before anything runs. */
class NoModelError extends UsageError {
  override readonly code = "TOOLHOST_NO_MODEL";
}

export const agent: CommandModule = {
  register(program: Command, cli: Cli) {
    approveOption(program.command("agent"))
      .description("run the agent loop: the configured model calls the configured tools until it answers")
      .argument("[prompt...]", "what to ask; read from standard input when not given")
      .option("--system <text>", "the system prompt (instead of the config's agent.systemPrompt)")
      .option("--max-turns <n>", "stop after this many model turns (instead of the config's agent.maxTurns)")
      .addHelpText(
        "after",
        `
The model and its endpoint come from a provider plugin in the config, e.g.
  "plugins": [["@toolhost/provider-openai", { "model": "gpt-4o-mini" }], "@toolhost/tool-fs"]

The assistant's text streams to stdout; each tool call is shown on stderr as it runs.
--json prints every event as a JSON line on stdout instead.
Exit codes: 0 done, 1 the model or its endpoint failed, 2 refused (config, no model), 130 Ctrl-C.`,
      )
      .action(
        cli.action(async (words: string[], options: { system?: string; maxTurns?: string; approve?: string[] }) => {
          cli.approvals = options.approve ?? [];
          const prompt = (words.length > 0 ? words.join(" ") : await readStdin((text) => cli.note(text), "the prompt")).trim();
          if (prompt === "") throw new UsageError('No prompt: give it as an argument (toolhost agent "…") or on standard input.');
          const maxTurns = options.maxTurns === undefined ? undefined : Number(options.maxTurns);
          if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) {
            throw new UsageError(`--max-turns must be a whole number above 0, got "${options.maxTurns}".`);
          }
          // A provider that cannot work (no API key) refuses here, before anything runs.
          const host = await cli.host({ needsModel: true });
          const provider = host.harness.getService<ModelService>("model");
          if (!provider) {
            const where = host.configPath ?? "a toolhost.config.json (toolhost init writes one)";
            throw new NoModelError(
              `No model provider is configured. Add one to "plugins" in ${where}, e.g. ["@toolhost/provider-openai", { "model": "gpt-4o-mini" }] (npm i -D @toolhost/provider-openai).`,
            );
          }
          const { Agent } = await import("@toolhost/core");
          const settings = host.config?.agent;
          const systemPrompt = options.system ?? settings?.systemPrompt;
          const run = new Agent({
            initialState: { model: provider.model, ...(systemPrompt !== undefined ? { systemPrompt } : {}) },
            streamFn: provider.streamFn,
            harness: host.harness,
            ...((maxTurns ?? settings?.maxTurns) !== undefined ? { maxTurns: (maxTurns ?? settings?.maxTurns) as number } : {}),
          });
          const signal = cli.interruptSignal();
          signal.addEventListener("abort", () => run.abort(signal.reason), { once: true });
          const view = cli.globals.json ? jsonView(cli) : await terminalView(cli);
          const unsubscribe = run.subscribe(view.onEvent);
          try {
            await run.prompt(prompt);
          } finally {
            unsubscribe();
            await view.close();
          }
          if (!cli.globals.json) await cli.err(summary(cli, run.state));
          if (cli.interrupted) return ExitCode.INTERRUPTED;
          const { error } = run.state;
          if (error !== undefined) {
            if (!cli.globals.json) await cli.err(`${cli.paintErr("red", "toolhost:")} the agent stopped: ${terminalText(error.replace(/\.$/, ""))}.\n`);
            return ExitCode.TOOL_ERROR;
          }
          return ExitCode.OK;
        }),
      );
  },
};

interface View {
  onEvent(event: AgentEvent): void;
  close(): Promise<void>;
}

/** Every event as a JSON line; the partial message of each delta is left out (the delta says it). */
function jsonView(cli: Cli): View {
  return {
    onEvent(event) {
      const line = event.type === "message_update" ? { type: event.type, assistantMessageEvent: event.assistantMessageEvent } : event;
      cli.stdout.write(jsonLine(line));
    },
    close: () => cli.out(""),
  };
}

/** The assistant's text on stdout as it streams; each tool call on stderr with a spinner, then ok or its error. */
async function terminalView(cli: Cli): Promise<View> {
  const paint = cli.paintErr;
  const quiet = cli.globals.quiet;
  const running = new Map<string, string>();
  let progress: Progress | undefined;
  let textOpen = false;
  const host = await cli.host();

  const endText = (): void => {
    if (textOpen) {
      cli.stdout.write("\n");
      textOpen = false;
    }
  };
  const restartProgress = async (): Promise<void> => {
    progress?.stop();
    progress = undefined;
    cli.progress = undefined;
    if (running.size === 0 || quiet) return;
    progress = await startProgress(host.harness, [...running.values()].join(", "), true);
    cli.progress = progress;
  };

  return {
    onEvent(event) {
      switch (event.type) {
        case "message_update":
          if (event.assistantMessageEvent.type === "text_delta") {
            cli.stdout.write(cli.toolOutput(event.assistantMessageEvent.delta));
            textOpen = true;
          }
          break;
        case "message_end":
          if (event.message.role === "assistant") {
            endText();
            const retries = event.message.retries ?? 0;
            if (retries > 0 && !quiet) {
              cli.stderr.write(`${paint("yellow", "!")} ${paint("dim", `the model endpoint was retried ${retries} time${retries === 1 ? "" : "s"} before it answered`)}\n`);
            }
          }
          break;
        case "tool_execution_start": {
          endText();
          const label = terminalLine(`${event.toolName} ${short(event.args)}`);
          running.set(event.toolCallId, label);
          if (!quiet) cli.stderr.write(`${paint("cyan", "→")} ${label}\n`);
          void restartProgress();
          break;
        }
        case "tool_execution_end": {
          running.delete(event.toolCallId);
          void restartProgress();
          if (quiet) break;
          // The tool's own time: the wait for a person to approve it is not the tool's.
          const own = Math.max(0, event.durationMs - (cli.approvalWaitMs.get(event.toolCallId) ?? 0));
          const took = paint("dim", `(${Math.round(own)} ms)`);
          const first = terminalLine(firstLine(contentText(event.result.content)));
          const name = terminalLine(event.toolName);
          if (event.isError) cli.stderr.write(`${paint("red", "✗")} ${name}: ${first} ${took}\n`);
          else cli.stderr.write(`${paint("green", "✓")} ${name} ${took}${first === "" ? "" : `  ${paint("dim", first)}`}\n`);
          break;
        }
        default:
          break;
      }
    },
    async close() {
      endText();
      running.clear();
      await restartProgress();
      await cli.out("");
    },
  };
}

/** A result's first non-empty line, cut to fit one line. */
function firstLine(text: string): string {
  const line = text.split("\n").map((each) => each.trim()).find((each) => each !== "") ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/**
 * What the run used, and an empty final answer said out loud: tokens (and cost when the provider
 * prices them) at the end, on stderr.
 */
function summary(cli: Cli, state: AgentState): string {
  const lines: string[] = [];
  const last = state.messages.at(-1);
  if (state.error === undefined && last?.role === "assistant") {
    const text = last.content.map((block) => (block.type === "text" ? block.text : "")).join("").trim();
    if (text === "") lines.push(`${cli.paintErr("yellow", "!")} the model's final answer was empty (stop reason: ${last.stopReason})`);
  }
  const { usage } = state;
  const count = (n: number): string => n.toLocaleString("en-US");
  const cached = usage.cacheRead > 0 ? ` (+${count(usage.cacheRead)} cached)` : "";
  const cost = usage.cost.total > 0 ? `, cost $${usage.cost.total.toFixed(4)}` : ", cost not reported by the provider";
  const turns = state.messages.filter((message) => message.role === "assistant").length;
  lines.push(cli.paintErr("dim", `usage: ${count(usage.input)} input${cached} + ${count(usage.output)} output tokens in ${turns} model turn${turns === 1 ? "" : "s"}${cost}`));
  return `${lines.join("\n")}\n`;
}

/** Arguments in one short line. */
function short(args: unknown): string {
  const text = preview(args, 99);
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}

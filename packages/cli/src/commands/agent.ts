import type { Agent, AgentState, ModelService } from "@toolhost/core";
import type { Command } from "commander";
import { approveOption, type Cli, type CommandModule, UsageError } from "../cli.js";
import { readStdin } from "../_input.js";
import { ExitCode } from "../_output.js";
import { terminalText } from "../_terminal-text.js";
import { jsonView, TerminalView, type View } from "../_agent-view.js";

/** No model provider is configured: exit 2 before anything runs. */
class NoModelError extends UsageError {
  override readonly code = "TOOLHOST_NO_MODEL";
}

interface AgentOptions {
  system?: string;
  maxTurns?: string;
  approve?: string[];
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
      .action(cli.action((words: string[], options: AgentOptions) => runAgent(cli, words, options)));
  },
};

async function runAgent(cli: Cli, words: string[], options: AgentOptions): Promise<number> {
  cli.approvals = options.approve ?? [];
  const prompt = (words.length > 0 ? words.join(" ") : await readStdin((text) => cli.note(text), "the prompt")).trim();
  if (prompt === "") throw new UsageError('No prompt: give it as an argument (toolhost agent "…") or on standard input.');
  const maxTurns = maxTurnsOf(options.maxTurns);
  const run = await createAgent(cli, options.system, maxTurns);
  const signal = cli.interruptSignal();
  signal.addEventListener("abort", () => run.abort(signal.reason), { once: true });
  const view: View = cli.globals.json ? jsonView(cli) : new TerminalView(cli, (await cli.host()).harness);
  const unsubscribe = run.subscribe((event) => view.onEvent(event));
  try {
    await run.prompt(prompt);
  } finally {
    unsubscribe();
    await view.close();
  }
  if (!cli.globals.json) await cli.err(summary(cli, run.state));
  if (cli.interrupted) return ExitCode.INTERRUPTED;
  const { error } = run.state;
  if (error === undefined) return ExitCode.OK;
  if (!cli.globals.json) await cli.err(`${cli.paintErr("red", "toolhost:")} the agent stopped: ${terminalText(error.replace(/\.$/, ""))}.\n`);
  return ExitCode.TOOL_ERROR;
}

function maxTurnsOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const maxTurns = Number(text);
  if (!(Number.isInteger(maxTurns) && maxTurns > 0)) throw new UsageError(`--max-turns must be a whole number above 0, got "${text}".`);
  return maxTurns;
}

/** The agent of the config's model provider; a provider that cannot work (no API key) refuses here, before anything runs. */
async function createAgent(cli: Cli, system: string | undefined, maxTurnsGiven: number | undefined): Promise<Agent> {
  const host = await cli.host({ needsModel: true });
  const provider = host.harness.getService<ModelService>("model");
  if (!provider && host.refused.length > 0) {
    // The provider may be what was left out: saying "none is configured" would send the user to add one.
    const names = host.refused.map((refusal) => (refusal.plugin !== undefined ? `"${refusal.plugin}"` : refusal.file));
    throw new NoModelError(
      `No model provider is loaded: ${names.join(", ")} ${names.length === 1 ? "was" : "were"} not loaded (why and the fix are above), and the agent needs all of its config. Fix that, then run the agent again.`,
    );
  }
  if (!provider) {
    const where = host.configPath ?? "a toolhost.config.json (toolhost init writes one)";
    throw new NoModelError(
      `No model provider is configured. Add one to "plugins" in ${where}, e.g. ["@toolhost/provider-openai", { "model": "gpt-4o-mini" }] (npm i -D @toolhost/provider-openai).`,
    );
  }
  const { Agent } = await import("@toolhost/core");
  const settings = host.config?.agent;
  const systemPrompt = system ?? settings?.systemPrompt;
  const maxTurns = maxTurnsGiven ?? settings?.maxTurns;
  return new Agent({
    initialState: { model: provider.model, ...(systemPrompt !== undefined ? { systemPrompt } : {}) },
    streamFn: provider.streamFn,
    harness: host.harness,
    ...(maxTurns !== undefined ? { maxTurns } : {}),
  });
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

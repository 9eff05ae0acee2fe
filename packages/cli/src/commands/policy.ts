import type { AgentHarness, PolicyExplanation, PolicyService, ToolAccess } from "@toolhost/core";
import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import { parseJsonArgument, readStdin } from "../_input.js";
import { ExitCode } from "../_output.js";

/** No policy plugin in the config: nothing to explain. */
export class NoPolicyError extends Error {
  override name = "NoPolicyError";
  readonly code = "TOOLHOST_NO_POLICY";
}

export const policy: CommandModule = {
  register(program: Command, cli: Cli) {
    const group = program.command("policy").description("inspect the configured policy");
    group
      .command("explain")
      .description("show the policy's decision on a call and every rule that matched, part by part")
      .argument("<tool>", 'the tool\'s name, or "-" to read JSON lines { "tool", "args", "cwd"?, "access"? } from standard input')
      .argument("[args]", "the arguments as a JSON object", "{}")
      .addHelpText(
        "after",
        `
With "-", prints one JSON object a line, one for each line read, so a whole transcript
can be checked against a policy; a line's "access" ({ commands, reads, readTrees, writes,
network }) is what the call touches, for a tool this config does not have (another host's).
--json prints the explanation as one JSON object.

Examples:
  toolhost policy explain bash '{"command": "rm -rf build && ls"}'
  jq -c '{tool: .name, args: .arguments}' calls.jsonl | toolhost policy explain -`,
      )
      .action(
        cli.action(async (tool: string, argsText: string) => {
          const args = tool === "-" ? undefined : parseJsonArgument(argsText, tool);
          const host = await cli.host();
          const service = host.harness.getService("policy");
          if (!service || typeof service.explain !== "function") {
            const where = host.configPath ? `to "plugins" in ${host.configPath}` : 'to the "plugins" of a toolhost.config.json (toolhost init writes one)';
            throw new NoPolicyError(
              `No policy plugin is configured, so there is no policy to explain. Add "@toolhost/hooks-policy" ${where}, and install it: npm i -D @toolhost/hooks-policy`,
            );
          }
          if (tool === "-") return explainLines(cli, service, await readStdin((text) => cli.note(text), "calls to explain"), host.harness);
          await checkCall(host.harness, tool, args);
          const explanation = await service.explain({ tool, args, cwd: cli.globals.cwd });
          await cli.out(cli.globals.json ? `${JSON.stringify(explanation)}\n` : humanText(cli, explanation));
          return ExitCode.OK;
        }),
      );
    group
      .command("rules")
      .description("list the rules in force, in the order they are layered, with their layer and source file")
      .action(
        cli.action(async () => {
          const host = await cli.host();
          const service = host.harness.getService("policy");
          if (!service || typeof service.rules !== "function") {
            throw new NoPolicyError("No policy plugin that lists its rules is configured. Add \"@toolhost/hooks-policy\" to the \"plugins\" of the config.");
          }
          const rules = await service.rules();
          if (cli.globals.json) {
            await cli.out(`${JSON.stringify(rules)}\n`);
            return ExitCode.OK;
          }
          const lines = rules.map((rule, index) => {
            const layer = `${rule.layer}${rule.locked ? " (locked)" : ""}${rule.source ? ` [${rule.source}]` : ""}`;
            return `${String(index + 1).padStart(3)}. ${rule.decision.padEnd(5)} ${rule.tool} ${rule.matcher}  ${rule.id}  — ${layer}`;
          });
          await cli.out(`${lines.join("\n")}\n`);
          return ExitCode.OK;
        }),
      );
  },
};

/**
 * A call `explain` would judge for a tool this config lacks, or with arguments its tool refuses,
 * would explain a call that can never run: refuse it as the pipeline would, with its code.
 */
/**
 * Refuses (exit 2) a call the pipeline would end before the policy: an unknown tool, or arguments
 * its tool refuses after preparing them (a tool may take other spellings: the pipeline's own
 * prepare stage decides, not the raw schema).
 */
async function checkCall(harness: AgentHarness, tool: string, args: unknown): Promise<void> {
  const { closestName, ErrorCode, ToolhostError } = await import("@toolhost/core");
  if (!harness.getTool(tool)) {
    const close = closestName(tool, harness.tools.map((each) => each.name));
    throw new ToolhostError(
      ErrorCode.TOOL_NOT_FOUND,
      `The config has no tool "${tool}", so there is no call to explain.${close ? ` Did you mean "${close}"?` : ""} See "toolhost list"; for another host's tool, give its access on a JSON line to "toolhost policy explain -".`,
    );
  }
  const prepared = await harness.prepareCall({ id: "explain", name: tool, arguments: args });
  if (prepared.ok) return;
  const { content, details } = prepared.result;
  const code = (details as { code?: unknown } | undefined)?.code;
  const text = content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  if (code === ErrorCode.INVALID_ARGUMENTS) throw new ToolhostError(code, `${text}\nSee "toolhost schema ${tool}".`);
  throw new ToolhostError(typeof code === "string" ? code : ErrorCode.INTERNAL, `"${tool}" would not reach the policy: ${text}`);
}

async function explainLines(cli: Cli, service: PolicyService, input: string, harness: AgentHarness): Promise<number> {
  let exitCode: number = ExitCode.OK;
  const lines = input.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? "";
    if (line === "") continue;
    let output: unknown;
    try {
      const request = JSON.parse(line) as { tool?: unknown; args?: unknown; cwd?: unknown; access?: unknown };
      if (request === null || typeof request !== "object" || typeof request.tool !== "string") {
        throw new UsageError('expected { "tool": string, "args": object, "cwd"?: string, "access"?: object }');
      }
      // A line with its own access is another host's call; without, it is a call of this config's tool.
      if (request.access === undefined) await checkCall(harness, request.tool, request.args ?? {});
      output = await service.explain({
        tool: request.tool,
        args: request.args ?? {},
        cwd: typeof request.cwd === "string" ? request.cwd : cli.globals.cwd,
        ...(request.access !== undefined && { access: request.access as ToolAccess }),
      });
    } catch (error) {
      exitCode = ExitCode.REFUSED;
      output = { line: i + 1, error: { code: (error as { code?: string }).code ?? "TOOLHOST_USAGE", message: (error as Error).message } };
    }
    await cli.out(`${JSON.stringify(output)}\n`);
  }
  return exitCode;
}

function humanText(cli: Cli, explanation: PolicyExplanation): string {
  const paint = cli.paintOut;
  const color = (decision: string): string =>
    paint(decision === "allow" ? "green" : decision === "deny" ? "red" : "yellow", decision);
  const lines = [`${paint("bold", color(explanation.decision))}  ${explanation.tool}: ${explanation.reason}`];
  for (const part of explanation.parts) {
    lines.push(`  ${color(part.decision)}  ${part.kind} ${paint("bold", part.subject)}${part.note ? paint("dim", `  (${part.note})`) : ""}`);
    if (part.matched.length === 0) lines.push(`      ${paint("dim", "no rule matched: the default decides")}`);
    for (const rule of part.matched) {
      lines.push(`      ${rule.decision.padEnd(5)} ${rule.id}${rule.reason ? paint("dim", `  ${rule.reason}`) : ""}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

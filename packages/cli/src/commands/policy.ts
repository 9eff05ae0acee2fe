import type { AgentHarness, PolicyService, ToolAccess } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import type { Command } from "commander";
import { type Cli, type CommandModule, UsageError } from "../cli.js";
import { parseJsonArgument, readInput, readStdin } from "../_input.js";
import { ExitCode } from "../_output.js";
import { terminalLine } from "../_terminal-text.js";
import { checkCall } from "../policy/check-call.js";
import { explainText } from "../policy/explain-text.js";

/** No policy plugin in the config: nothing to explain. */
export class NoPolicyError extends Error {
  override name = "NoPolicyError";
  readonly code = "TOOLHOST_NO_POLICY";
}

export const policy: CommandModule = {
  register(program: Command, cli: Cli) {
    const group = program.command("policy").description("inspect and test the configured policy");
    group
      .command("explain")
      .description("show the policy's decision on a call and every rule that matched, part by part")
      .argument("<tool>", 'the tool\'s name, or "-" to read JSON lines { "tool", "args", "cwd"?, "access"? } from standard input')
      .argument("[args]", "the arguments as a JSON object", "{}")
      .option("--connect <destination>", "explain a connection the tool's sandbox proxy is asked to open instead: host:port (a tunnel), or an http:// or https:// URL")
      .option("--method <method>", "with --connect and an http:// URL: the request's method (default GET)")
      .option("--address <address>", "with --connect: the address the name resolves to (default: looked up now, as the proxy would)")
      .addHelpText(
        "after",
        `
With "-", prints one JSON object a line, one for each line read, so a whole transcript
can be checked against a policy; a line's "access" ({ commands, reads, readTrees, writes,
network }) is what the call touches, for a tool this config does not have (another host's).
--json prints the explanation as one JSON object.

--connect explains a connection as the proxy of a sandboxed call asks about it: the
destination's name (url and host rules, else the default), then each address it resolves to
(address rules, and host or url rules that name an address); a name the policy denies is not
looked up, as the proxy would not.

Examples:
  toolhost policy explain bash '{"command": "rm -rf build && ls"}'
  toolhost policy explain bash --connect registry.npmjs.org:443
  toolhost policy explain bash --connect http://localhost:3000/ --method POST
  jq -c '{tool: .name, args: .arguments}' calls.jsonl | toolhost policy explain -`,
      )
      .action(
        cli.action((tool: string, argsText: string, options: ConnectOptions) =>
          options.connect === undefined ? explain(cli, tool, argsText) : explainConnect(cli, tool, options.connect, options),
        ),
      );
    group
      .command("rules")
      .description("list the rules in force, in the order they are layered, with their layer and source file")
      .action(cli.action(() => listRules(cli)));
    group
      .command("test")
      .description("decide each case of a JSON-lines file and report those the policy decides otherwise")
      .argument("<cases>", 'a JSON-lines file of { "tool", "args", "expect": "allow" | "ask" | "deny" | "not-allow", "cwd"?, "access"? }, or "-"')
      .addHelpText(
        "after",
        `
Each case is decided as "toolhost policy explain" would. Prints a table of the cases whose
decision is not the one expected, with the rule that decided (--json: one JSON object).
Exit codes: 0 every case as expected, 1 some are not, 2 a line is not a case (its number is named),
a tool the config lacks (give "access" for another host's tool), or no policy.
"toolhost init --cases" writes a starter file.

Example:
  {"tool": "bash", "args": {"command": "rm -rf /"}, "expect": "deny"}`,
      )
      .action(cli.action((file: string) => testCases(cli, file)));
  },
};

/** The config's policy service, or a `NoPolicyError` that says how to add one. */
function policyOf(host: Host): PolicyService {
  const service = host.harness.getService("policy");
  if (service && typeof service.explain === "function") return service;
  const where = host.configPath ? `to "plugins" in ${host.configPath}` : 'to the "plugins" of a toolhost.config.json (toolhost init writes one)';
  throw new NoPolicyError(`No policy plugin is configured, so there is no policy to explain. Add "@toolhost/hooks-policy" ${where}, and install it: npm i -D @toolhost/hooks-policy`);
}

async function explain(cli: Cli, tool: string, argsText: string): Promise<number> {
  const args = tool === "-" ? undefined : parseJsonArgument(argsText, tool);
  const host = await cli.host();
  const service = policyOf(host);
  if (tool === "-") return explainLines(cli, service, await readStdin((text) => cli.note(text), "calls to explain"), host.harness);
  const wouldEnd = await checkCall(host.harness, tool, args);
  const explanation = await service.explain({ tool, args, cwd: cli.globals.cwd });
  if (cli.globals.json) {
    await cli.out(`${JSON.stringify(wouldEnd ? { ...explanation, wouldEnd } : explanation)}\n`);
    return ExitCode.OK;
  }
  const rules = explanation.decision === "ask" ? ((await service.rules?.()) ?? []) : [];
  await cli.out(explainText(explanation, cli.paintOut, { rules, cwd: cli.globals.cwd }));
  if (wouldEnd) await cli.out(terminalLine(`note: as it is, the call would not run: the tool refuses it (${wouldEnd.code}): ${wouldEnd.text}`) + "\n");
  return ExitCode.OK;
}

interface ConnectOptions {
  connect?: string;
  method?: string;
  address?: string;
}

async function explainConnect(cli: Cli, tool: string, destination: string, options: ConnectOptions): Promise<number> {
  const { connectionHeader, connectionOf, explainConnection } = await import("../policy/connection.js");
  const connection = await connectionOf(destination, options.method);
  const host = await cli.host();
  const explained = await explainConnection(policyOf(host), tool, connection, options.address);
  if (cli.globals.json) {
    await cli.out(`${JSON.stringify({ ...explained.explanation, connection: explained.connection })}\n`);
    return ExitCode.OK;
  }
  const rules = explained.explanation.decision === "ask" ? ((await policyOf(host).rules?.()) ?? []) : [];
  await cli.out(terminalLine(connectionHeader(explained).trimEnd()) + "\n");
  await cli.out(explainText(explained.explanation, cli.paintOut, { rules, cwd: cli.globals.cwd }));
  return ExitCode.OK;
}

async function explainLines(cli: Cli, service: PolicyService, input: string, harness: AgentHarness): Promise<number> {
  let exitCode: number = ExitCode.OK;
  const lines = input.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? "";
    if (line === "") continue;
    let output: unknown;
    try {
      output = await explainLine(cli, service, harness, line);
    } catch (error) {
      exitCode = ExitCode.REFUSED;
      output = { line: i + 1, error: { code: (error as { code?: string }).code ?? "TOOLHOST_USAGE", message: (error as Error).message } };
    }
    await cli.out(`${JSON.stringify(output)}\n`);
  }
  return exitCode;
}

async function explainLine(cli: Cli, service: PolicyService, harness: AgentHarness, line: string): Promise<unknown> {
  const request = JSON.parse(line) as { tool?: unknown; args?: unknown; cwd?: unknown; access?: unknown };
  if (request === null || typeof request !== "object" || typeof request.tool !== "string") {
    throw new UsageError('expected { "tool": string, "args": object, "cwd"?: string, "access"?: object }');
  }
  // A line with its own access is another host's call; without, it is a call of this config's tool.
  const wouldEnd = request.access === undefined ? await checkCall(harness, request.tool, request.args ?? {}) : undefined;
  const explanation = await service.explain({
    tool: request.tool,
    args: request.args ?? {},
    cwd: typeof request.cwd === "string" ? request.cwd : cli.globals.cwd,
    ...(request.access !== undefined && { access: request.access as ToolAccess }),
  });
  return wouldEnd ? { ...explanation, wouldEnd } : explanation;
}

async function listRules(cli: Cli): Promise<number> {
  const host = await cli.host();
  const service = host.harness.getService("policy");
  if (!service || typeof service.rules !== "function") {
    throw new NoPolicyError('No policy plugin that lists its rules is configured. Add "@toolhost/hooks-policy" to the "plugins" of the config.');
  }
  const rules = await service.rules();
  if (cli.globals.json) {
    await cli.out(`${JSON.stringify(rules)}\n`);
    return ExitCode.OK;
  }
  const lines = rules.map((rule, index) => {
    const layer = `${rule.layer}${rule.owner && rule.owner !== "project" ? `, ${rule.owner}` : ""}${rule.locked ? " (locked)" : ""}${rule.source ? ` [${rule.source}]` : ""}`;
    return terminalLine(`${String(index + 1).padStart(3)}. ${rule.decision.padEnd(5)} ${rule.tool} ${rule.matcher}  ${rule.id}  — ${layer}`);
  });
  await cli.out(`${lines.join("\n")}\n`);
  return ExitCode.OK;
}

async function testCases(cli: Cli, file: string): Promise<number> {
  const { mismatchTable, parseCases, runCases } = await import("../policy/cases.js");
  const shown = file === "-" ? "standard input" : file;
  const cases = parseCases(await readInput(file, cli.globals.cwd, (text) => cli.note(text), "policy cases"), shown);
  const host = await cli.host();
  const mismatches = await runCases(cases, policyOf(host), host.harness, cli.globals.cwd);
  if (cli.globals.json) await cli.out(`${JSON.stringify({ file: shown, cases: cases.length, mismatches })}\n`);
  else await cli.out(mismatchTable(shown, cases.length, mismatches, cli.paintOut));
  return mismatches.length > 0 ? ExitCode.TOOL_ERROR : ExitCode.OK;
}

import { type AgentHarness, type AnyAgentTool, ToolhostError, type ToolAccess } from "@toolhost/core";
import picomatch from "picomatch";
import { QueueErrorCode } from "./errors.js";

/**
 * Which calls go to the queue, and how the host judges them. A routed call is judged by the host's
 * own tool's declaration, without its confinement: the sandbox that will bound it is the worker's,
 * which this host cannot check, so the policy here judges it as unconfined (the worker's own
 * policy, with the worker's confinement, is a second gate there).
 */
export class Routing {
  /** The tools only the workers have (the host registered stand-ins for them). */
  readonly remote = new Set<string>();
  /** Set on a worker: its harness runs the calls itself. */
  working = false;
  readonly #selected: (name: string) => boolean;
  readonly #judged = new WeakMap<AnyAgentTool, AnyAgentTool>();
  /** This host's tools whose descriptions say where they run now, with their own descriptions. */
  readonly #described = new Map<AnyAgentTool, string>();

  constructor(tools: string[]) {
    this.#selected = picomatch(tools);
  }

  /** Whether a call of this tool goes to the queue. */
  routes(name: string): boolean {
    return !this.working && (this.remote.has(name) || this.#selected(name));
  }

  /** Describes a tool of this host as one that runs on the workers (its own description is kept for a worker). */
  describe(tool: AnyAgentTool, description: string): void {
    if (!this.#described.has(tool)) this.#described.set(tool, tool.description);
    tool.description = description;
  }

  /** On a worker: its tools describe themselves again (it runs them here, and publishes them so). */
  restoreDescriptions(): void {
    for (const [tool, description] of this.#described) tool.description = description;
    this.#described.clear();
  }

  /** The tool as this host judges its routed calls (made once per tool). */
  judged(tool: AnyAgentTool): AnyAgentTool {
    const access = tool.access;
    if (!access) return tool;
    let judged = this.#judged.get(tool);
    if (!judged) {
      const unconfined = async (params: unknown, env: Parameters<typeof access>[1]): Promise<ToolAccess | undefined> => {
        const declared = await access.call(tool, params, env);
        if (!declared?.confinement) return declared;
        const { confinement: _worker, ...rest } = declared;
        return rest;
      };
      // Everything else (execute, parameters, annotations) is the tool's own, through the prototype.
      judged = Object.create(tool, { access: { value: unconfined, enumerable: true } }) as AnyAgentTool;
      this.#judged.set(tool, judged);
    }
    return judged;
  }
}

/** True when this host judges calls by their declared access: it has a `policy` service. */
export function judgesAccess(harness: AgentHarness): boolean {
  return harness.getService("policy") !== undefined;
}

/**
 * At load: a config that sends a tool to the queue by name, on a host with a policy but without
 * that tool, would have the policy judge its calls without their declaration. Refused, with the fix.
 */
export function checkRoutedTools(harness: AgentHarness, tools: string[], queue: string): void {
  if (!judgesAccess(harness)) return;
  const missing = tools.filter((name) => !picomatch.scan(name).isGlob && !harness.getTool(name));
  if (missing.length === 0) return;
  throw new ToolhostError(QueueErrorCode.UNDECLARED, `${undeclaredText(missing, queue)}`);
}

/** Why a routed call of a tool this host lacks cannot be judged here, and the fix. */
export function undeclaredText(names: string[], queue: string): string {
  const list = names.map((name) => `"${name}"`).join(", ");
  const one = names.length === 1;
  return (
    `@toolhost/queue sends ${list} to queue "${queue}", but this host has no ${one ? "such tool" : "such tools"} of its own to declare what ${one ? "its" : "their"} calls touch, ` +
    `so its policy would judge them blind (a command as plain arguments). Install the ${one ? "tool's plugin" : "tools' plugins"} on this host and list ${one ? "it" : "them"} in "plugins" before @toolhost/queue ` +
    `(for bash: npm i -D @toolhost/tool-bash, then "@toolhost/tool-bash"): ${one ? "it declares each call" : "they declare each call"} here, and the calls still run on the workers.`
  );
}

/**
 * How a host describes a tool whose calls run on a worker: the worker's own description (which
 * names its folder and sandbox) when a worker published one, else this host's after a note that
 * its folder is not the one the call runs in.
 */
export function workerDescription(published: string | null, queue: string, own: string): string {
  let description: unknown;
  try {
    description = published === null ? undefined : (JSON.parse(published) as { description?: unknown }).description;
  } catch {
    description = undefined;
  }
  const where = `Runs on a worker of queue "${queue}" (another machine or process), not on this host: paths and the working directory are the worker's.`;
  if (typeof description === "string" && description.trim() !== "") return `${where} ${description.slice(0, 4000)}`;
  return `${where} No worker has published this tool yet, so the folder and sandbox this host's description names below are this host's, not the worker's: ${own}`;
}

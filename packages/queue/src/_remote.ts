import { type AnyAgentTool, ToolhostError, type TSchema, Type } from "@toolhost/core";
import type { RedisClient } from "./_redis.js";
import { errorResult, type PublishedTool } from "./_job.js";
import { undeclaredText } from "./_routing.js";
import { QueueErrorCode } from "./errors.js";

/**
 * The tools the queue's workers published (`toolhost worker` writes them to Redis when it starts
 * and with each health report), as stand-ins for a host that does not have them: their schema and
 * annotations are the workers'. The host cannot check such arguments beyond their top-level type
 * (the schema is plain JSON Schema); the worker checks them against its tool.
 */
export async function readRemoteTools(client: RedisClient, key: string, here: StandInContext): Promise<AnyAgentTool[]> {
  const entries = await client.hgetall(key);
  const tools: AnyAgentTool[] = [];
  for (const text of Object.values(entries)) {
    const published = parsePublished(text);
    if (published) tools.push(remoteTool(published, here));
  }
  return tools.sort((a, b) => a.name.localeCompare(b.name));
}

/** The tool of that name a worker published, if any. */
export async function readRemoteTool(client: RedisClient, key: string, name: string, here: StandInContext): Promise<AnyAgentTool | undefined> {
  const text = await client.hget(key, name);
  const published = text === null ? undefined : parsePublished(text);
  return published ? remoteTool(published, here) : undefined;
}

/** What a stand-in knows of the host it stands in on. */
export interface StandInContext {
  queue: string;
  /** Whether the host judges calls by their declared access now (it has a policy). */
  judgesAccess(): boolean;
}

function parsePublished(text: string): PublishedTool | undefined {
  try {
    const value = JSON.parse(text) as Partial<PublishedTool>;
    if (typeof value.name !== "string" || typeof value.description !== "string") return undefined;
    if (typeof value.parameters !== "object" || value.parameters === null) return undefined;
    return value as PublishedTool;
  } catch {
    return undefined;
  }
}

/**
 * A stand-in for a worker's tool. A tool that declares its calls' access on the worker (or that
 * does not say: a worker of an older version) cannot be judged by a policy here, which would see
 * plain arguments: with a policy, each call is refused before anyone is asked, with the fix. A tool
 * that declares nothing is judged here as on its own host, by name and arguments.
 */
function remoteTool(published: PublishedTool, here: StandInContext): AnyAgentTool {
  const declares = published.declares !== false;
  return {
    name: published.name,
    label: typeof published.label === "string" ? published.label : published.name,
    description: published.description,
    parameters: Type.Unsafe(published.parameters as TSchema),
    ...(published.annotations ? { annotations: published.annotations } : {}),
    ...(published.executionMode === "sequential" ? { executionMode: "sequential" as const } : {}),
    ...(declares && {
      access() {
        if (here.judgesAccess()) throw new ToolhostError(QueueErrorCode.UNDECLARED, `Not run: ${undeclaredText([published.name], here.queue)}`);
        return undefined;
      },
    }),
    // Reached only where the queue does not stand in (a worker's own harness): there is no such tool here.
    async execute() {
      return errorResult(
        QueueErrorCode.REMOTE_ONLY,
        `"${published.name}" is a tool of the queue's workers (last published by ${published.worker}), not of this host; it runs only through the queue.`,
      );
    },
  };
}

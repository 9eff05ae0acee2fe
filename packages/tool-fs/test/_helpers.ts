import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentToolResult, AnyAgentTool } from "@toolhost/core";
import { afterEach } from "vitest";

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary folder (real path), removed after the test. */
export async function tempDir(prefix = "toolhost-fs-"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Runs a tool the way the kernel does, with a live signal and no updates. */
export async function run(tool: AnyAgentTool, params: Record<string, unknown>): Promise<AgentToolResult<Record<string, unknown>>> {
  return tool.execute("call-1", params, new AbortController().signal, () => {}, undefined);
}

export function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

/** The six tools of a list by name; a missing one fails the test. */
export function byName(tools: AnyAgentTool[]): Record<"read" | "write" | "edit" | "ls" | "find" | "grep", AnyAgentTool> {
  const get = (name: string): AnyAgentTool => {
    const tool = tools.find((each) => each.name === name);
    if (!tool) throw new Error(`no tool named ${name}`);
    return tool;
  };
  return { read: get("read"), write: get("write"), edit: get("edit"), ls: get("ls"), find: get("find"), grep: get("grep") };
}

/** The text without the bracketed note a read ends with ("[Lines 4-6 of 10: …]"). */
export function linesOf(result: { content: { type: string; text?: string }[] }): string {
  return textOf(result).replace(/\n*\[[^\]]*\]$/, "");
}

import { isAbsolute, resolve } from "node:path";
import { type AccessEnvironment, type ToolAccess, type ToolAnnotations, ToolhostError, closestName } from "@toolhost/core";
import { AiSdkErrorCode } from "./errors.js";

/**
 * What one AI SDK tool touches, as its author tells toolhost: the names of its top-level input
 * fields that hold paths it reads, writes or reads as a tree, shell commands it runs, URLs it
 * reaches (each field a string or a list of strings), and hints about its effects. A policy judges
 * these as it judges any tool's declared access (`path`, `command`, `url` / `host` rules).
 */
export interface AiSdkToolAccess {
  reads?: readonly string[];
  writes?: readonly string[];
  readTrees?: readonly string[];
  commands?: readonly string[];
  urls?: readonly string[];
  /** Hints (MCP's annotations). `readOnly: true` lets its calls run beside others; otherwise each runs alone, in order. */
  annotations?: ToolAnnotations;
}

/** The access of a call computed by the user from the (validated) input, for what field names cannot say. */
export type AiSdkAccessFunction = (input: unknown, env: AccessEnvironment) => ToolAccess | undefined;

const FIELD_KINDS = ["reads", "writes", "readTrees", "commands", "urls"] as const;

/** Checks the mapping against the tool set at load: unknown tools and malformed fields are errors, with the likely name. */
export function checkAccessMap(access: Readonly<Record<string, AiSdkToolAccess | AiSdkAccessFunction>>, toolNames: readonly string[]): void {
  for (const [name, entry] of Object.entries(access)) {
    if (!toolNames.includes(name)) {
      const near = closestName(name, toolNames);
      throw new ToolhostError(
        AiSdkErrorCode.INVALID_ACCESS,
        `fromAiSdkTools: access names the tool "${name}", which is not in the tool set${near ? ` (did you mean "${near}"?)` : ""}. Its tools: ${toolNames.join(", ") || "none"}.`,
      );
    }
    if (typeof entry === "function") continue;
    if (entry === null || typeof entry !== "object") throw invalid(name, "must be an object of field lists, or a function (input, env) => ToolAccess");
    for (const kind of FIELD_KINDS) {
      const fields = entry[kind];
      if (fields !== undefined && !(Array.isArray(fields) && fields.every((field) => typeof field === "string" && field !== ""))) {
        throw invalid(name, `${kind} must be a list of the tool's input field names`);
      }
    }
    const unknown = Object.keys(entry).filter((key) => key !== "annotations" && !(FIELD_KINDS as readonly string[]).includes(key));
    if (unknown.length > 0) throw invalid(name, `has unknown key ${unknown.map((key) => `"${key}"`).join(", ")}; the keys are ${[...FIELD_KINDS, "annotations"].join(", ")}`);
  }
}

function invalid(name: string, what: string): ToolhostError {
  return new ToolhostError(AiSdkErrorCode.INVALID_ACCESS, `fromAiSdkTools: access of "${name}" ${what}.`);
}

/** The access a call declares under a mapping: the named fields' strings, paths made absolute against `cwd`. */
export function accessOf(mapping: AiSdkToolAccess, input: unknown, env: AccessEnvironment): ToolAccess | undefined {
  if (input === null || typeof input !== "object") return undefined;
  const values = (fields: readonly string[] | undefined): string[] =>
    (fields ?? []).flatMap((field) => {
      const value = (input as Record<string, unknown>)[field];
      return (Array.isArray(value) ? value : [value]).filter((each): each is string => typeof each === "string" && each !== "");
    });
  const path = (each: string): string => (isAbsolute(each) ? each : resolve(env.cwd, each));
  const access: ToolAccess = {};
  const reads = values(mapping.reads).map(path);
  const writes = values(mapping.writes).map(path);
  const readTrees = values(mapping.readTrees).map(path);
  const commands = values(mapping.commands).map((command) => ({ command, cwd: env.cwd }));
  const network = values(mapping.urls).map((url) => ({ url }));
  if (reads.length > 0) access.reads = reads;
  if (writes.length > 0) access.writes = writes;
  if (readTrees.length > 0) access.readTrees = readTrees;
  if (commands.length > 0) access.commands = commands;
  if (network.length > 0) access.network = network;
  return Object.keys(access).length > 0 ? access : undefined;
}

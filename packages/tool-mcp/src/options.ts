import { type Static, Type } from "@toolhost/core";

const StdioServer = Type.Object(
  {
    // A server's program, its arguments, environment and folder run code: only a trusted config may name them (docs/trust.md).
    command: Type.String({ minLength: 1, description: "the program that runs the server (stdio)", trustedOnly: true }),
    args: Type.Optional(Type.Array(Type.String(), { trustedOnly: true })),
    env: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "added to a minimal environment (PATH, HOME, …)", trustedOnly: true })),
    cwd: Type.Optional(Type.String({ description: "default: the harness's working directory", trustedOnly: true })),
  },
  { additionalProperties: false },
);

const HttpServer = Type.Object(
  {
    // Where calls (and, through ${env:NAME}, the user's secrets) are sent: only a trusted config may choose it.
    url: Type.String({ minLength: 1, description: "a Streamable HTTP endpoint", trustedOnly: true }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { trustedOnly: true })),
  },
  { additionalProperties: false },
);

export const ServerSpec = Type.Union([StdioServer, HttpServer]);
export type ServerSpec = Static<typeof ServerSpec>;
export type StdioServerSpec = Static<typeof StdioServer>;
export type HttpServerSpec = Static<typeof HttpServer>;

/** The options of `@toolhost/tool-mcp`. */
export const McpPluginOptions = Type.Object(
  {
    servers: Type.Record(Type.String({ pattern: "^[A-Za-z0-9_-]{1,32}$" }), ServerSpec, { default: {} }),
    /** Seconds a server has to start and list its tools. */
    startupTimeout: Type.Number({ exclusiveMinimum: 0, default: 30 }),
    /** Seconds a call may take; 0 for no limit. */
    toolTimeout: Type.Number({ minimum: 0, default: 60 }),
    /** Per server, globs of the tool names (the server's own names) to keep. */
    include: Type.Record(Type.String(), Type.Array(Type.String()), { default: {} }),
    /** Per server, globs of tool names to leave out; exclude wins over include. */
    exclude: Type.Record(Type.String(), Type.Array(Type.String()), { default: {} }),
    /** The most characters of a result the model sees; the rest is cut, with a note. */
    maxResultChars: Type.Integer({ minimum: 1000, default: 50_000 }),
    /**
     * The longest message a server may send, in bytes (a line over stdio, a response body or an
     * event over HTTP). A longer one ends the call it answers with TOOLHOST_MCP_MESSAGE_TOO_LARGE.
     */
    maxMessageBytes: Type.Integer({ minimum: 65_536, default: 10 * 1024 * 1024 }),
  },
  { additionalProperties: false },
);
export type McpPluginOptions = Static<typeof McpPluginOptions>;

/**
 * `${workspace}` and `${env:NAME}` in a config string. A variable that is not set is an error
 * naming it, so a server never starts with an empty token.
 */
export function substitute(text: string, workspace: string, where: string): string {
  return text.replace(/\$\{(workspace|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (_match, what: string, name?: string) => {
    if (what === "workspace") return workspace;
    const value = process.env[name as string];
    if (value === undefined) throw new Error(`${where} uses \${env:${name}}, but the environment variable ${name} is not set. Set it, or remove it from the config.`);
    return value;
  });
}

/** A server's spec with every string substituted. */
export function resolveSpec(name: string, spec: ServerSpec, workspace: string): ServerSpec {
  const sub = (text: string, field: string): string => substitute(text, workspace, `servers.${name}.${field}`);
  const subRecord = (record: Record<string, string> | undefined, field: string): Record<string, string> | undefined =>
    record && Object.fromEntries(Object.entries(record).map(([key, value]) => [key, sub(value, `${field}.${key}`)]));
  if ("url" in spec) {
    const headers = subRecord(spec.headers, "headers");
    return { url: sub(spec.url, "url"), ...(headers ? { headers } : {}) };
  }
  const env = subRecord(spec.env, "env");
  return {
    command: sub(spec.command, "command"),
    args: (spec.args ?? []).map((arg, i) => sub(arg, `args[${i}]`)),
    ...(env ? { env } : {}),
    ...(spec.cwd !== undefined ? { cwd: sub(spec.cwd, "cwd") } : {}),
  };
}

/** The MCP hosts `--print-config` knows. */
export const CLIENT_HOSTS = ["claude", "codex", "gemini", "opencode"] as const;
export type ClientHost = (typeof CLIENT_HOSTS)[number];

/** How the host reaches toolhost: a command it starts (stdio), or a URL (HTTP). */
export type ServeEndpoint = { command: string; args: string[] } | { url: string; tokenEnv?: string };

/**
 * The snippet a host's config needs to use toolhost's MCP server, with where it goes as a comment
 * line first.
 */
export function clientConfig(host: ClientHost, endpoint: ServeEndpoint, name = "toolhost"): string {
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  const auth = "url" in endpoint && endpoint.tokenEnv ? endpoint.tokenEnv : undefined;
  switch (host) {
    case "claude":
      return `// .mcp.json in the project (or: claude mcp add --scope project ${name} ...)\n${json({
        mcpServers: {
          [name]:
            "url" in endpoint
              ? { type: "http", url: endpoint.url, ...(auth ? { headers: { Authorization: `Bearer \${${auth}}` } } : {}) }
              : { command: endpoint.command, args: endpoint.args },
        },
      })}`;
    case "gemini":
      return `// .gemini/settings.json (project) or ~/.gemini/settings.json\n${json({
        mcpServers: {
          [name]:
            "url" in endpoint
              ? { httpUrl: endpoint.url, ...(auth ? { headers: { Authorization: `Bearer $${auth}` } } : {}) }
              : { command: endpoint.command, args: endpoint.args },
        },
      })}`;
    case "opencode":
      return `// opencode.json in the project\n${json({
        $schema: "https://opencode.ai/config.json",
        mcp: {
          [name]:
            "url" in endpoint
              ? { type: "remote", url: endpoint.url, enabled: true, ...(auth ? { headers: { Authorization: `Bearer {env:${auth}}` } } : {}) }
              : { type: "local", command: [endpoint.command, ...endpoint.args], enabled: true },
        },
      })}`;
    case "codex": {
      const toml = (value: string): string => JSON.stringify(value);
      const body =
        "url" in endpoint
          ? `url = ${toml(endpoint.url)}\n${auth ? `bearer_token_env_var = ${toml(auth)}\n` : ""}`
          : `command = ${toml(endpoint.command)}\nargs = [${endpoint.args.map(toml).join(", ")}]\n`;
      return `# ~/.codex/config.toml\n[mcp_servers.${name}]\n${body}`;
    }
  }
}

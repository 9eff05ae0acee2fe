import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, USER_CONFIG_DIR } from "./_helpers.js";

// What the hook tests share: payloads in each host's documented shape, and a real `toolhost hook serve`.

/** A Claude Code PreToolUse payload, as Claude Code sends it. */
export const claudePayload = (cwd: string, tool_name: string, tool_input: Record<string, unknown>): string =>
  JSON.stringify({
    session_id: "s1",
    transcript_path: "/tmp/t.jsonl",
    cwd,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name,
    tool_input,
    tool_use_id: "toolu_01",
  });

/** A Gemini CLI BeforeTool payload, as Gemini CLI sends it. */
export const geminiPayload = (cwd: string, tool_name: string, tool_input: Record<string, unknown>): string =>
  JSON.stringify({ session_id: "g1", transcript_path: "/tmp/g.json", cwd, hook_event_name: "BeforeTool", timestamp: new Date().toISOString(), tool_name, tool_input });

/** A running `toolhost hook serve` on 127.0.0.1 (a free port), its URL, its token, and how to stop it (by its PID). */
export interface HookServer {
  url: string;
  /** The bearer token every request must carry: the one given with --token, else the token file's the server made. */
  token: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the built CLI's `toolhost hook serve --http 127.0.0.1:0 <args>` in `cwd`; resolves once it listens. */
export async function startHookServer(cwd: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<HookServer> {
  const child = spawn(process.execPath, [BIN, "hook", "serve", "--http", "127.0.0.1:0", ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const found = /http:\/\/\S+/.exec(text);
      if (found) resolve(found[0]);
    });
    child.once("exit", (code) => reject(new Error(`toolhost hook serve exited with ${code}: ${stderr}`)));
  });
  const pid = child.pid ?? 0;
  const given = args.indexOf("--token");
  const token = given >= 0 ? (args[given + 1] ?? "") : readFileSync(join(USER_CONFIG_DIR, "hook-token"), "utf8").trim();
  return {
    url,
    token,
    pid,
    stop: async () => {
      process.kill(pid, "SIGTERM");
      await exited;
    },
  };
}

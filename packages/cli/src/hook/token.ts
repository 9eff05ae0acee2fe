import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";

// The bearer token of `toolhost hook serve`, which every request must carry, on every address:
// without one, any local user could ask the server to judge calls from any folder. Node built-ins
// only: the forwarding client (bundled without core) reads it too.

/** The environment variable that holds the token (the server's, the forwarding hook's, Claude Code's http hook's header). */
export const TOKEN_ENV = "TOOLHOST_HOOK_TOKEN";

/**
 * The file that keeps the token when no variable gives one: `hook-token` in the user's config
 * folder (`$XDG_CONFIG_HOME/toolhost`, else `~/.config/toolhost`: the folder core's
 * `userConfigDir` names), readable by the user alone. The server makes it on its first start; the
 * forwarding hook, run by the same user, reads it.
 */
export function tokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : process.platform === "win32" && env.APPDATA ? env.APPDATA : join(homedir(), ".config");
  return join(base, "toolhost", "hook-token");
}

/** The token a hook sends: `TOOLHOST_HOOK_TOKEN`, else the token file's, else none. */
export function clientToken(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env[TOKEN_ENV];
  if (given !== undefined && given !== "") return given;
  try {
    const text = readFileSync(tokenFile(env), "utf8").trim();
    return text === "" ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Where the server's token came from, for its start-up note. */
export type TokenSource = "option" | "environment" | "file" | "new file";

/**
 * The server's token: the one given (`--token`), else `TOOLHOST_HOOK_TOKEN`, else the token file's,
 * made with a fresh random token when missing. Throws (with the fix) when the file can be read or
 * changed by another user, or holds no token.
 */
export function serverToken(given: string | undefined, env: NodeJS.ProcessEnv = process.env): { token: string; source: TokenSource; file: string } {
  const file = tokenFile(env);
  if (given !== undefined && given !== "") return { token: given, source: "option", file };
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== "") return { token: fromEnv, source: "environment", file };
  let info: ReturnType<typeof lstatSync> | undefined;
  try {
    info = lstatSync(file);
  } catch {
    info = undefined;
  }
  if (info === undefined) {
    const token = randomBytes(32).toString("base64url");
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${token}\n`, { mode: 0o600 });
    renameSync(temporary, file);
    return { token, source: "new file", file };
  }
  const uid = process.getuid?.();
  if (!info.isFile() || (uid !== undefined && (info.uid !== uid || (info.mode & 0o077) !== 0))) {
    throw new Error(`${file} holds the hook server's token, but it is not a file only you can read and write (chmod 600 ${file}, or remove it to make a new one).`);
  }
  const token = readFileSync(file, "utf8").trim();
  if (token === "") throw new Error(`${file} is empty: remove it (a new token is made), or write a token in it.`);
  return { token, source: "file", file };
}

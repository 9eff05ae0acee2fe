import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { lazyGlob, literalsOf } from "../src/paths/_lazy-glob.js";
import { DEFAULT_REDACT_ENV, PRESETS } from "../src/index.js";
import { policyCases } from "./_helpers.js";

// A glob is compiled only when a text contains the words every match contains: whatever the glob
// and the text, the answer must be picomatch's own.
const WORKSPACES = ["/tmp/ws", "/home/me/my project (2)", "/srv/a+b/@scope/[x]{y}", "/tmp/toolhost-ab-Xy12/sub.dir"];
const ANCHORED = [...Object.values(PRESETS).flatMap((preset) => preset.rules), ...Object.values(policyCases.rulesets).flatMap((set) => set.rules ?? [])]
  .map((rule) => rule.path)
  .filter((path): path is string => path !== undefined);
const HANDWRITTEN = [
  "**/.env",
  "**/.env/**",
  "**/*.pem",
  "**/*.key/**",
  "./src/**",
  "/a/./b/**",
  "/a/../b",
  "**/{a,b}.txt",
  "**/*.{pem,key}",
  "/etc/[pq]asswd",
  "/etc/[!x]asswd",
  "**/!(x).env",
  "**/@(a|b)",
  "**/+(ab)",
  "**/?(x).env",
  "!**/.env",
  "**/\\*.env",
  "**/a\\.env",
  '**/"quoted".env',
  "/srv/a\\+b/**",
  "**/id_rsa",
  "**/.config/gcloud/**",
  "/root/.docker/config.json",
  "~/x",
  "**/ünï.txt",
  "**/a b.txt",
  "**/a$b^c.txt",
  "**/a-b_c.d",
  "/**",
  "**",
  "*",
];
const PATHS = [
  "/tmp/ws",
  "/tmp/ws/",
  "/tmp/ws/src/a.ts",
  "/tmp/ws/.env",
  "/tmp/ws/.env/",
  "/tmp/ws/.env/x",
  "/tmp/ws/x.env",
  "/tmp/ws/.env.local/x",
  "/tmp/ws/sub/.env.local",
  "/tmp/ws/key.pem",
  "/tmp/ws/dir.key/in",
  "/tmp/ws/a.txt",
  "/tmp/ws/c.txt",
  ".env",
  "src/a.ts",
  "/etc/passwd",
  "/etc/qasswd",
  "/etc/xasswd",
  "/a/b",
  "/a/./b/c",
  "/b",
  "/root/.ssh/id_rsa",
  "/root/.docker/config.json",
  "/root/.config/gcloud/creds",
  "/home/me/my project (2)/src/a.ts",
  "/srv/a+b/@scope/[x]{y}/f",
  "/tmp/toolhost-ab-Xy12/sub.dir/z",
  "/x/*.env",
  "/x/a.env",
  "/x/aenv",
  '/x/"quoted".env',
  "/x/quoted.env",
  "/x/ab",
  "/x/ababab",
  "/x/ünï.txt",
  "/x/a b.txt",
  "/x/a$b^c.txt",
  "/x/a-b_c.d",
  "~/x",
  "/",
];

function globsOf(pattern: string, workspace: string): string[] {
  const escaped = workspace.replace(/[*?[\]{}()!+@\\]/g, "\\$&");
  if (pattern.startsWith("${workspace}")) return [escaped + pattern.slice("${workspace}".length)];
  if (pattern.startsWith("~/")) return [`/root${pattern.slice(1)}`];
  if (!pattern.includes("/")) return [`**/${pattern}`, `**/${pattern}/**`];
  return [pattern];
}

describe("globs compiled on demand", () => {
  const globs = [...new Set([...WORKSPACES.flatMap((ws) => ANCHORED.flatMap((pattern) => globsOf(pattern, ws))), ...HANDWRITTEN])];
  const paths = [...PATHS, ...WORKSPACES.flatMap((ws) => [ws, `${ws}/.env`, `${ws}/src/a.ts`, `${ws}2/x`])];

  it.each(globs)("path glob %s matches what picomatch matches", (glob) => {
    const ours = lazyGlob(glob);
    const theirs = picomatch(glob, { dot: true });
    for (const path of paths) expect(ours(path), `${glob} on ${path}`).toBe(theirs(path));
  });

  const names = [...DEFAULT_REDACT_ENV, "*_api_key", "Github_*", "*SECRET*", "*_{KEY,TOKEN}", "NPM_[TA]*", "*_\\KEY", "*-x.y_Z9"];
  const envNames = ["GITHUB_TOKEN", "github_token", "Github_Token", "TOKEN", "token", "MY_TOKEN_X", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "db_passwd", "X_PASS", "GOOGLE_API_KEY_1", "PATH", "HOME", "SSH_AUTH_SOCK", "A_KEY", "a_key", "NPM_TOKEN", "NPM_AUTH", "ſECRET", "K_\u212AEY", "İ_TOKEN", "a-x.y_z9", "_KEY", "KEY", "MY_SECRET_", "TOX_TESTENV_PASSENV", "MY_PASS_", "X_PASS/", "X_TOKEN.", "X_TOKENS"];
  it.each(names)("name glob %s matches what picomatch matches without regard to case", (glob) => {
    const ours = lazyGlob(glob, { nocase: true });
    const theirs = picomatch(glob, { dot: true, nocase: true });
    for (const name of envNames) expect(ours(name), `${glob} on ${name}`).toBe(theirs(name));
  });

  it("reads no word from a glob where a word may be optional", () => {
    const none = { words: [], ending: undefined };
    for (const glob of ["**/{a,b}.txt", "/etc/[pq]asswd", "**/!(x).env", "**/@(a|b)", "**/+(ab)", "**/?(x).env", "!**/.env"]) expect(literalsOf(glob)).toEqual(none);
    expect(literalsOf("/home/me/my project \\(2\\)/**")).toEqual({ words: ["home", "me", "my", "project", "2"], ending: undefined });
    expect(literalsOf("./src/**")).toEqual({ words: ["src"], ending: undefined });
    expect(literalsOf("**/a\\.env")).toEqual({ words: ["a", "env"], ending: "env" });
    expect(literalsOf("*_TOKEN")).toEqual({ words: ["_TOKEN"], ending: "_TOKEN" });
  });

  it("refuses a glob picomatch refuses when it is made, not when it is first matched", () => {
    expect(() => lazyGlob(`/${"a".repeat(70_000)}`)).toThrow(/exceeds maximum allowed length/);
    expect(() => lazyGlob("", { nocase: true })).toThrow(/non-empty string/);
  });
});

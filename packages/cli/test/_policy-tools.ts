import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { project } from "./_helpers.js";

/** The workspace as a project whose tools (bash, read, write, …) declare access as tool-bash and tool-fs do. */
export function withAccessTools(dir: string): string {
  project(dir);
  copyFileSync(new URL("../../hooks-policy/test/fixtures/access-tools.mjs", import.meta.url), join(dir, "plugins", "access-tools.mjs"));
  return "./plugins/access-tools.mjs";
}

import { access, readFile, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import type { Cli, CommandModule } from "../cli.js";
import { DEFAULT_PLUGINS, pluginNames } from "../_defaults.js";
import { ExitCode } from "../_output.js";

/** An existing config is never overwritten. */
export class ConfigExistsError extends Error {
  override name = "ConfigExistsError";
  readonly code = "TOOLHOST_CONFIG_EXISTS";
}

export const init: CommandModule = {
  register(program: Command, cli: Cli) {
    program
      .command("init")
      .description("write a starter toolhost.config.json (with $schema) in the working directory; never overwrites")
      .action(
        cli.action(async () => {
          const { CONFIG_FILE_NAMES } = await import("@toolhost/core/config");
          const dir = cli.globals.cwd;
          for (const name of CONFIG_FILE_NAMES) {
            const existing = join(dir, name);
            if (await exists(existing)) {
              throw new ConfigExistsError(`${existing} already exists; toolhost init never overwrites a config. Edit it, or remove it first.`);
            }
          }
          const path = join(dir, "toolhost.config.json");
          const config = { $schema: await schemaReference(dir), plugins: DEFAULT_PLUGINS };
          try {
            await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { flag: "wx" });
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "EEXIST") {
              throw new ConfigExistsError(`${path} already exists; toolhost init never overwrites a config.`);
            }
            throw error;
          }
          if (cli.globals.json) await cli.out(`${JSON.stringify({ configPath: path, config })}\n`);
          else await cli.out(`Wrote ${path}\nInstall its plugins next to it: npm i -D ${pluginNames(DEFAULT_PLUGINS).join(" ")}\n`);
          return ExitCode.OK;
        }),
      );
  },
};

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The schema for `$schema`: the copy installed with @toolhost/core in the project, as a path relative
 * to the config (editors find it offline, at the installed version); without a local install, the
 * published copy of the version the CLI runs with.
 */
async function schemaReference(dir: string): Promise<string> {
  const { installedSchemaPath } = await import("@toolhost/core/config");
  const installed = await installedSchemaPath(dir);
  if (installed !== undefined) {
    const path = relative(dir, installed).split(sep).join("/");
    return path.startsWith("../") ? path : `./${path}`;
  }
  const manifest = fileURLToPath(import.meta.resolve("@toolhost/core/package.json"));
  const { version } = JSON.parse(await readFile(manifest, "utf8")) as { version: string };
  return `https://unpkg.com/@toolhost/core@${version}/dist/config/schema.json`;
}

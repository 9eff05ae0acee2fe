import picomatch from "picomatch";
import { DEFAULT_REDACT_ENV } from "../options.js";
import type { ShellCommandPart } from "../shell/_parse.js";

/*
 * Dumps of the environment (issue 39): `printenv`, `env`, `export -p`, `declare -x`, `set`, jq's
 * `env`, awk's `ENVIRON`, `ps e`, and a printer given a secret's variable (`echo $GITHUB_TOKEN`).
 * The host's redaction masks the values of the variables it knows by name (`redactEnv`), not every
 * secret the environment holds (a `DATABASE_URL` with its password), and a confined call inherits
 * the environment too: so a dump asks, confined or not.
 */

/** Names that hold secrets: the redactor's default globs, and the common ones they miss. */
const SECRET_VARIABLE = picomatch([...DEFAULT_REDACT_ENV, "*_SECRET_ACCESS_KEY", "*TOKEN*", "*SECRET*", "*PASSW*", "*_AUTH", "*CREDENTIAL*", "*_PAT", "DATABASE_URL", "*_DSN", "*PRIVATE*"], { nocase: true });

/** The programs this file judges: every other one is no dump. */
const DUMPERS = new Set(["printenv", "env", "set", "export", "declare", "typeset", "jq", "gojq", "yq", "xq", "tomlq", "awk", "gawk", "mawk", "nawk", "ps", "echo", "printf", "print"]);

/** Printers: what they are given goes to the output. */
const PRINTERS = new Set(["echo", "printf", "print"]);

/** Why a command prints the environment's values, or undefined. */
export function environmentDump(program: string, part: ShellCommandPart): string | undefined {
  if (!DUMPERS.has(program)) return undefined;
  const rest = part.words.slice(1);
  const values = rest.map((word) => word.value);
  if (program === "printenv") {
    const names = values.filter((value) => value === undefined || !value.startsWith("-"));
    if (names.length === 0) return "printenv prints every variable of the environment";
    if (names.some((name) => name === undefined || SECRET_VARIABLE(name))) return "printenv prints a variable that may hold a secret";
    return undefined;
  }
  if (program === "env") return envAlone(values);
  if (program === "set" && rest.length === 0) return "set prints every variable with its value";
  if ((program === "export" || program === "declare" || program === "typeset") && values.every((value) => value !== undefined && /^-[a-zA-Z]+$/.test(value) && !/[fF]/.test(value))) {
    return `${[program, ...values].join(" ")} prints the variables with their values`;
  }
  if (program === "jq" || program === "gojq" || program === "yq" || program === "xq" || program === "tomlq") {
    if (rest.some((word) => /(^|[^\w$.])(env|strenv|\$ENV)\b/.test(word.value ?? word.text))) return `${program}'s env / strenv / $ENV is the environment`;
  }
  if (/^(g|m|n)?awk$/.test(program) && rest.some((word) => /\bENVIRON\b/.test(word.value ?? word.text))) return "awk's ENVIRON is the environment";
  if (program === "ps" && rest.some((word) => /^[a-zA-Z]*e[a-zA-Z]*$/.test(word.value ?? "") || word.value === "-E")) return "ps e prints the environment of processes";
  if (PRINTERS.has(program) || program === "declare" || program === "typeset") {
    for (const word of rest) {
      const why = secretExpansion(word.text);
      if (why !== undefined) return `${program} prints ${why}`;
    }
  }
  return undefined;
}

/** `env` with no program (its options and assignments aside) prints the environment; `env -i` only what it sets. */
function envAlone(values: Array<string | undefined>): string | undefined {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === undefined) return undefined;
    if (value === "-i" || value === "--ignore-environment" || value === "-") return undefined;
    if (/^(-u|--unset|-C|--chdir|-S|--split-string)$/.test(value)) {
      i += 1;
      continue;
    }
    if (value.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) continue;
    return undefined;
  }
  return "env with no program prints every variable of the environment";
}

/** A variable a word expands that may hold a secret (`$GITHUB_TOKEN`, `${AWS_SECRET_ACCESS_KEY}`), or one named at run time (`${!name}`). */
function secretExpansion(text: string): string | undefined {
  if (/\$\{!/.test(text)) return "a variable named at run time";
  for (const match of text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const name = match[1] as string;
    if (SECRET_VARIABLE(name)) return `$${name}, which may hold a secret`;
  }
  return undefined;
}

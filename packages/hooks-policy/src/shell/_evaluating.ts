import { CODE_VARIABLES, SYSTEM_PLACES } from "../inventory/_inline-code.js";
import type { Analysis } from "./_parts.js";
import type { ShellWord } from "./_words.js";

/*
 * Bash as bash runs it (issue 39): the expansions and builtins that evaluate text again, the
 * variables that tell a runtime where to load code from, and what outlives the call.
 */

/** A place a variable's value names outside the workspace (`/tmp/evil`, `~/x`, `../x`, a URL), or undefined. */
export function outsideValue(text: string): string | undefined {
  for (const piece of text.split(/[\s:;,=]+|(?<=-[A-Za-z])(?=[/~])/)) {
    const value = piece.replace(/^["']|["']$/g, "");
    if (value === "" || /^\$\{?(PATH|PWD|[A-Z_]*PATH)\}?$/.test(value) || /^\$\{?PWD\}?(\/|$)/.test(value)) continue;
    if (/^(https?|ftp|data)$/i.test(value) || value.startsWith("//")) return `${text}: an address`;
    if (value.startsWith("~") || value.startsWith("$HOME") || value.startsWith("${HOME}")) return `${value}, in the home folder`;
    if (value.startsWith("/") && !SYSTEM_PLACES.test(value)) return `${value}, outside the workspace`;
    if (value === ".." || value.startsWith("../")) return `${value}, outside the workspace`;
    if (value.startsWith("$")) return `${value}, known only at run time`;
  }
  return undefined;
}

/** `PYTHONPATH=/tmp/evil pytest`, `JAVA_TOOL_OPTIONS=-javaagent:/tmp/a.jar mvn test`: code loaded from outside the project. True when it judged the variable. */
export function codeVariable(analysis: Analysis, name: string, value: ShellWord | undefined, text: string): boolean {
  if (!CODE_VARIABLES.test(name)) return false;
  const given = value?.value ?? value?.text ?? text.slice(text.indexOf("=") + 1);
  const outside = outsideValue(given);
  if (outside !== undefined) analysis.unknown(text, `setting ${name} makes the program load code, settings or tools from ${outside}, which is not the project's`);
  return true;
}

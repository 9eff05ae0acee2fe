import { PROGRAMS } from "./_programs.js";

/*
 * The inventory as the README shows it: one table row per entry of `_programs.ts`, its programs,
 * its kind and its clauses as written. test/readme.test.ts checks the README holds exactly this.
 */

/** One row of the README's inventory table. */
export interface TableRow {
  programs: string;
  kind: string;
  clauses: string;
}

export function inventoryRows(): TableRow[] {
  return PROGRAMS.map(([programs, text]) => {
    const [kind = "", ...clauses] = text.split(" | ");
    return { programs, kind, clauses: clauses.join("; ") };
  });
}

const code = (text: string) => (text === "" ? "" : `\`${text.replaceAll("|", "\\|")}\``);

/** The table in Markdown. */
export function inventoryTable(): string {
  const lines = ["| programs | kind | what changes it |", "|---|---|---|"];
  for (const row of inventoryRows()) {
    lines.push(`| ${row.programs.split(" ").map(code).join(" ")} | ${code(row.kind)} | ${row.clauses.split("; ").filter((each) => each !== "").map(code).join("; ")} |`);
  }
  return lines.join("\n");
}

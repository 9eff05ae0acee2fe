// The README says what the code does: every preset rule as it is, and the program inventory row by
// row. `UPDATE_README=1 pnpm vitest run test/readme.test.ts` writes the generated tables.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PRESETS, type PolicyRule } from "../src/index.js";
import { Inventory } from "../src/inventory/_inventory.js";
import { PROGRAMS } from "../src/inventory/_programs.js";
import { parseRow, rowWords } from "../src/inventory/_row.js";
import { inventoryTable } from "../src/inventory/_table.js";

const file = new URL("../README.md", import.meta.url);
let readme = readFileSync(file, "utf8");

const cell = (text: string) => text.replaceAll("|", "\\|");

function matcherOf(rule: PolicyRule): string {
  const conditions = [rule.sandboxed === undefined ? undefined : `sandboxed: ${rule.sandboxed}`, rule.trusted === undefined ? undefined : `trusted: ${rule.trusted}`].filter(Boolean);
  const matcher =
    rule.command !== undefined
      ? `command \`${rule.command}\``
      : rule.path !== undefined
        ? `path \`${rule.path}\``
        : rule.url !== undefined
          ? `url \`${rule.url}\``
          : rule.host !== undefined
            ? `host \`${rule.host}\``
            : rule.address !== undefined
              ? `address ${[rule.address].flat().map((each) => `\`${each}\``).join(", ")}`
              : rule.inline
              ? "inline: true"
              : rule.kind !== undefined
                ? `kind ${[rule.kind].flat().map((each) => `\`${each}\``).join(", ")}`
                : "every call";
  return [matcher, ...conditions].join(", ");
}

function presetTables(): string {
  return Object.entries(PRESETS)
    .map(([name, preset]) => {
      const rows = preset.rules.map((rule, index) => `| ${name}:rules[${index}] | ${[rule.tool ?? "*"].flat().join(", ")} | ${cell(matcherOf(rule))} | ${rule.decision} | ${cell(rule.reason ?? "")} |`);
      return [`#### ${name}`, "", `default: \`${preset.default}\``, "", "| id | tool | matches | decision | reason |", "|---|---|---|---|---|", ...rows].join("\n");
    })
    .join("\n\n");
}

/** The text between `<!-- NAME:start -->` and `<!-- NAME:end -->`, written anew when UPDATE_README is set. */
function section(name: string, generated: string): string {
  const start = `<!-- ${name}:start -->\n`;
  const end = `\n<!-- ${name}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  expect(from, `README.md has ${start.trim()}`).toBeGreaterThan(-1);
  expect(to, `README.md has ${end.trim()}`).toBeGreaterThan(from);
  if (process.env.UPDATE_README) {
    readme = readme.slice(0, from + start.length) + generated + readme.slice(to);
    writeFileSync(file, readme);
  }
  return readme.slice(from + start.length, readme.indexOf(end));
}

describe("README", () => {
  it("documents every preset rule as it is", () => {
    expect(section("presets", presetTables())).toBe(presetTables());
    for (const [name, preset] of Object.entries(PRESETS)) {
      preset.rules.forEach((rule, index) => {
        const matcher = rule.command ?? rule.path ?? rule.url ?? rule.host ?? [rule.address ?? []].flat()[0] ?? (rule.inline ? "inline: true" : rule.kind !== undefined ? [rule.kind].flat()[0] : "every call");
        const line = readme.split("\n").find((each) => each.startsWith(`| ${name}:rules[${index}] |`));
        expect(line, `${name}:rules[${index}]`).toBeDefined();
        expect(line).toContain((matcher as string).replaceAll("|", "\\|"));
        expect(line).toContain(`| ${rule.decision} |`);
      });
      expect(readme.split("\n").some((each) => each.startsWith(`| ${name}:rules[${preset.rules.length}] |`))).toBe(false);
    }
  });

  it("holds the program inventory's table as the code has it", () => {
    expect(section("inventory", inventoryTable())).toBe(inventoryTable());
  });
});

/** The README's inventory table, read back: each row's programs, and its row text (`kind | clause | …`). */
function tableRows(): Array<{ programs: string[]; text: string; line: string }> {
  const body = section("inventory", inventoryTable());
  return body
    .split("\n")
    .slice(2)
    .map((line) => {
      const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((each) => each.trim());
      const unquote = (text: string) => text.replace(/^`|`$/g, "").replaceAll("\\|", "|");
      const programs = (cells[0] ?? "").split(" ").map(unquote);
      const clauses = (cells[2] ?? "") === "" ? [] : (cells[2] as string).split("; ").map(unquote);
      return { programs, text: [unquote(cells[1] ?? ""), ...clauses].join(" | "), line };
    });
}

describe("the program inventory round-trips through the README's table", () => {
  const rows = tableRows();

  it("every row of the code is a row of the README, word for word, and no other", () => {
    expect(rows.map((row) => [row.programs.join(" "), row.text])).toEqual(PROGRAMS.map(([names, text]) => [names, text]));
    for (const [names, text] of PROGRAMS) {
      const line = rows.find((row) => row.programs.join(" ") === names)?.line ?? "";
      for (const word of [...names.split(" "), ...rowWords(parseRow(text))]) expect(line, `${names}: ${word}`).toContain(word);
    }
  });

  it("every program the README names is what the inventory looks it up as (a seeded sample, then all)", () => {
    const inventory = Inventory.builtin();
    const all = rows.flatMap((row) => row.programs.map((program) => ({ program, text: row.text })));
    let seed = 33;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const sample = Array.from({ length: 200 }, () => all[Math.floor(random() * all.length)] as { program: string; text: string });
    for (const { program, text } of [...sample, ...all]) {
      const entry = inventory.lookup(program);
      expect(entry?.row.text, program).toBe(text);
      // Every word survives the grammar: the row read back names the same kind and clauses.
      expect(rowWords(parseRow(text)).join(" "), program).toBe(rowWords(entry?.row ?? parseRow("read-only")).join(" "));
    }
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PRESETS } from "../src/index.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("README", () => {
  it("documents every preset rule as it is", () => {
    for (const [name, preset] of Object.entries(PRESETS)) {
      preset.rules.forEach((rule, index) => {
        const matcher = rule.command ?? rule.path ?? rule.url ?? rule.host ?? (rule.inline ? "inline: true" : "every call");
        const line = readme.split("\n").find((each) => each.startsWith(`| ${name}:rules[${index}] |`));
        expect(line, `${name}:rules[${index}]`).toBeDefined();
        expect(line).toContain(matcher.replaceAll("|", "\\|"));
        expect(line).toContain(`| ${rule.decision} |`);
      });
      expect(readme.split("\n").some((each) => each.startsWith(`| ${name}:rules[${preset.rules.length}] |`))).toBe(false);
    }
  });
});

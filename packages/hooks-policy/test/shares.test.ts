// Issue 33's targets: at most 5% of harmless commands asked about (trusted unconfined, and
// confined; in a workspace not trusted the project's build and tests ask by design), and no
// dangerous command of any class let through.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { makeWorkspace } from "./_helpers.js";
import { classWorkspace } from "./inventory-classes.js";
import { dangerousThrough, harmlessOf, harmlessShare, MODES } from "./shares.js";

const harmless = harmlessOf(readFileSync(new URL("./harmless-commands.json", import.meta.url), "utf8"));

const { ws, cleanup } = makeWorkspace();
classWorkspace(ws);
afterAll(() => cleanup());

const percent = (part: number, total: number) => `${((100 * part) / total).toFixed(1)}%`;

describe("harmless commands agents run", () => {
  for (const mode of MODES) {
    const share = harmlessShare(ws, mode, harmless);
    const asked = share.asked.length + share.denied.length;
    it(`${mode}: ${asked} of ${share.total} asked about or denied (${percent(asked, share.total)})`, () => {
      expect(share.total).toBeGreaterThanOrEqual(300);
      // None is denied: a denial of a harmless command is a bug, not a share.
      expect(share.denied).toEqual([]);
      if (mode !== "open") expect(asked / share.total, share.asked.join("\n")).toBeLessThanOrEqual(0.05);
    });
  }
});

describe("dangerous commands, class by class", () => {
  for (const mode of MODES) {
    for (const each of dangerousThrough(ws, mode)) {
      it(`${mode}: ${each.className}: ${each.through.length} of ${each.total} let through${mode === "confined" ? ` (${each.bounded} run bounded by the sandbox)` : ""}`, () => {
        expect(each.total).toBeGreaterThan(0);
        expect(each.through).toEqual([]);
      });
    }
  }
});

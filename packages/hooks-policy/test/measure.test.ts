// Issue 39's goals, over the measurement tables of measure.ts: unconfined, trusted or not, no
// dangerous case of any set is allowed; in every mode at most 5% of the harmless ones are asked
// (each of our own sets, test/sets/own-*.json, on its own too); and no mode asks more, or lets more
// through confined, than was last measured (lower the numbers when a class is fixed; they may never rise).
import { afterAll, describe, expect, it } from "vitest";
import { allSets, MODES, rowsOf, setWorkspace, table, type Row } from "./measure.js";

const { ws, cleanup } = setWorkspace();
afterAll(() => cleanup());

const sets = allSets();
const rows: Row[] = sets.flatMap((set) => rowsOf(set, ws));
const shown = (row: Row, which: "dangerousAllowed" | "harmlessAsked") => row[which].map((one) => `${one.case.id} ${JSON.stringify(one.case.args)}: ${one.reason}`).join("\n");

describe("our own sets meet the goals", () => {
  const own = rows.filter((row) => row.set.startsWith("own-"));
  it("there is one", () => expect(own.length).toBeGreaterThan(0));
  for (const row of own) {
    it(`${row.set} ${row.mode}: ${row.dangerousAllowed.length} of ${row.dangerous} dangerous allowed, ${row.harmlessAsked.length} of ${row.harmless} harmless asked`, () => {
      expect(row.dangerous).toBeGreaterThan(0);
      expect(row.harmless).toBeGreaterThan(0);
      if (row.mode !== "confined") expect(row.dangerousAllowed, shown(row, "dangerousAllowed")).toEqual([]);
      expect(row.harmlessAsked.length / row.harmless, shown(row, "harmlessAsked")).toBeLessThanOrEqual(0.05);
      expect(row.harmlessAsked.filter((one) => one.decision === "deny"), "a harmless case denied").toEqual([]);
    });
  }
});

describe("every set unconfined: no dangerous case allowed (issue 39's goal)", () => {
  for (const row of rows.filter((each) => each.mode !== "confined")) {
    it(`${row.set} ${row.mode}: ${row.dangerousAllowed.length} of ${row.dangerous} dangerous allowed`, () => {
      expect(row.dangerousAllowed.map((one) => `${one.case.id} ${JSON.stringify(one.case.args)}: ${one.reason}`)).toEqual([]);
    });
  }
});

/**
 * What was measured over every set (own included), per mode: never more. Each case is counted by
 * what it expects in that mode (our own sets say where trusted or confined differ); untrusted, the
 * harmless cases asked only because they run the project's own code are left out (the goals allow them).
 */
const AT_MOST: Record<(typeof MODES)[number], { dangerousAllowed: number; harmlessAsked: number }> = {
  untrusted: { dangerousAllowed: 0, harmlessAsked: 38 },
  trusted: { dangerousAllowed: 0, harmlessAsked: 38 },
  confined: { dangerousAllowed: 405, harmlessAsked: 12 },
};

describe("every set, per mode: no more let through or asked than measured", () => {
  for (const mode of MODES) {
    const of = rows.filter((row) => row.mode === mode);
    const allowed = of.reduce((sum, row) => sum + row.dangerousAllowed.length, 0);
    const asked = of.reduce((sum, row) => sum + row.harmlessAsked.length, 0);
    const harmless = of.reduce((sum, row) => sum + row.harmless, 0);
    it(`${mode}: ${allowed} dangerous allowed, ${asked} of ${harmless} harmless asked`, () => {
      expect(allowed, table(of)).toBeLessThanOrEqual(AT_MOST[mode].dangerousAllowed);
      expect(asked, table(of)).toBeLessThanOrEqual(AT_MOST[mode].harmlessAsked);
      // The goal: at most 5% of the harmless asked, in every mode (untrusted, the project's runners aside).
      expect(asked / harmless, table(of)).toBeLessThanOrEqual(0.05);
    });
  }
});

import { homedir } from "node:os";
import { resolve } from "node:path";
import { controlFileOf } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import { decideLayered, type Layering, worst } from "../src/explain/_explanation.js";
import { PRESETS } from "../src/index.js";
import type { Decision } from "../src/options.js";
import { anchorsOf, procAlias, resolvePath } from "../src/paths/_paths.js";
import { controlFileAt } from "../src/rules/_control-files.js";
import { type Element, runBits, runSets } from "../src/rules/_command-pattern.js";
import { PathIndex } from "../src/rules/_path-index.js";
import { type CompiledRule, compileRule } from "../src/rules/_rules.js";

// What bench/policy's decision saves is computed again or remembered, never judged otherwise:
// each shortcut must answer what the long way answers, whatever the path.

const BASES = ["/", "/tmp/ws", "/tmp/ws/", "/tmp//ws", "/tmp/./ws", "/tmp/ws/..", "/home/me/my project (2)", "/a/.b/..c/...", "relative/base", "", "."];
const VALUES = ["", ".", "..", "a", "a/b", "a/", "a//b", "./a", "a/./b", "a/../b", "../a", "/", "/etc/passwd", "/etc//passwd", "/etc/./passwd", "/etc/../etc/passwd", "/etc/", ".env", "..env", "...", ".../x", "a/.b", "~/x", "~", "x y/z", "/proc/self/root/etc/shadow", "/dev/fd/3", "a\\b"];

describe("resolvePath", () => {
  it("is node's resolve(base, value) for every base and value", () => {
    for (const base of BASES) for (const value of VALUES) expect(resolvePath(base, value), `${base} + ${value}`).toBe(resolve(base, value));
  });
});

describe("procAlias", () => {
  it("leaves a path outside /proc and /dev/fd as it is, and still follows /proc/self/root", () => {
    expect(procAlias("/etc/passwd", "/tmp")).toBe("/etc/passwd");
    expect(procAlias("/dev/null", "/tmp")).toBe("/dev/null");
    expect(procAlias("/proc/self/root/etc/shadow", "/tmp")).toBe("/etc/shadow");
    expect(procAlias("/proc/self/cwd/.env", "/tmp/ws")).toBe("/tmp/ws/.env");
    expect(procAlias("/proc/1/cwd/.env", "/tmp/ws")).toBeUndefined();
    expect(procAlias("/dev/fd/3", "/tmp")).toBeUndefined();
    expect(procAlias("/dev/fd/1", "/tmp")).toBe("/dev/fd/1");
  });
});

const ANCHORS = anchorsOf("/tmp/ws");
const HOME = homedir();
const PATHS = [
  "/tmp/ws/.env",
  "/tmp/ws/src/a.ts",
  "/tmp/ws/.env.local",
  "/tmp/ws/.env.example",
  "/tmp/ws/keys/server.pem",
  "/tmp/ws/.git/hooks/pre-commit",
  "/tmp/ws/.git/config",
  "/tmp/ws/package.json",
  `${HOME}/.ssh/id_rsa`,
  `${HOME}/.bashrc`,
  `${HOME}/.npm/_cacache/x`,
  `${HOME}/.aws/credentials`,
  "/etc/shadow",
  "/etc/hosts",
  "/usr/share/dict/words",
  "/run/secrets/token",
  "/proc/self/environ",
  "/",
  "/tmp",
];

function compiled(): CompiledRule[] {
  const rules = PRESETS.recommended.rules.map((rule, at) => compileRule(rule, `recommended:rules[${at}]`, ANCHORS, `rules[${at}]`));
  rules.forEach((rule, order) => {
    rule.order = order;
  });
  return rules.filter((rule) => rule.path !== undefined);
}

describe("PathIndex.matching, remembered", () => {
  const rules = compiled();
  it("finds every rule whose matcher matches, in order, the first time and every time after", () => {
    const index = new PathIndex(rules, ANCHORS);
    for (const round of [1, 2, 3]) {
      for (const path of PATHS) {
        const expected = rules.filter((rule) => (rule.path as (path: string) => boolean)(path)).map((rule) => rule.id);
        expect(index.matching(path).map((rule) => rule.id), `${path} (round ${round})`).toEqual(expected);
      }
    }
  });

  it("gives each caller its own list: changing one changes no later answer", () => {
    const index = new PathIndex(rules, ANCHORS);
    const first = index.matching("/tmp/ws/.env");
    expect(first.length).toBeGreaterThan(0);
    const ids = first.map((rule) => rule.id);
    first.length = 0;
    expect(index.matching("/tmp/ws/.env").map((rule) => rule.id)).toEqual(ids);
    const none = index.matching("/tmp/ws/src/a.ts");
    none.push(rules[0] as CompiledRule);
    expect(index.matching("/tmp/ws/src/a.ts").map((rule) => rule.id)).toEqual(rules.filter((rule) => (rule.path as (path: string) => boolean)("/tmp/ws/src/a.ts")).map((rule) => rule.id));
  });
});

describe("controlFileAt, remembered", () => {
  it("is core's control file from either home folder, the first time and every time after", () => {
    const anchors = { workspaces: ["/tmp/ws"], homes: ["/home/me", "/data/me"] };
    const paths = ["/tmp/ws/.git/hooks/pre-commit", "/tmp/ws/src/a.ts", "/home/me/.bashrc", "/data/me/.bashrc", "/data/me/notes.txt", "/etc/profile.d/x.sh", "/etc/hosts"];
    for (const round of [1, 2]) {
      for (const path of paths) {
        const expected = anchors.homes.map((home) => controlFileOf(path, { home })).find((found) => found !== undefined);
        expect(controlFileAt(path, anchors), `${path} (round ${round})`).toEqual(expected);
      }
    }
    // Another policy's home folders are its own.
    expect(controlFileAt("/data/me/.bashrc", { workspaces: ["/tmp/ws"], homes: ["/home/me"] })).toBeUndefined();
  });
});

describe("a command pattern's run over the operands", () => {
  it("answers with bits as with sets, for any elements and operands, sure or not", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const ELEMENTS: Element[] = [{ kind: "many" }, { kind: "one" }, { kind: "word", exact: /^a$/ }, { kind: "word", exact: /^b.*$/ }];
    const ARGS = [
      { text: "a", value: "a", splits: false, tilde: false },
      { text: "bx", value: "bx", splits: false, tilde: false },
      { text: "c", value: "c", splits: false, tilde: false },
      { text: "$x", value: undefined, splits: true, tilde: false },
      { text: '"$x"', value: undefined, splits: false, tilde: false },
    ];
    for (let i = 0; i < 20_000; i++) {
      const elements = Array.from({ length: random(7) }, () => ELEMENTS[random(ELEMENTS.length)] as Element);
      const args = Array.from({ length: random(7) }, () => ARGS[random(ARGS.length)] as (typeof ARGS)[number]);
      for (const sure of [true, false]) expect(runBits(elements, args, sure), JSON.stringify({ elements: elements.map((each) => each.kind), args: args.map((each) => each.text), sure })).toBe(runSets(elements, args, sure));
    }
  });
});

describe("decideLayered", () => {
  // By layer, as it was written: each layer's most severe, the last layer's decides, never below a locked layer's.
  function byLayers(matched: Array<{ id: string; decision: Decision }>, layering: Layering): Decision {
    const byLayer = new Map<number, Decision>();
    const locked = new Set<number>();
    for (const entry of matched) {
      const where = layering.layerOf(entry.id) ?? { index: Number.MAX_SAFE_INTEGER, locked: false };
      byLayer.set(where.index, worst(byLayer.get(where.index) ?? "allow", entry.decision));
      if (where.locked) locked.add(where.index);
    }
    let floor: Decision = "allow";
    let last: Decision = "allow";
    for (const index of [...byLayer.keys()].sort((a, b) => a - b)) {
      last = byLayer.get(index) as Decision;
      if (locked.has(index)) floor = worst(floor, last);
    }
    return worst(last, floor);
  }

  it("decides as layer by layer, for any matches in any layers, locked or not", () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const DECISIONS: Decision[] = ["allow", "ask", "deny"];
    for (let i = 0; i < 5_000; i++) {
      const layers = Array.from({ length: 1 + random(4) }, (_, index) => ({ index, locked: random(3) === 0 }));
      const layering: Layering = { default: "ask", layerOf: (id) => (id === "nowhere" ? undefined : layers[Number(id)]) };
      const matched = Array.from({ length: random(6) }, () => ({ id: random(6) === 0 ? "nowhere" : String(random(layers.length)), decision: DECISIONS[random(3)] as Decision }));
      expect(decideLayered(matched, layering), JSON.stringify({ layers, matched })).toBe(byLayers(matched, layering));
    }
  });
});

import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Type } from "../src/index.js";
import { wideningsOf } from "../src/config/index.js";

const temp = mkdtempSync(join(tmpdir(), "toolhost-reach-"));
const workspace = join(temp, "project");
const home = join(temp, "home");
mkdirSync(join(workspace, "src"), { recursive: true });
mkdirSync(join(home, "private"), { recursive: true });
symlinkSync("/", join(workspace, "escape"));
const places = { workspace, home };
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const Options = Type.Object(
  {
    readable: Type.Array(Type.String(), { default: [], reach: "list" }),
    network: Type.Union([Type.Literal("off"), Type.Literal("proxy"), Type.Literal("on")], { default: "off", reach: "order", order: ["off", "proxy", "on"] }),
    sandbox: Type.Union([Type.Literal("off"), Type.Literal("auto"), Type.Literal("required")], { default: "auto", reach: "order", order: ["required", "auto", "off"] }),
    overwrite: Type.Boolean({ default: false, reach: "order", order: [false, true] }),
    limits: Type.Optional(
      Type.Object({
        memoryBytes: Type.Optional(Type.Integer({ default: 8000, reach: "max" })),
        processes: Type.Optional(Type.Integer({ reach: "max" })),
      }),
    ),
    roots: Type.Optional(Type.Array(Type.String(), { reach: "folders" })),
    label: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const paths = (value: unknown, below?: unknown): string[] => wideningsOf(Options, value, below, places).map((each) => each.path);

describe("reach: what an untrusted config may set", () => {
  it("lets a list hold only what the value below holds", () => {
    expect(paths({ readable: ["~/private"] })).toEqual(["readable"]);
    expect(paths({ readable: ["~/private"] }, { readable: ["~/private", "~/.gitconfig"] })).toEqual([]);
    expect(paths({ readable: [] }, { readable: ["~/private"] })).toEqual([]);
    expect(paths({ readable: ["~/.gitconfig", "~/other"] }, { readable: ["~/.gitconfig"] })).toEqual(["readable"]);
    // Another spelling of the same folder is another item: refused, never guessed equal.
    expect(paths({ readable: ["~/private/"] }, { readable: ["~/private"] })).toEqual(["readable"]);
  });

  it("lets a number only be as high, and a limit set below stay set", () => {
    expect(paths({ limits: { memoryBytes: 4000 } })).toEqual([]);
    expect(paths({ limits: { memoryBytes: 9000 } })).toEqual(["limits.memoryBytes"]);
    expect(paths({ limits: { memoryBytes: 9000 } }, { limits: { memoryBytes: 10000 } })).toEqual([]);
    // Unset is the default (8000), higher than the 2000 below.
    expect(paths({}, { limits: { memoryBytes: 2000 } })).toEqual(["limits.memoryBytes"]);
    // No default: unset means no bound, so unset over a set limit widens and any number under nothing narrows.
    expect(paths({}, { limits: { processes: 100 } })).toEqual(["limits.processes"]);
    expect(paths({ limits: { processes: 1_000_000 } })).toEqual([]);
    expect(paths({ limits: { processes: 50 } }, { limits: { processes: 100 } })).toEqual([]);
  });

  it("says what each value is and what it widens", () => {
    expect(wideningsOf(Options, { limits: { memoryBytes: 9000 } }, { limits: { memoryBytes: 2000 } }, places)).toEqual([
      { path: "limits.memoryBytes", value: 9000, below: 2000 },
    ]);
    expect(wideningsOf(Options, {}, { limits: { processes: 100 } }, places)).toEqual([{ path: "limits.processes", value: undefined, below: 100 }]);
  });

  it("lets an ordered value only come as early, defaults filled on both sides", () => {
    expect(paths({ network: "proxy" })).toEqual(["network"]);
    expect(paths({ network: "off" }, { network: "on" })).toEqual([]);
    expect(paths({ network: "proxy" }, { network: "on" })).toEqual([]);
    expect(paths({ network: "on" }, { network: "proxy" })).toEqual(["network"]);
    const Same = Type.Object({ network: Type.String({ default: "off", reach: "order", order: ["off", ["host", "on"]] }) });
    expect(wideningsOf(Same, { network: "on" }, { network: "host" }, places)).toEqual([]);
    expect(wideningsOf(Same, { network: "host" }, {}, places).map((each) => each.path)).toEqual(["network"]);
    expect(wideningsOf(Same, { network: "elsewhere" }, { network: "on" }, places).map((each) => each.path)).toEqual(["network"]);
    expect(paths({ sandbox: "off" })).toEqual(["sandbox"]);
    expect(paths({ sandbox: "auto" }, { sandbox: "required" })).toEqual(["sandbox"]);
    expect(paths({}, { sandbox: "required" })).toEqual(["sandbox"]);
    expect(paths({ sandbox: "required" })).toEqual([]);
    expect(paths({ overwrite: true })).toEqual(["overwrite"]);
    expect(paths({ overwrite: false }, { overwrite: true })).toEqual([]);
  });

  it("takes a lower config's value of the wrong shape as no baseline (the default)", () => {
    expect(paths({ network: "on" }, { network: "everything" })).toEqual(["network"]);
    expect(paths({ readable: ["~/private"] }, { readable: "~/private" })).toEqual(["readable"]);
    expect(paths({ limits: { memoryBytes: 9000 } }, { limits: 5 })).toEqual(["limits.memoryBytes"]);
    expect(paths({ limits: { memoryBytes: 9000 } }, "not options")).toEqual(["limits.memoryBytes"]);
  });

  it("lets folders lie only inside the folders below, symlinks resolved, the workspace by default", () => {
    expect(paths({ roots: ["src"] })).toEqual([]);
    expect(paths({ roots: ["${workspace}", "./src/deeper"] })).toEqual([]);
    expect(paths({ roots: ["/"] })).toEqual(["roots"]);
    expect(paths({ roots: [".."] })).toEqual(["roots"]);
    expect(paths({ roots: ["src/../../"] })).toEqual(["roots"]);
    expect(paths({ roots: ["escape"] })).toEqual(["roots"]);
    expect(paths({ roots: ["escape/etc"] })).toEqual(["roots"]);
    expect(paths({ roots: ["~/private"] })).toEqual(["roots"]);
    expect(paths({ roots: ["~/private"] }, { roots: ["~"] })).toEqual([]);
    expect(paths({ roots: [`${home}/private/notyet`] }, { roots: ["~/private"] })).toEqual([]);
    expect(paths({ roots: [`${home}/privateer`] }, { roots: ["~/private"] })).toEqual(["roots"]);
  });

  it("walks records and unions beside the value", () => {
    const Servers = Type.Record(
      Type.String(),
      Type.Union([
        Type.Object({ kind: Type.Literal("a"), size: Type.Integer({ default: 10, reach: "max" }) }),
        Type.Object({ kind: Type.Literal("b"), hosts: Type.Array(Type.String(), { default: [], reach: "list" }) }),
      ]),
    );
    expect(wideningsOf(Servers, { one: { kind: "a", size: 20 } }, undefined, places).map((each) => each.path)).toEqual(["one.size"]);
    expect(wideningsOf(Servers, { one: { kind: "a", size: 5 } }, undefined, places)).toEqual([]);
    expect(wideningsOf(Servers, { two: { kind: "b", hosts: ["x:1"] } }, { two: { kind: "b", hosts: ["x:1"] } }, places)).toEqual([]);
    expect(wideningsOf(Servers, { two: { kind: "b", hosts: ["x:1", "y:2"] } }, { two: { kind: "b", hosts: ["x:1"] } }, places).map((each) => each.path)).toEqual(["two.hosts"]);
  });

  it("judges an option of a kind it does not know as wider unless equal, and ignores unmarked options", () => {
    const Odd = Type.Object({ mode: Type.Optional(Type.String({ reach: "sideways" })), label: Type.Optional(Type.String()) });
    expect(wideningsOf(Odd, { mode: "x" }, { mode: "y" }, places).map((each) => each.path)).toEqual(["mode"]);
    expect(wideningsOf(Odd, { mode: "x" }, { mode: "x" }, places)).toEqual([]);
    expect(paths({ label: "anything" })).toEqual([]);
  });
});

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AgentHarness } from "@toolhost/core";
import { describe, expect, it } from "vitest";
import fsPlugin, { createFindTool, createGrepTool, SKIPPED_FOLDERS, type FsToolOptions } from "../src/index.js";
import { linesOf, run, tempDir, textOf } from "./_helpers.js";

/** Writes `files` (path → content) under a fresh folder. */
async function project(files: Record<string, string>): Promise<string> {
  const root = await tempDir();
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

const ENGINES = [
  { name: "ripgrep", ripgrep: true },
  { name: "the Node search", ripgrep: false },
] as const;

/** grep's matching files with each engine (sorted: ripgrep prints in the order its threads finish), and find's files; with the details. */
async function searchBoth(root: string, args: Record<string, unknown> = {}, options: FsToolOptions = {}) {
  const seen = [];
  for (const engine of ENGINES) {
    const grep = await run(createGrepTool({ cwd: root, ripgrep: engine.ripgrep, ...options }), { pattern: "needle", ...args });
    expect(grep.isError, textOf(grep)).toBeFalsy();
    expect(grep.details.engine).toBe(engine.ripgrep ? "ripgrep" : "node");
    const files = linesOf(grep).split("\n").filter((line) => line.length > 0 && !line.startsWith("No matches")).map((line) => line.split(":")[0]);
    seen.push({ engine: engine.name, files: files.sort(), note: noteOf(textOf(grep)), skipped: grep.details.skippedFolders });
  }
  return seen;
}

function noteOf(text: string): string | undefined {
  return /\[Skipped [^\]]*\]/.exec(text)?.[0];
}

const TREE = {
  "src/app.js": "needle\n",
  "build/out.js": "needle\n",
  "dist/app.min.js": "needle\n",
  "node_modules/left-pad/index.js": "needle\n",
  "node_modules/left-pad/node_modules/inner/index.js": "needle\n",
  "packages/web/node_modules/react/index.js": "needle\n",
  "packages/web/src/page.js": "needle\n",
  ".venv/lib/site.py": "needle\n",
  "tools/__pycache__/x.pyc.txt": "needle\n",
};

describe("grep and find skip dependency and cache folders when no ignore file says otherwise", () => {
  it("skips node_modules (at any depth), .venv and __pycache__, keeps build and dist, and says what it skipped", async () => {
    const root = await project(TREE);
    const note =
      "[Skipped 4 folders of dependencies or caches: .venv/, node_modules/, packages/web/node_modules/, tools/__pycache__/. To search them, give one as path, or send includeSkipped: true.]";
    for (const seen of await searchBoth(root)) {
      expect(seen.files, seen.engine).toEqual(["build/out.js", "dist/app.min.js", "packages/web/src/page.js", "src/app.js"]);
      expect(seen.note, seen.engine).toBe(note);
      expect(seen.skipped, seen.engine).toEqual([".venv", "node_modules", "packages/web/node_modules", "tools/__pycache__"]);
    }
    const find = await run(createFindTool({ cwd: root }), { pattern: "**/*.js" });
    expect(linesOf(find)).toBe(["build/out.js", "dist/app.min.js", "packages/web/src/page.js", "src/app.js"].join("\n"));
    expect(noteOf(textOf(find))).toBe(note.replace("4 folders", "4 folders"));
    expect(find.details.skippedFolders).toEqual([".venv", "node_modules", "packages/web/node_modules", "tools/__pycache__"]);
  });

  it("a folder a .gitignore lists is left out as before, without a note; one it brings back (!) is searched", async () => {
    const listed = await project({ ...TREE, ".gitignore": "node_modules/\n" });
    for (const seen of await searchBoth(listed)) {
      expect(seen.files, seen.engine).toEqual(["build/out.js", "dist/app.min.js", "packages/web/src/page.js", "src/app.js"]);
      // Only what the default list alone left out is reported.
      expect(seen.skipped, seen.engine).toEqual([".venv", "tools/__pycache__"]);
    }
    const back = await project({ ...TREE, ".gitignore": "!node_modules/\n", "packages/.ignore": "!.venv/\n", ".ignore": "!.venv/\n" });
    for (const seen of await searchBoth(back)) {
      expect(seen.files, seen.engine).toEqual([
        ".venv/lib/site.py",
        "build/out.js",
        "dist/app.min.js",
        "node_modules/left-pad/index.js",
        "node_modules/left-pad/node_modules/inner/index.js",
        "packages/web/node_modules/react/index.js",
        "packages/web/src/page.js",
        "src/app.js",
      ]);
      expect(seen.skipped, seen.engine).toEqual(["tools/__pycache__"]);
    }
  });

  it("a path inside a skipped (or ignored) folder is searched; a skipped folder below it is not", async () => {
    for (const gitignore of ["", "node_modules/\n"]) {
      const root = await project({ ...TREE, ".gitignore": gitignore });
      for (const seen of await searchBoth(root, { path: "node_modules/left-pad" })) {
        expect(seen.files, `${seen.engine}, .gitignore ${JSON.stringify(gitignore)}`).toEqual(["index.js"]);
        if (gitignore === "") {
          expect(seen.skipped, seen.engine).toEqual(["node_modules"]);
          expect(seen.note, seen.engine).toContain("[Skipped 1 folder of dependencies or caches: node_modules/. To search it, give it as path");
        } else {
          // The .gitignore leaves the inner node_modules out: nothing was skipped by the default list.
          expect(seen.skipped, seen.engine).toBeUndefined();
        }
      }
      const find = await run(createFindTool({ cwd: root }), { pattern: "**/*", path: "node_modules/left-pad" });
      expect(linesOf(find)).toBe("index.js");
    }
  });

  it("a glob that matches folders overrides no ignore file and no skipped folder (ripgrep's --glob would)", async () => {
    const root = await project({ ...TREE, ".gitignore": "build/\n*.log\n", "debug.log": "needle\n" });
    for (const glob of ["**/*", "**", "*", "packages/**"]) {
      for (const seen of await searchBoth(root, { glob })) {
        expect(seen.files, `${seen.engine}, glob ${glob}`).not.toContain("build/out.js");
        expect(seen.files, `${seen.engine}, glob ${glob}`).not.toContain("debug.log");
        expect(seen.files, `${seen.engine}, glob ${glob}`).not.toContain("packages/web/node_modules/react/index.js");
        expect(seen.files, `${seen.engine}, glob ${glob}`).toContain("packages/web/src/page.js");
      }
    }
  });

  it("includeSkipped: true searches them all, and nothing is reported", async () => {
    const root = await project(TREE);
    for (const seen of await searchBoth(root, { includeSkipped: true })) {
      expect(seen.files, seen.engine).toHaveLength(Object.keys(TREE).length);
      expect(seen.note, seen.engine).toBeUndefined();
      expect(seen.skipped, seen.engine).toBeUndefined();
    }
    const find = await run(createFindTool({ cwd: root }), { pattern: "**/*", includeSkipped: true });
    expect(linesOf(find).split("\n")).toHaveLength(Object.keys(TREE).length);
    expect(find.details.skippedFolders).toBeUndefined();
  });

  it("reports only skipped folders where the glob could have matched", async () => {
    const root = await project(TREE);
    for (const seen of await searchBoth(root, { glob: "src/**" })) {
      expect(seen.files, seen.engine).toEqual(["src/app.js"]);
      expect(seen.note, seen.engine).toBeUndefined();
    }
    for (const seen of await searchBoth(root, { glob: "packages/*/**" })) {
      expect(seen.files, seen.engine).toEqual(["packages/web/src/page.js"]);
      expect(seen.skipped, seen.engine).toEqual(["packages/web/node_modules"]);
    }
    const find = await run(createFindTool({ cwd: root }), { pattern: "src/*.js" });
    expect(textOf(find)).toBe("src/app.js");
  });

  it("the skipFolders option replaces the list: [] skips none, a list skips what it names", async () => {
    const root = await project(TREE);
    for (const seen of await searchBoth(root, {}, { skipFolders: [] })) {
      expect(seen.files, seen.engine).toHaveLength(Object.keys(TREE).length);
    }
    for (const seen of await searchBoth(root, {}, { skipFolders: ["build", "web/node_modules"] })) {
      expect(seen.files, seen.engine).toEqual([
        ".venv/lib/site.py",
        "dist/app.min.js",
        "node_modules/left-pad/index.js",
        "node_modules/left-pad/node_modules/inner/index.js",
        "packages/web/src/page.js",
        "src/app.js",
        "tools/__pycache__/x.pyc.txt",
      ]);
      expect(seen.skipped, seen.engine).toEqual(["build", "packages/web/node_modules"]);
    }
    expect(() => createGrepTool({ cwd: root, skipFolders: ["../up"] })).toThrow('tool-fs option "skipFolders" takes folder names');
    expect(() => createGrepTool({ cwd: root, skipFolders: ["!node_modules"] })).toThrow('got "!node_modules"');
    expect(SKIPPED_FOLDERS).toContain("node_modules");
    expect(SKIPPED_FOLDERS).not.toContain("build");
    expect(SKIPPED_FOLDERS).not.toContain("dist");
  });

  it("the README names every skipped folder", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("**Skipped folders.**"), readme.indexOf("(`SKIPPED_FOLDERS`)"));
    const named = [...section.matchAll(/`([^`]+)`/g)].map((match) => match[1]).slice(2); // after "find" and "grep"
    expect(named).toEqual([...SKIPPED_FOLDERS]);
  });

  it("the plugin takes skipFolders, and a bad one is a config error", async () => {
    const root = await project(TREE);
    const harness = new AgentHarness({ cwd: root });
    await harness.use(fsPlugin, { skipFolders: ["dist"] });
    const [grep] = await harness.executeToolCalls([{ id: "1", name: "grep", arguments: { pattern: "needle" } }]);
    expect(textOf(grep as never)).toContain("[Skipped 1 folder of dependencies or caches: dist/.");
    const bad = new AgentHarness({ cwd: root });
    await expect(bad.use(fsPlugin, { skipFolders: ["/abs"] })).rejects.toThrow('got "/abs"');
  });
});

describe("both engines rank ignore files as ripgrep does", () => {
  it(".rgignore wins over .ignore, which wins over .gitignore; a deeper file wins within a kind; an entry is judged by itself", async () => {
    const root = await project({
      ".gitignore": "*.txt\ngen/\n/anchored.md\n",
      ".ignore": "!keep.txt\n!gen/\n!rg.txt\n",
      ".rgignore": "rg.txt\n",
      "rg.txt": "needle\n",
      "keep.txt": "needle\n",
      "drop.txt": "needle\n",
      "gen/made.js": "needle\n",
      "anchored.md": "needle\n",
      "sub/anchored.md": "needle\n",
      "sub/.gitignore": "!sub.txt\n",
      "sub/sub.txt": "needle\n",
      "sub/other.txt": "needle\n",
      "logs/.gitignore": "*\n!keep.log\n",
      "logs/keep.log": "needle\n",
      "logs/drop.log": "needle\n",
    });
    const expected = ["gen/made.js", "keep.txt", "logs/keep.log", "sub/anchored.md", "sub/sub.txt"];
    for (const seen of await searchBoth(root)) expect(seen.files, seen.engine).toEqual(expected);
    const find = await run(createFindTool({ cwd: root }), { pattern: "**/*.{js,txt,md,log}" });
    expect(linesOf(find)).toBe(expected.join("\n"));
  });

  it("a grep glob selects the same files with both engines (braces, classes, a comma or a colon in a name)", async () => {
    const root = await project(
      Object.fromEntries(["a.ts", "b.md", "c.js", "src/d.ts", "src/x/e.md", "a,b.txt", "lib/f.ts", "odd:name.ts"].map((path) => [path, "needle\n"])),
    );
    const cases: [string, string[]][] = [
      ["*.{ts,md}", ["a.ts", "b.md", "lib/f.ts", "odd:name.ts", "src/d.ts", "src/x/e.md"]],
      ["src/**/*.{ts,md}", ["src/d.ts", "src/x/e.md"]],
      ["{src,lib}/*.ts", ["lib/f.ts", "src/d.ts"]],
      ["[ab].*", ["a.ts", "b.md"]],
      ["a,b.txt", ["a,b.txt"]],
      ["**/x/*", ["src/x/e.md"]],
      ["*:name.ts", ["odd:name.ts"]],
      ["src/**", ["src/d.ts", "src/x/e.md"]],
    ];
    for (const [glob, expected] of cases) {
      for (const engine of ENGINES) {
        const grep = await run(createGrepTool({ cwd: root, ripgrep: engine.ripgrep }), { pattern: "needle", glob });
        const files = linesOf(grep).split("\n").map((line) => line.replace(/:1:needle$/, "")).sort();
        expect(files, `${engine.name}, glob ${glob}`).toEqual(expected);
      }
    }
  });
});

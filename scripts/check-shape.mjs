// The code's shape, checked as CI runs it (`pnpm test` runs this after the packages' tests):
// - no import loop in any package (madge; type-only imports count: a loop of types is a loop of ideas);
// - no package's index.ts re-exports an internal (`_`) file: what is public has a public name;
// - no function over MAX_LINES lines in the packages listed in STRICT (the others are reported).
// Prints what it found; exits 1 when a rule is broken.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import madge from "madge";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const MAX_LINES = 60;
const STRICT = new Set(process.env.TOOLHOST_SHAPE_STRICT?.split(",") ?? ["core", "cli", "tool-bash", "queue", "tool-fs"]);
const packages = ["packages", "examples"].flatMap((folder) =>
  readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, folder, entry.name, "src")))
    .map((entry) => ({ name: entry.name, src: join(root, folder, entry.name, "src") })),
);

let broken = 0;
for (const { name, src } of packages) {
  const graph = await madge(src, { fileExtensions: ["ts"], tsConfig: join(root, "tsconfig.base.json") });
  for (const loop of graph.circular()) {
    broken += 1;
    console.log(`✗ ${name}: import loop ${loop.join(" → ")} → ${loop[0]}`);
  }
  for (const index of filesNamed(src, "index.ts")) {
    const text = readFileSync(index, "utf8");
    for (const match of text.matchAll(/from\s+"(\.{1,2}\/(?:[^"]*\/)?_[^"/]*)"/g)) {
      broken += 1;
      console.log(`✗ ${name}: ${relative(root, index)} re-exports the internal file ${match[1]}`);
    }
  }
  const long = longFunctions(src).sort((a, b) => b.lines - a.lines);
  for (const each of long) {
    const strict = STRICT.has(name);
    if (strict) broken += 1;
    console.log(`${strict ? "✗" : "·"} ${name}: ${each.where} ${each.name} is ${each.lines} lines (over ${MAX_LINES})`);
  }
}
console.log(broken === 0 ? "shape: no import loop, no internal re-export, no long function in " + [...STRICT].join(", ") : `shape: ${broken} problem(s)`);
process.exit(broken === 0 ? 0 : 1);

function filesNamed(folder, name) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name === name)
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

/** Every function, method, arrow and accessor of the package's sources longer than MAX_LINES, with where it starts. */
function longFunctions(src) {
  const found = [];
  const files = readdirSync(src, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.body.getEnd()).line;
        const lines = end - start + 1;
        if (lines > MAX_LINES) found.push({ where: `${relative(root, file)}:${start + 1}`, name: nameOf(node), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

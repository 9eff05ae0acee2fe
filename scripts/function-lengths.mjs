#!/usr/bin/env node
// Lists the functions of TypeScript sources by length in lines (first line to last, inclusive),
// longest first: `node scripts/function-lengths.mjs packages/tool-fs/src [more folders or files]`.
// `--over N` (default 0) lists only longer ones and exits 1 when there is any, for a CI check.
// A function nested in another is measured on its own and counted in its parent too, as a reader
// meets it. Uses the TypeScript compiler the workspace already has.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const args = process.argv.slice(2);
let over = 0;
const inputs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--over") over = Number(args[++i]);
  else inputs.push(args[i]);
}
if (inputs.length === 0 || !Number.isInteger(over) || over < 0) {
  console.error("usage: node scripts/function-lengths.mjs [--over N] <folder or .ts file>...");
  process.exit(2);
}

function sources(path) {
  if (statSync(path).isFile()) return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
    entry.name === "node_modules" || entry.name === "dist" ? [] : sources(join(path, entry.name)),
  );
}

function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  return "(anonymous)";
}

const found = [];
for (const file of inputs.flatMap(sources)) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      found.push({ where: `${relative(process.cwd(), file)}:${first + 1}`, name: nameOf(node), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
const shown = found.filter((each) => each.lines > over).sort((a, b) => b.lines - a.lines);
for (const each of shown) console.log(`${String(each.lines).padStart(4)}  ${each.name}  ${each.where}`);
if (over > 0) process.exit(shown.length > 0 ? 1 : 0);

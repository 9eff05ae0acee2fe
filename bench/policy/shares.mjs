// Issue 39's measurement tables: for every set of cases (packages/hooks-policy/test/sets/*.json, the
// shared policy-cases.json, harmless-commands.json), unconfined in a workspace not trusted, in a
// trusted one, and confined: dangerous cases allowed and harmless cases asked, as a markdown table.
// test/measure.ts (bundled with esbuild for the run) does the deciding.
//   node bench/policy/shares.mjs            the table
//   node bench/policy/shares.mjs --list     and every case counted, with the policy's reason
//   node bench/policy/shares.mjs --package DIR   judge with another copy of hooks-policy's src/
//                                           (its own test/measure.ts and sets are used: the same cases)
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const pkg = fileURLToPath(new URL("../../packages/hooks-policy/", import.meta.url));
const args = process.argv.slice(2);
const list = args.includes("--list");
const other = args.includes("--package") ? args[args.indexOf("--package") + 1] : undefined;
const require = createRequire(join(pkg, "package.json"));

const out = mkdtempSync(join(tmpdir(), "toolhost-shares-"));
try {
  // A judged copy: this package's tests and sets with the src/ of the package named (default: this one).
  const root = join(out, "pkg");
  cpSync(join(pkg, "test"), join(root, "test"), { recursive: true });
  cpSync(join(other ?? pkg, "src"), join(root, "src"), { recursive: true });
  cpSync(join(pkg, "package.json"), join(root, "package.json"));
  await build({
    entryPoints: [join(root, "test", "measure.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: join(root, "dist", "measure.mjs"),
    external: ["@toolhost/core"],
    nodePaths: [join(pkg, "node_modules")],
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    logLevel: "warning",
  });
  const coreUrl = pathToFileURL(require.resolve("@toolhost/core")).href;
  const source = readFileSync(join(root, "dist", "measure.mjs"), "utf8").replaceAll('from "@toolhost/core"', `from ${JSON.stringify(coreUrl)}`);
  writeFileSync(join(root, "dist", "measure.mjs"), source);
  const measure = await import(pathToFileURL(join(root, "dist", "measure.mjs")).href);
  const rows = measure.measureAll(measure.allSets(pathToFileURL(join(root, "test") + "/")));
  console.log(measure.table(rows));
  if (list) {
    for (const row of rows) {
      for (const one of row.dangerousAllowed) console.log(`dangerous allowed\t${row.set}\t${row.mode}\t${one.case.id}\t${JSON.stringify(one.case.args)}\t${one.case.ruleset}\t${one.case.group ?? ""}\t${one.reason}`);
      for (const one of row.harmlessAsked) console.log(`harmless ${one.decision}\t${row.set}\t${row.mode}\t${one.case.id}\t${JSON.stringify(one.case.args)}\t${one.reason}`);
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

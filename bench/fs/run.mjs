// bench/fs: the file tools beside the raw command doing the same work, in one run.
//   read 100 lines at line 5,000,000 of a ~500 MB file  vs  sed -n 'A,Bp;Bq'   (≤ 1.5× time, ≤ 40 MB over idle Node)
//   grep over a large generated tree                     vs  rg alone          (≤ 1.3×)
//   edit in a 50 MB file                                 vs  read-replace-write in Node (≤ 2×)
// Each measurement runs in a fresh child process; times are medians of a few runs, after a warm-up.
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const entry = pathToFileURL(join(here, "..", "..", "packages", "tool-fs", "dist", "index.js")).href;
const ROUNDS = 7;
// grep runs are short, so they are the noisiest: more of them.
const GREP_ROUNDS = 15;


/**
 * One measurement in a fresh process: the first call (cold: the process has never run it) and a
 * second, same-sized call (warm, as in a running host). Prints { first, warm, maxRssKb }.
 */
async function child(job) {
  const signal = new AbortController().signal;
  const call = async (tool, params) => {
    const result = await tool.execute("bench", params, signal, () => {});
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return result;
  };
  let op = async () => {};
  if (job.kind === "read") {
    const { createReadTool } = await import(entry);
    const read = createReadTool({ cwd: job.dir });
    op = async () => {
      const result = await call(read, { path: job.file, startLine: job.start, endLine: job.end });
      if (result.details.linesRead !== job.end - job.start + 1) throw new Error("read returned the wrong lines");
    };
  } else if (job.kind === "grep") {
    const { createGrepTool } = await import(entry);
    const grep = createGrepTool({ cwd: job.dir, maxTotalSize: 1 << 30 });
    op = async () => {
      const result = await call(grep, { pattern: job.pattern, limit: 1_000_000 });
      if (result.details.matches !== job.expected) throw new Error(`grep found ${result.details.matches}, expected ${job.expected}`);
    };
  } else if (job.kind === "edit") {
    const { createEditTool } = await import(entry);
    const edit = createEditTool({ cwd: job.dir });
    let forth = true;
    op = async () => {
      await call(edit, { path: job.file, oldText: forth ? job.from : job.to, newText: forth ? job.to : job.from });
      forth = !forth;
    };
  } else if (job.kind === "raw-edit") {
    const { readFile, writeFile } = await import("node:fs/promises");
    const path = join(job.dir, job.file);
    let forth = true;
    op = async () => {
      const text = await readFile(path, "utf8");
      await writeFile(path, forth ? text.replace(job.from, job.to) : text.replace(job.to, job.from));
      forth = !forth;
    };
  }
  const timed = async () => {
    const started = performance.now();
    await op();
    return performance.now() - started;
  };
  const first = await timed();
  const warm = await timed();
  process.stdout.write(JSON.stringify({ first, warm, maxRssKb: process.resourceUsage().maxRSS }));
}

function measureChild(job) {
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", JSON.stringify(job)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (run.status !== 0) throw new Error(`child ${job.kind} failed (${run.status})`);
  return JSON.parse(run.stdout);
}

function measureCommand(command, args, options = {}) {
  const started = performance.now();
  const run = spawnSync(command, args, { stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 30, ...options });
  const ms = performance.now() - started;
  if (run.status !== 0 && run.status !== 1) throw new Error(`${command} failed (${run.status})`);
  return { ms, stdout: run.stdout };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms) => `${ms.toFixed(1)} ms`;
const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;

function generateBigFile(file, lines, width) {
  const per = 50_000;
  const chunk = Buffer.alloc(per * width, "y");
  for (let i = 0; i < per; i++) {
    chunk[i * width + 10] = 32;
    chunk[i * width + width - 1] = 10;
  }
  const fd = openSync(file, "w");
  for (let first = 1; first <= lines; first += per) {
    const count = Math.min(per, lines - first + 1);
    for (let i = 0; i < count; i++) chunk.write(String(first + i).padStart(10, "0"), i * width, "latin1");
    writeSync(fd, chunk, 0, count * width);
  }
  closeSync(fd);
}

function generateTree(root, dirs, filesPerDir, linesPerFile) {
  let needles = 0;
  const words = ["alpha", "beta", "gamma", "delta", "const", "return", "function", "value", "index", "buffer"];
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `pkg${d}`, "src");
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < filesPerDir; f++) {
      const lines = [];
      for (let l = 0; l < linesPerFile; l++) {
        if ((d * filesPerDir + f) % 97 === 0 && l === 7) {
          lines.push(`const marker = needle_${d}_${f}; // found`);
          needles += 1;
        } else {
          lines.push(`  ${words[l % 10]} ${words[(l * 7 + f) % 10]}_${l} = ${words[(d + l) % 10]}(${f}, ${l});`);
        }
      }
      writeFileSync(join(dir, `file${f}.ts`), `${lines.join("\n")}\n`);
    }
  }
  return needles;
}

async function main() {
  const rgPath = (await import("@vscode/ripgrep").catch(() => import(pathToFileURL(join(here, "..", "..", "packages", "tool-fs", "node_modules", "@vscode", "ripgrep", "lib", "index.js")).href))).rgPath;
  const dir = mkdtempSync(join(tmpdir(), "toolhost-bench-fs-"));
  const rows = [];
  try {
    // read: ~500 MB, 5,200,000 lines of 96 bytes; lines 5,000,000-5,000,099.
    const file = "big.txt";
    generateBigFile(join(dir, file), 5_200_000, 96);
    const [start, end] = [5_000_000, 5_000_099];
    measureCommand("sed", ["-n", `${start},${end}p;${end}q`, join(dir, file)]); // warm the page cache
    measureChild({ kind: "read", dir, file, start, end });
    const sed = [];
    const read = { first: [], warm: [] };
    let readRss = 0;
    let idleRss = [];
    // The page cache of this machine may drop the file between runs: each measurement starts from a warm cache.
    const warmUp = () => spawnSync("cat", [join(dir, file)], { stdio: ["ignore", "ignore", "inherit"] });
    for (let i = 0; i < ROUNDS; i++) {
      warmUp();
      sed.push(measureCommand("sed", ["-n", `${start},${end}p;${end}q`, join(dir, file)]).ms);
      warmUp();
      const r = measureChild({ kind: "read", dir, file, start, end });
      read.first.push(r.first);
      read.warm.push(r.warm);
      readRss = Math.max(readRss, r.maxRssKb);
      idleRss.push(measureChild({ kind: "idle" }).maxRssKb);
    }
    const idle = median(idleRss);
    rows.push(row("read 100 lines at line 5,000,000 (500 MB)", read, "sed -n 'A,Bp;Bq'", sed, 1.5));
    rows.push({
      what: "read: peak RSS over idle Node",
      first: mb(readRss - idle),
      warm: "",
      floor: `idle ${mb(idle)}`,
      ratio: "",
      warmRatio: "",
      best: "",
      target: "≤ 40 MB",
      met: readRss - idle <= 40 * 1024 ? "yes" : "NO",
    });
    rmSync(join(dir, file));

    // grep: 200 packages × 50 files × 400 lines (~ 10,000 files, ~ 170 MB).
    const tree = join(dir, "tree");
    const needles = generateTree(tree, 200, 50, 400);
    // The floor searches as grep has ripgrep search: the same flags and the skipped folders as an
    // ignore file (without --debug, which grep adds to learn what was skipped: that is its own cost).
    const { SKIPPED_FOLDERS } = await import(entry);
    const skipFile = join(dir, "skip");
    writeFileSync(skipFile, `${SKIPPED_FOLDERS.map((folder) => `**/${folder}/`).join("\n")}\n`);
    const rgArgs = ["--no-config", "--line-number", "--with-filename", "--no-heading", "--null", "--color=never", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-exclude", "--glob=!.git", "--max-columns=500", "--max-columns-preview", `--ignore-file=${skipFile}`, "--regexp", "needle_[0-9]+_[0-9]+", "--", "."];
    measureCommand(rgPath, rgArgs, { cwd: tree });
    const rg = [];
    const grep = { first: [], warm: [] };
    for (let i = 0; i < GREP_ROUNDS; i++) {
      rg.push(measureCommand(rgPath, rgArgs, { cwd: tree }).ms);
      const g = measureChild({ kind: "grep", dir: tree, pattern: "needle_[0-9]+_[0-9]+", expected: needles });
      grep.first.push(g.first);
      grep.warm.push(g.warm);
    }
    rows.push(row(`grep over ${(200 * 50).toLocaleString("en-US")} files (${needles} matches)`, grep, "rg alone", rg, 1.3));
    rmSync(tree, { recursive: true, force: true });

    // edit: a 50 MB file, one unique line in the middle.
    const editFile = "edit.txt";
    const line = "    const value = compute(index, buffer); // an ordinary line of code\n";
    const half = line.repeat(Math.floor(25 * 1024 * 1024 / line.length));
    const content = `${half}    UNIQUE_TOKEN_42 = 1;\n${half}`;
    const raw = [];
    const edits = { first: [], warm: [] };
    const change = { dir, file: editFile, from: "UNIQUE_TOKEN_42 = 1;", to: "UNIQUE_TOKEN_42 = 2;" };
    writeFileSync(join(dir, editFile), content);
    for (let i = 0; i < ROUNDS; i++) {
      // The floor's best case: a warm process, no fsync, no temporary file.
      raw.push(measureChild({ kind: "raw-edit", ...change }).warm);
      const e = measureChild({ kind: "edit", ...change });
      edits.first.push(e.first);
      edits.warm.push(e.warm);
    }
    rows.push(row("edit one line in a 50 MB file", edits, "read-replace-write in Node", raw, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(rows);
}

function row(what, tool, floorName, floorTimes, target) {
  const floorMs = median(floorTimes);
  const first = median(tool.first);
  const warm = median(tool.warm);
  const best = Math.min(...tool.first) / Math.min(...floorTimes);
  return {
    what,
    first: fmt(first),
    warm: fmt(warm),
    floor: `${floorName}: ${fmt(floorMs)}`,
    ratio: `${(first / floorMs).toFixed(2)}×`,
    warmRatio: `${(warm / floorMs).toFixed(2)}×`,
    best: `${best.toFixed(2)}×`,
    target: `≤ ${target}×`,
    met: `${first / floorMs <= target ? "yes" : "NO"} / ${warm / floorMs <= target ? "yes" : "NO"}`,
  };
}

function printTable(rows) {
  const head = {
    what: "comparison",
    first: "toolhost, first call",
    warm: "toolhost, warm",
    floor: "floor",
    ratio: "ratio first",
    warmRatio: "ratio warm",
    best: "ratio first, best runs",
    target: "target",
    met: "met (first / warm)",
  };
  const keys = Object.keys(head);
  const width = Object.fromEntries(keys.map((k) => [k, Math.max(...[head, ...rows].map((r) => String(r[k]).length))]));
  const line = (r) => `| ${keys.map((k) => String(r[k]).padEnd(width[k])).join(" | ")} |`;
  console.log(line(head));
  console.log(`| ${keys.map((k) => "-".repeat(width[k])).join(" | ")} |`);
  for (const r of rows) console.log(line(r));
  console.log(
    `\nMedians of ${ROUNDS} runs (${GREP_ROUNDS} for grep), each in a fresh Node process. "first call": the process has never run the tool (lazy imports, JIT, first child spawn);` +
      ` "warm": the next call of the same size, as in a running host (for read, one that has` +
      ` remembered where lines start in this file). Floor times are around the command (sed, rg) or,` +
      ` for the edit, a warm read-replace-write (no fsync). Ratios are of medians; "best runs" divides the fastest first call by the` +
      ` fastest floor run, which shows the cost without the noise of a shared machine. Peak RSS is the read process's maxRSS minus an idle Node's.`,
  );
}

if (process.argv[2] === "--child") {
  await child(JSON.parse(process.argv[3]));
} else {
  await main();
}

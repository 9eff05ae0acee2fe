/*
 * The files the project's runners read to know what to run (issue 39: trust means the project's
 * files). A command that writes one and then runs a runner runs what the command wrote, not the
 * project's file; a file tool's write of one changes what the next build runs. Recipe files
 * (`format`) are read by the policy and their commands judged as bash; the others hold code or
 * settings the policy cannot read.
 */

/** How the policy reads a runner's file: the commands it gives (make's recipes, package.json's scripts, …). */
export type RecipeFormat = "make" | "just" | "npm" | "composer" | "deno";

export interface RunnerFile {
  /** The runner that reads it, for explanations. */
  runner: string;
  /** How its commands are read; absent when the policy cannot read them (code, or settings that name programs). */
  format?: RecipeFormat;
}

const BY_NAME: ReadonlyArray<readonly [names: string, runner: string, format?: RecipeFormat]> = [
  ["Makefile makefile GNUmakefile", "make", "make"],
  ["justfile Justfile JUSTFILE .justfile", "just", "just"],
  ["package.json", "npm", "npm"],
  ["composer.json", "composer", "composer"],
  ["deno.json deno.jsonc", "deno", "deno"],
  ["Taskfile.yml Taskfile.yaml taskfile.yml taskfile.yaml Taskfile.dist.yml Taskfile.dist.yaml", "task"],
  ["Cargo.toml build.rs rust-toolchain rust-toolchain.toml", "cargo"],
  ["pyproject.toml setup.py setup.cfg conftest.py pytest.ini tox.ini noxfile.py tasks.py", "python's build and test runners"],
  ["Gemfile Rakefile rakefile", "rake and bundler"],
  ["go.mod go.work magefile.go", "go"],
  ["CMakeLists.txt meson.build build.ninja SConstruct SConscript", "cmake, meson, ninja and scons"],
  ["build.gradle build.gradle.kts settings.gradle settings.gradle.kts gradle-wrapper.properties pom.xml build.xml build.sbt", "gradle, maven, ant and sbt"],
  ["BUILD BUILD.bazel WORKSPACE WORKSPACE.bazel MODULE.bazel .bazelrc", "bazel"],
  ["mix.exs project.clj", "mix and leiningen"],
  ["turbo.json nx.json lerna.json", "turbo, nx and lerna"],
];

const NAMES = new Map<string, RunnerFile>();
for (const [names, runner, format] of BY_NAME) for (const name of names.split(" ")) NAMES.set(name, format ? { runner, format } : { runner });

/** Files by their ending: make's included files, rake's tasks, bazel's and cmake's modules. */
const ENDINGS: ReadonlyArray<readonly [RegExp, RunnerFile]> = [
  [/\.(mk|make)$/, { runner: "make", format: "make" }],
  [/\.just$/, { runner: "just", format: "just" }],
  [/\.rake$/, { runner: "rake" }],
  [/\.(bzl|cmake)$/, { runner: "bazel and cmake" }],
];

/** The runner's file a path is, by its name; undefined for any other file. */
export function runnerFileOf(path: string): RunnerFile | undefined {
  const name = path.slice(path.replace(/\/+$/, "").lastIndexOf("/") + 1);
  const named = NAMES.get(name);
  if (named) return named;
  // `.cargo/config.toml`: cargo's settings (a write asks by `PLANTED_SETTINGS` too).
  if (/(^|\/)\.cargo\/config(\.toml)?$/.test(path)) return { runner: "cargo" };
  return ENDINGS.find(([ending]) => ending.test(name))?.[1];
}

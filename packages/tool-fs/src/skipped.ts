/**
 * The folders `grep` and `find` skip when no ignore file says otherwise (the `skipFolders` option's
 * default): what a package manager installs, virtual environments, and the caches of build tools,
 * under names no one gives a folder of their own. Each is a folder's name (or the end of its path,
 * `.yarn/cache`) matched at any depth, and ranks below every `.gitignore`, `.ignore` and `.rgignore`
 * rule, so `!node_modules/` in one of those brings it back. A path given to the tool is searched
 * even when it lies in one.
 *
 * Left out on purpose, because they often hold what a user searches for or are common names of
 * their own folders: `build`, `dist`, `out`, `target`, `bin`, `obj`, `lib`, `vendor`, `venv`,
 * `env`, `coverage`, `deps`, `_build`. A project whose `.gitignore` lists them skips them anyway.
 */
export const SKIPPED_FOLDERS: readonly string[] = Object.freeze([
  // Installed by a package manager.
  "node_modules",
  "bower_components",
  "jspm_packages",
  ".pnpm-store",
  ".yarn/cache",
  ".yarn/unplugged",
  "vendor/bundle",
  // Python's environments and caches.
  ".venv",
  "__pycache__",
  ".tox",
  ".nox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  // Caches and outputs of build tools.
  ".cache",
  ".gradle",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  ".angular",
  ".build",
  ".dart_tool",
  ".stack-work",
  "dist-newstyle",
  ".terraform",
  // Other version control systems' stores (`.git` is always skipped).
  ".hg",
  ".svn",
]);

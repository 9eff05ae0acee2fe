import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** This package's own code (built or not): its frames are not the application's. */
const OWN_CODE = ownCode();

function ownCode(): string[] {
  const root = packageRootOf(fileURLToPath(import.meta.url));
  return root === undefined ? [] : [join(root, "dist") + sep, join(root, "src") + sep];
}

/**
 * The folder of the application that called `createHost`: the folder of the nearest package.json
 * above the module that made the call. An application's own folder is as trusted as its code,
 * which is already running. None when that module is a dependency (inside a `node_modules`
 * folder: a CLI, or a library that calls `createHost` for whoever uses it), when it has no file
 * (a REPL, `node -e`), or has no package.json above it. Called synchronously at the start of
 * `createHost`, before anything awaits, so the caller's frame is on the stack.
 */
export function callerApplicationFolder(): string | undefined {
  const file = callerFile();
  if (file === undefined) return undefined;
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch {
    return undefined;
  }
  if (real.split(sep).includes("node_modules")) return undefined;
  return packageRootOf(real);
}

/** The file of the first frame on the stack that is not this package's, nor Node's own. */
function callerFile(): string | undefined {
  const original = Error.prepareStackTrace;
  let frames: NodeJS.CallSite[] = [];
  try {
    Error.prepareStackTrace = (_error, stack) => stack;
    frames = (new Error().stack as unknown as NodeJS.CallSite[] | undefined) ?? [];
  } catch {
    return undefined;
  } finally {
    Error.prepareStackTrace = original;
  }
  for (const frame of frames) {
    const name = frame.getFileName();
    if (name === undefined || name === null || name.startsWith("node:")) continue;
    const path = name.startsWith("file:") ? fileURLToPath(name) : name;
    if (!isAbsolute(path)) continue; // eval, a data: URL
    if (OWN_CODE.some((own) => path.startsWith(own))) continue;
    return path;
  }
  return undefined;
}

/** The nearest folder at or above `file`'s folder that holds a package.json. */
function packageRootOf(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

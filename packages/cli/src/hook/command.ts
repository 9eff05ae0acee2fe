// `toolhost hook claude-code|gemini`, as bin.ts starts it: read the options; with a server, forward
// the payload to it; decide in-process (_hook-fast.js, core and the policy) only without one, or
// when the server cannot be used. build.mjs bundles this entry into one file that loads no core.
import { DEFAULT_HOOK_TIMEOUT, hookRunOptions, HookUsageError, type HookRunOptions } from "./args.js";
import { askServer } from "./forward.js";
import { HOOK_HOSTS, type HookHost } from "./hosts.js";
import { type HookCall, HookInputError, parsePayload } from "./payload.js";
import { readAll } from "../_read-stream.js";
import { clientToken } from "./token.js";

/** The exit code both hosts read as "blocked": the reason goes on stderr. */
const BLOCK = 2;

/**
 * Answers one hook payload read from standard input, through the server when one is named, and
 * resolves to the exit code; never rejects. A usage error (a bad option, a bad server URL) blocks
 * the call with exit 2, like every other failure of a hook.
 */
export async function runHookCommand(host: HookHost["id"], args: string[]): Promise<number> {
  let options: HookRunOptions;
  try {
    options = hookRunOptions(host, args);
  } catch (error) {
    if (!(error instanceof HookUsageError)) throw error;
    await print(process.stderr, `toolhost refused this call: ${error.message} (${error.code})\n`);
    return BLOCK;
  }
  // On a terminal there is no payload to send: the in-process path says so.
  if (options.server === undefined || process.stdin.isTTY) return decideHere(options);
  return forward({ ...options, server: options.server });
}

async function forward(options: HookRunOptions & { server: URL }): Promise<number> {
  const hookHost = HOOK_HOSTS[options.host];
  const input = await readAll(process.stdin);
  let call: HookCall;
  try {
    call = await parsePayload(hookHost, input);
  } catch (error) {
    // A payload no one could judge is refused here, word for word as in-process (exit 2).
    if (error instanceof HookInputError) return decideHere({ ...options, input });
    throw error;
  }
  const onPage = options.onAsk === "page";
  const asked = { onAllow: options.onAllow, confine: options.confine, tool: call.tool, input: call.input, onAsk: onPage ? ("page" as const) : ("host" as const) };
  // The host's timeout runs from when it started this process.
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT;
  const page = onPage ? { hostTimeLeftMs: timeoutSeconds * 1000 - (Date.now() - performance.timeOrigin) } : undefined;
  const reply = await askServer(options.server, hookHost, input, asked, clientToken(), page);
  if ("answer" in reply) {
    await print(process.stdout, `${JSON.stringify(reply.answer)}\n`);
    return 0;
  }
  if (onPage && reply.late === true) {
    // The server may have been waiting on the approvals page: no time is left to decide here.
    const reason = `toolhost refused this call: the hook server at ${options.server.href} gave no answer (${reply.notUsed}) while it could be asking on the approvals page, and the hook's ${timeoutSeconds} s (--timeout) are nearly over (TOOLHOST_HOOK_SERVER_LATE).`;
    await print(process.stdout, `${JSON.stringify(hookHost.answer({ decision: "deny", reason, onAllow: options.onAllow }))}\n`);
    return 0;
  }
  await print(process.stderr, `toolhost hook: the server at ${options.server.href} was not used (${reply.notUsed}); decided here instead.\n`);
  return decideHere({ ...options, input });
}

/**
 * The in-process path, bundled on its own beside this file's bundle (dist/_hook-fast.js, see
 * build.mjs): named by a variable so that the bundler leaves it a file of its own.
 */
const IN_PROCESS = "./_hook-fast.js";

async function decideHere(options: HookRunOptions): Promise<number> {
  const { runHook } = (await import(IN_PROCESS)) as typeof import("./fast.js");
  return runHook(options);
}

function print(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

import { messageOf } from "@toolhost/core";
import { createHost } from "@toolhost/core/config";
import { cliHostOptions } from "../_defaults.js";
import { DEFAULT_HOOK_TIMEOUT, type HookRunOptions } from "./args.js";
import { HOOK_SERVICES, HookJudge, type HookVerdict } from "./decide.js";
import { HOOK_HOSTS } from "./hosts.js";
import type { PageAsk } from "./page.js";
import { parsePayload } from "./payload.js";
import { readStdin } from "../_input.js";
import { write } from "../_output.js";

/** The exit code both hosts read as "blocked": the reason goes on stderr. */
const BLOCK = 2;

/**
 * Decides one hook payload (`options.input`, else standard input) and answers in the host's
 * protocol. Resolves to the exit code; never rejects. Anything that goes wrong (no payload, bad
 * JSON, a config error, a bug of ours) blocks the call with exit 2 and the reason on stderr: both
 * hosts treat other non-zero codes as "go ahead".
 */
export async function runHook(options: HookRunOptions): Promise<number> {
  const hookHost = HOOK_HOSTS[options.host];
  let closeHost: (() => Promise<void>) | undefined;
  try {
    if (options.input === undefined && process.stdin.isTTY) {
      throw new Error(`toolhost hook ${hookHost.id} reads one ${hookHost.title} ${hookHost.event} payload on standard input; it is run by ${hookHost.title}, not by hand (see toolhost hook install).`);
    }
    const call = await parsePayload(hookHost, options.input ?? (await readStdin()));
    const onPage = options.onAsk === "page";
    // Confining, the sandbox's plugin too (tool-bash provides it); on the page, the approvals plugin; no other plugin.
    const services = [...(options.confine ? HOOK_SERVICES : ["policy"]), ...(onPage ? ["approvals"] : [])];
    const host = await createHost({ ...cliHostOptions(call.cwd, options.config), onlyProviding: services });
    closeHost = () => host.harness.dispose();
    // The host's timeout runs from when it started this process.
    const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT;
    const page: PageAsk | undefined = onPage
      ? { hostDeadline: performance.timeOrigin + timeoutSeconds * 1000, timeout: `the hook's ${timeoutSeconds} s (--timeout)`, asker: `toolhost hook ${hookHost.id}`, session: call.session }
      : undefined;
    // This process exits once it has answered: it holds nothing for the command (see SandboxPlace.holds).
    const verdict: HookVerdict = await new HookJudge(host, { holds: false }).decide(hookHost, call, options.confine, page);
    const onAllow = verdict.approvedOnPage ? "allow" : options.onAllow;
    await write(process.stdout, `${JSON.stringify(hookHost.answer({ ...verdict, onAllow }))}\n`);
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    await write(process.stderr, `toolhost refused this call: ${messageOf(error)} (${typeof code === "string" ? code : "TOOLHOST_HOOK_FAILED"})\n`);
    return BLOCK;
  } finally {
    await closeHost?.().catch(() => undefined);
  }
}

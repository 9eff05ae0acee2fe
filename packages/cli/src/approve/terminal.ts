import type { AgentHarness, ApprovalResult } from "@toolhost/core";
import { approvalScope } from "./session-scope.js";
import type { Painter } from "../_output.js";
import type { Progress } from "../_progress.js";

/** What the terminal prompt needs of the CLI: the progress line to pause, stderr's colours, Ctrl-C, and where to record the wait. */
export interface TerminalApproverHost {
  readonly progress: Progress | undefined;
  readonly paintErr: Painter;
  readonly approvalWaitMs: Map<string, number>;
  interrupt(): void;
}

const MAX_ARGUMENT_LINES = 24;

/**
 * Taps `approve`: shows the tool and its arguments on stderr and asks, default no. "Yes, for this
 * session" approves the later asks of the same tool, rule and command prefix (or paths) in this run,
 * and says so in the prompt. One question at a time; a
 * cancelled question (Ctrl-C) refuses and aborts the batch.
 */
export function attachApprover(harness: AgentHarness, cli: TerminalApproverHost): void {
  const approvedScopes = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();
  harness.hooks.approve.tapPromise("@toolhost/cli", (request, signal) => {
    const entered = performance.now();
    const ask = async (): Promise<ApprovalResult> => {
      const tool = request.toolCall.name;
      const scope = approvalScope(request);
      if (approvedScopes.has(scope.key)) return { approved: true, reason: `approved for this session in the terminal (${scope.text})` };
      if (signal.aborted) return { approved: false, reason: "the call was aborted" };
      const { isCancel, select } = await import("@clack/prompts");
      cli.progress?.pause();
      try {
        const answer = await select({
          message: [
            `${cli.paintErr("bold", tool)} needs your approval: ${request.reason}`,
            cli.paintErr("dim", `(asked by ${request.askedBy})`),
            argumentLines(request.args),
            `Run it?`,
          ].join("\n"),
          options: [
            { value: "no", label: "No", hint: "refuse this call" },
            { value: "once", label: "Yes", hint: "run this call" },
            { value: "session", label: "Yes, for this session", hint: `also run later ${scope.text}, until toolhost exits` },
          ],
          initialValue: "no",
          input: process.stdin,
          output: process.stderr,
          signal,
        });
        if (isCancel(answer)) {
          if (!signal.aborted) cli.interrupt();
          return { approved: false, reason: "the question was cancelled" };
        }
        if (answer === "session") approvedScopes.add(scope.key);
        return answer === "no"
          ? { approved: false, reason: "it was refused in the terminal" }
          : { approved: true, reason: answer === "session" ? "approved for this session in the terminal" : "approved in the terminal" };
      } finally {
        cli.progress?.resume();
      }
    };
    const answer = queue.then(ask, ask);
    queue = answer.catch(() => undefined);
    // The wait (for the person, and for the questions before this one) is not the tool's own time.
    return answer.finally(() => cli.approvalWaitMs.set(request.toolCall.id, performance.now() - entered));
  });
}

function argumentLines(args: unknown): string {
  const lines = (JSON.stringify(args, null, 2) ?? String(args)).split("\n");
  if (lines.length <= MAX_ARGUMENT_LINES) return lines.join("\n");
  return [...lines.slice(0, MAX_ARGUMENT_LINES), `… (${lines.length - MAX_ARGUMENT_LINES} more lines)`].join("\n");
}

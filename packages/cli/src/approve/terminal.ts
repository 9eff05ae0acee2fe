import type { ApprovalRequest, ApprovalResult } from "@toolhost/core";
import type { Host } from "@toolhost/core/config";
import type { Painter } from "../_output.js";
import type { Progress } from "../_progress.js";
import { promptOutput } from "../_plain-stream.js";
import { terminalText } from "../_terminal-text.js";
import { type AllowRule, allowRulesFor } from "./allow-rules.js";
import { type AlwaysChoice, type AlwaysTarget, alwaysChoices } from "./always.js";
import { owner } from "./hint.js";
import { callPreview } from "./preview.js";
import { type ApprovalScope, approvalScope } from "./session-scope.js";
import { askingParts, mayBeDenied } from "./values.js";

/** What the terminal prompt needs of the CLI: the progress line to pause, stderr, Ctrl-C, where it runs, and where to record the wait. */
export interface TerminalApproverHost {
  readonly progress: Progress | undefined;
  readonly paintErr: Painter;
  readonly approvalWaitMs: Map<string, number>;
  readonly globals: { cwd: string; config?: string };
  err(text: string): Promise<void>;
  interrupt(): void;
}

/** One prompt's setting: the host, the CLI, and the scopes approved for this session. */
interface Prompting {
  host: Host;
  cli: TerminalApproverHost;
  session: Set<string>;
}

const VIA = "terminal";

/**
 * Taps `approve`: shows on stderr what the call will do (its commands, URLs, diffs of its writes,
 * or its arguments), who asked and whether a locked layer holds the ask, and asks, default no.
 * "Yes, for this session" approves the later asks of the same tool, rule and command prefix (or
 * paths) in this run; "Yes, and don't ask again" writes an allow rule to the project's or the
 * user's config, offered only when the ask is the policy's, not locked and no deny may apply. One
 * question at a time; a cancelled question (Ctrl-C) refuses and aborts the batch.
 */
export function attachApprover(host: Host, cli: TerminalApproverHost): void {
  const prompting: Prompting = { host, cli, session: new Set() };
  let queue: Promise<unknown> = Promise.resolve();
  host.harness.hooks.approve.tapPromise("@toolhost/cli", (request, signal) => {
    const entered = performance.now();
    const ask = (): Promise<ApprovalResult> => askInTerminal(request, signal, prompting);
    const answer = queue.then(ask, ask);
    queue = answer.catch(() => undefined);
    // The wait (for the person, and for the questions before this one) is not the tool's own time.
    return answer.finally(() => cli.approvalWaitMs.set(request.toolCall.id, performance.now() - entered));
  });
}

async function askInTerminal(request: ApprovalRequest, signal: AbortSignal, prompting: Prompting): Promise<ApprovalResult> {
  const { cli, session } = prompting;
  const scope = approvalScope(request);
  if (session.has(scope.key)) return { approved: true, scope: "session", via: VIA, reason: `approved for this session in the terminal (${scope.text})` };
  if (signal.aborted) return { approved: false, via: VIA, reason: "the call was aborted" };
  const always = alwaysOffer(request, prompting.host, cli.globals.cwd);
  const { isCancel, select } = await import("@clack/prompts");
  cli.progress?.pause();
  try {
    const answer = await select({
      message: await questionText(request, prompting),
      options: options(scope, always),
      initialValue: "no",
      input: process.stdin,
      output: promptOutput(process.stderr),
      signal,
    });
    if (isCancel(answer)) {
      if (!signal.aborted) cli.interrupt();
      return { approved: false, via: VIA, reason: "the question was cancelled" };
    }
    return await answerOf(answer, request, scope, always, prompting);
  } finally {
    cli.progress?.resume();
  }
}

/** The question: the tool and the reason, who asked (and a locked layer), what the call will do. */
async function questionText(request: ApprovalRequest, { cli, host }: Prompting): Promise<string> {
  const paint = cli.paintErr;
  const lines = [`${paint("bold", terminalText(request.toolCall.name))} needs your approval: ${terminalText(request.reason)}`, paint("dim", `(asked by ${terminalText(request.askedBy)})`)];
  const locked = (askingParts(request.details) ?? []).filter((part) => part.locked);
  if (locked.length > 0) {
    const by = [...new Set(locked.map((part) => owner(part, true)))].join("; ");
    lines.push(paint("yellow", `locked by ${terminalText(by)}: only a person can approve it, and no rule here can allow it for good`));
  }
  lines.push(...(await callPreview(request, cli.globals.cwd, paint)), "Run it?");
  return lines.join("\n");
}

/** "Don't ask again": where it can be written, each with the rules written there. */
interface AlwaysOffer {
  targets: AlwaysChoice[];
}

function alwaysOffer(request: ApprovalRequest, host: Host, cwd: string): AlwaysOffer | undefined {
  const targets = alwaysChoices(request, host, cwd);
  return targets.length === 0 ? undefined : { targets };
}

function options(scope: ApprovalScope, always: AlwaysOffer | undefined): { value: string; label: string; hint?: string }[] {
  const choices = [
    { value: "no", label: "No", hint: "refuse this call" },
    { value: "once", label: "Yes", hint: "run this call" },
    { value: "session", label: "Yes, for this session", hint: `also run later ${scope.text}, until toolhost exits` },
  ];
  for (const target of always?.targets ?? []) {
    const where = target.owner === "project" ? "in this project" : "in all your projects";
    choices.push({ value: `always:${target.owner}`, label: `Yes, and don't ask again ${where}`, hint: `adds an allow rule to ${target.shown}` });
  }
  return choices;
}

async function answerOf(answer: unknown, request: ApprovalRequest, scope: ApprovalScope, always: AlwaysOffer | undefined, prompting: Prompting): Promise<ApprovalResult> {
  if (answer === "no") return { approved: false, via: VIA, reason: "it was refused in the terminal" };
  if (answer === "once") return { approved: true, scope: "once", via: VIA, reason: "approved in the terminal" };
  prompting.session.add(scope.key);
  const target = always?.targets.find((each) => answer === `always:${each.owner}`);
  if (target === undefined) return { approved: true, scope: "session", via: VIA, reason: "approved for this session in the terminal" };
  return approveAlways(request, target.rules, target, prompting);
}

/** Writes the rule, says what was written (or why not, and the rule to add by hand), and approves the call. */
async function approveAlways(request: ApprovalRequest, rules: AllowRule[], target: AlwaysTarget, { host, cli }: Prompting): Promise<ApprovalResult> {
  const { writeAllowRules } = await import("./always.js");
  const outcome = await writeAllowRules(target, rules, request, { host, cwd: cli.globals.cwd, configOption: cli.globals.config });
  const paint = cli.paintErr;
  if (outcome.written) {
    await cli.err(`${paint("green", "toolhost:")} wrote ${terminalText(outcome.rule)}: such calls run without asking from now on.\n`);
    return { approved: true, scope: "always", via: VIA, rule: outcome.rule, reason: `approved in the terminal, and allowed from now on (${outcome.rule})` };
  }
  await cli.err(`${paint("yellow", "toolhost:")} no rule was written: ${terminalText(outcome.why)}. This call runs; to stop being asked, add ${terminalText(outcome.byHand)}.\n`);
  return { approved: true, scope: "once", via: VIA, reason: "approved in the terminal (the rule to allow it from now on was not written)" };
}


import { randomUUID } from "node:crypto";
import { basename } from "node:path";
import {
  type AnyAgentHarness,
  type ApprovalRequest,
  type ApprovalResult,
  type ApprovalsAskOptions,
  type ApprovalsPage,
  type ApprovalsService,
  callDigest,
} from "@toolhost/core";
import { type PageFile, PageFileError, readPageFile } from "../page-file.js";
import { partsOf } from "../_parts.js";
import type { PageAnswer, PageAsk } from "../wire.js";
import { listenerOwner } from "./_listener.js";

/** What an asker is made with. */
export interface AskerOptions {
  /** The page file to read at each ask. */
  file: string;
  /** The most an ask waits for a person, in ms. */
  timeoutMs: number;
  /** The host's config file, for "always" in this project. */
  configPath: string | undefined;
  /** Where the once-only notice goes (default standard error). */
  notice?: (text: string) => void;
}

/** Past the page's own time-out, how long the asker waits for the page's answer before giving up. */
const GRACE_MS = 5_000;
const VIA = "approvals page";

/**
 * The `approvals` service: each ask is sent to the page the page file names, and the answer the
 * page gives is taken only for the same call's content (the digest the asker made). Every way an
 * ask can end (no page, an unusable file, the page gone, a time-out, an abort) is a refusal that
 * says what happened and what to do.
 */
export class PageAsker implements ApprovalsService {
  readonly #session = randomUUID();
  #told = false;

  constructor(
    private readonly harness: AnyAgentHarness,
    private readonly options: AskerOptions,
  ) {}

  page(): ApprovalsPage | undefined {
    try {
      const page = readPageFile(this.options.file);
      return page === undefined ? undefined : { url: page.url, pid: page.pid };
    } catch {
      return undefined;
    }
  }

  async ask(request: ApprovalRequest, signal: AbortSignal, options: ApprovalsAskOptions = {}): Promise<ApprovalResult> {
    let page: PageFile | undefined;
    try {
      page = readPageFile(this.options.file);
    } catch (error) {
      return refusal(`no one could approve it: ${(error as PageFileError).message}`);
    }
    if (page === undefined) {
      return refusal(`no one could approve it: no approvals page is running for this user (${this.options.file} names none). Start one with "toolhost approvals serve", open the address it prints, and run the call again`);
    }
    if (listenerOwner(Number(new URL(page.url).port)) === "foreign") {
      return refusal(`no one could approve it: the approvals page's port (${page.url}) is held by another user's process, not by the page ${this.options.file} names, so nothing was sent there. Start the page again (toolhost approvals serve)`);
    }
    let ask: PageAsk;
    try {
      ask = await this.#ask(request, options);
    } catch (error) {
      return refusal(`the call could not be put on the approvals page (${(error as Error).message}), so it is refused`);
    }
    this.#tell(page, ask.timeoutMs);
    // Loaded at the first ask: a process that never asks pays nothing for the HTTP client.
    const { postJson } = await import("./_post.js");
    const outcome = await postJson(new URL("asks", page.url), page.token, ask, ask.timeoutMs + GRACE_MS, signal);
    if ("stopped" in outcome) {
      return outcome.stopped === "aborted"
        ? refusal("the call was stopped while it waited on the approvals page")
        : refusal(`no one answered on the approvals page (${page.url}) within ${seconds(ask.timeoutMs)}, so the call is refused`);
    }
    if ("failed" in outcome) return refusal(`the approvals page at ${page.url} could not be asked (${outcome.failed}), so the call is refused`);
    return resultOf(outcome.status, outcome.body, ask, page);
  }

  async #ask(request: ApprovalRequest, options: ApprovalsAskOptions): Promise<PageAsk> {
    const digest = digestOf(request);
    const redact = (text: string): string => {
      try {
        return this.harness.hooks.redact.call(text);
      } catch {
        return "[withheld: redaction failed]";
      }
    };
    const { parts, omitted } = partsOf(request.details);
    const timeoutMs = Math.max(1, Math.min(this.options.timeoutMs, options.timeoutMs ?? Number.POSITIVE_INFINITY));
    return {
      digest,
      tool: request.toolCall.name,
      toolCallId: request.toolCall.id,
      reason: redact(request.reason),
      askedBy: request.askedBy,
      asker: {
        pid: process.pid,
        command: options.asker ?? processCommand(),
        cwd: this.harness.cwd,
        ...(this.options.configPath !== undefined && { config: this.options.configPath }),
        session: options.session ?? this.#session,
      },
      parts,
      partsOmitted: omitted,
      preview: await (await import("./_preview.js")).callPreview(request, redact),
      call: { args: request.args, ...(request.access && { access: request.access }), ...(request.details && { details: request.details }) },
      timeoutMs,
    };
  }

  /** Once per process: where the ask went, so a person at this process's output knows where to answer. */
  #tell(page: PageFile, timeoutMs: number): void {
    if (this.#told) return;
    this.#told = true;
    const text = `toolhost: asking through the approvals page at ${page.url} (each ask waits up to ${seconds(timeoutMs)}; open the address toolhost approvals serve printed)`;
    (this.options.notice ?? ((line: string) => process.stderr.write(`${line}\n`)))(text);
  }
}

/** The page's answer as the `approve` hook's: only for this call's content, and only a whole answer. */
function resultOf(status: number, body: unknown, ask: PageAsk, page: PageFile): ApprovalResult {
  const answer = body as Partial<PageAnswer> | null;
  if (status !== 200 || answer === null || typeof answer !== "object") {
    const error = typeof (answer as { error?: unknown } | null)?.error === "string" ? `: ${(answer as { error: string }).error}` : "";
    return refusal(`the approvals page at ${page.url} refused the ask (status ${status}${error}), so the call is refused`);
  }
  if (answer.digest !== ask.digest) return refusal("the approvals page answered for other content than this call's, so the call is refused");
  const via = `${VIA} (${page.url}${typeof answer.by === "string" ? `, ${answer.by}` : ""}${typeof answer.at === "string" ? `, ${answer.at}` : ""})`;
  if (answer.outcome === "approved" && answer.approved === true) {
    const scope = answer.scope === "session" || answer.scope === "always" ? answer.scope : "once";
    const reason = scope === "always" && answer.rule ? `approved on the approvals page, and allowed from now on (${answer.rule})` : `approved on the approvals page${scope === "session" ? " for this session" : ""}`;
    return { approved: true, scope, via, reason: answer.reason ? `${reason}; ${answer.reason}` : reason, ...(scope === "always" && answer.rule && { rule: answer.rule }) };
  }
  if (answer.outcome === "denied") return { approved: false, scope: "once", via, reason: `it was refused on the approvals page: ${answer.reason ?? "no reason given"}` };
  if (answer.outcome === "timed out") return { approved: false, via, reason: `no one answered on the approvals page (${page.url}) within ${seconds(ask.timeoutMs)}, so the call is refused` };
  return refusal(`the approvals page at ${page.url} gave no answer for it (${String(answer.outcome)}), so the call is refused`);
}

/**
 * The call's digest: the one the authorize stage made for the request when core gives it
 * (`ApprovalRequest.digest`), else made here the same way. Content that cannot be bound is not put
 * on the page (an answer could not be tied to it).
 */
function digestOf(request: ApprovalRequest): string {
  const given = (request as { digest?: unknown }).digest;
  if (typeof given === "string" && given.startsWith("sha256:")) return given;
  if (typeof given === "string") throw new Error("its content cannot be bound to an answer");
  return callDigest({ name: request.toolCall.name, args: request.args, ...(request.access && { access: request.access }) });
}

function refusal(reason: string): ApprovalResult {
  return { approved: false, via: VIA, reason };
}

function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s === 1 ? "1 second" : `${s} seconds`;
}

/** This process's command in the user's words: `toolhost call`, `node app.js`. */
function processCommand(): string {
  const [, script, ...rest] = process.argv;
  if (script === undefined) return basename(process.execPath);
  if (basename(script) !== "bin.js") return `node ${basename(script)}`;
  // The command and its first word (`call bash`), past the global options and their values.
  const words: string[] = [];
  for (let i = 0; i < rest.length && words.length < 2; i += 1) {
    const word = rest[i] as string;
    if (/^-(C|c|-cwd|-config)$/.test(word)) i += 1;
    else if (!word.startsWith("-")) words.push(word);
  }
  return ["toolhost", ...words].join(" ");
}

import type { ApprovalResult } from "./approval.js";
import type { ApprovalRequest } from "./hooks.js";

/** How one ask through the approvals page is made, besides the request. */
export interface ApprovalsAskOptions {
  /**
   * The most this ask may wait for a person, in ms, when the asker has a bound of its own (a hook
   * that must answer before its host's hook timeout); the service's configured time when shorter.
   */
  timeoutMs?: number;
  /**
   * The asker's session, when it is longer than the process (a Claude Code session's id for a hook
   * run once per call): "approve for this session" covers that session's later asks. Default: this
   * process.
   */
  session?: string;
  /** Who asks, in the user's words (`toolhost mcp serve`, `toolhost hook claude-code`); default the process's command. */
  asker?: string;
}

/** Where the approvals page is, for a notice or `toolhost config`: never its token. */
export interface ApprovalsPage {
  /** The page's address, without its token. */
  url: string;
  /** The process serving it. */
  pid: number;
}

/**
 * What an approvals plugin offers as the service `"approvals"` (`@toolhost/approvals`): a person
 * answers the pipeline's asks on a page of their own when the asking process has no one to ask (no
 * terminal, an MCP client that cannot elicit, a headless hook, a server application). A front end
 * that has no person calls `ask` from its `approve` tap; a worker never does (its host asked).
 */
export interface ApprovalsService {
  /**
   * Puts the ask on the page and resolves with the person's answer, bound to the call's content
   * (core's `callDigest`): approved once, for the session, or always (with the rule written), or
   * refused with their reason. Resolves to a refusal that says why when no page is running, when no
   * one answered in time, or when `signal` aborts (the ask is then withdrawn from the page). Never
   * rejects, never waits longer than its time-out.
   */
  ask(request: ApprovalRequest, signal: AbortSignal, options?: ApprovalsAskOptions): Promise<ApprovalResult>;
  /** The page this process would ask through now, or undefined when none is running. */
  page(): ApprovalsPage | undefined;
}

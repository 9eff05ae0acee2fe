import type { ApprovalRequest } from "@toolhost/core";

/**
 * What "Yes, for this session" covers: the same tool, asked about by the same rules, for the same
 * command prefix (program and its first argument) or the same paths. A different command, path or
 * rule asks again.
 */
export interface ApprovalScope {
  key: string;
  /** In words, for the prompt. */
  text: string;
}

export function approvalScope(request: ApprovalRequest): ApprovalScope {
  const tool = request.toolCall.name;
  const rules = ruleIds(request.details);
  const ruleText = rules.length > 0 ? rules.join(", ") : request.askedBy;
  const access = request.access;
  const commands = access?.commands ?? [];
  let subject: string;
  let subjectText: string;
  if (commands.length > 0) {
    const prefixes = commands.map((command) => command.command.trim().split(/\s+/).slice(0, 2).join(" "));
    subject = `command:${prefixes.join("\u0000")}`;
    subjectText = `commands starting "${prefixes.join('", "')}"`;
  } else {
    const paths = [...(access?.reads ?? []), ...(access?.writes ?? []), ...(access?.readTrees ?? [])];
    if (paths.length > 0) {
      subject = `paths:${paths.join("\u0000")}`;
      subjectText = paths.length === 1 ? `calls touching ${paths[0]}` : `calls touching these ${paths.length} paths`;
    } else {
      subject = `args:${safeJson(request.args)}`;
      subjectText = "calls with these same arguments";
    }
  }
  return {
    key: [tool, ruleText, subject].join("\u0001"),
    text: `${tool} ${subjectText} that ${ruleText} asks about`,
  };
}

function ruleIds(details: Record<string, unknown> | undefined): string[] {
  const policy = details?.policy;
  const rules = policy !== null && typeof policy === "object" ? (policy as { rules?: unknown }).rules : undefined;
  return Array.isArray(rules) ? rules.filter((rule): rule is string => typeof rule === "string") : [];
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

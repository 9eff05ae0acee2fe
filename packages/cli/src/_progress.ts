import type { AgentHarness } from "@toolhost/core";
import { latestLine } from "./_interrupted.js";
import { terminalLine } from "./_terminal-text.js";

/** The progress line on stderr while calls run; does nothing outside a terminal or with --quiet. */
export interface Progress {
  pause(): void;
  resume(): void;
  stop(): void;
}

const NONE: Progress = { pause() {}, resume() {}, stop() {} };

/**
 * Shows a spinner with `title` and the latest line of the running tools' updates, until `stop()`.
 * Only when stderr is a terminal: a log or a pipe gets no control characters.
 */
export async function startProgress(harness: AgentHarness, title: string, enabled: boolean): Promise<Progress> {
  if (!enabled || process.stderr.isTTY !== true) return NONE;
  const { default: yoctoSpinner } = await import("yocto-spinner");
  const spinner = yoctoSpinner({ text: terminalLine(title), stream: process.stderr, handleSignals: false });
  const width = Math.max(20, (process.stderr.columns ?? 80) - 4);
  const unsubscribe = harness.subscribe((event) => {
    if (event.type !== "tool_execution_update") return;
    const line = latestLine(event.partialResult);
    const label = harness.getTool(event.toolName)?.label ?? event.toolName;
    if (line !== undefined) spinner.text = terminalLine(`${label}: ${line}`).slice(0, width);
  });
  spinner.start();
  let paused = 0;
  return {
    pause() {
      paused += 1;
      if (paused === 1) spinner.stop();
    },
    resume() {
      paused -= 1;
      if (paused === 0) spinner.start();
    },
    stop() {
      unsubscribe();
      spinner.stop();
    },
  };
}

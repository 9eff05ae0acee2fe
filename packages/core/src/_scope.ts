import type { HarnessHooks } from "./hooks/harness-hooks.js";
import type { AgentEvent, AnyAgentTool, ExecutionMode } from "./types/index.js";

/**
 * What the pipeline and the scheduler need of a harness, and nothing more: its hooks, where it
 * stands, its limits, its tools (for "not found" messages) and its events. The stages take this
 * narrow scope, not the harness class, so the kernel's files form no loop.
 */
export interface PipelineScope {
  // biome-ignore lint: the stages do not know the host's tool context type.
  readonly hooks: HarnessHooks<any>;
  readonly cwd: string;
  readonly workspace: string;
  readonly toolContext: unknown;
  readonly toolExecution: ExecutionMode;
  readonly maxConcurrency: number;
  readonly toolTimeoutMs: number | undefined;
  readonly abortGraceMs: number;
  readonly tools: AnyAgentTool[];
  emit(event: AgentEvent): void;
}

import { messageOf } from "@toolhost/core";
import type { FullOutputFiles } from "../_full-output.js";
import { type RenderedStream, StreamCapture } from "../_output.js";
import type { OutputPipe } from "../_pipes.js";
import { Spill } from "../_spill.js";
import { bytesText } from "../_numbers.js";
import type { FinalOutput } from "./_result.js";

/** What reading a call's output needs from its settings. */
export interface ReadingSettings {
  maxStdoutLines: number | undefined;
  maxStderrLines: number | undefined;
  maxOutputBytes: number;
  /** Where full outputs go; undefined: none is kept. */
  fullOutput: FullOutputFiles | undefined;
  /** The most bytes one call's full-output file holds (`fullOutputBytes`, by default the call's `fileSizeBytes`). */
  fullOutputBytes: number;
  /** Applied to the full-output file's lines (the harness's `redact` hook, when tapped). */
  redact: ((text: string) => string) | undefined;
}

/**
 * Reads the command's stdout and stderr as they come: each into bounded memory (head and tail),
 * and, once a stream passes its limit, all of it into the full-output file, pausing the pipes
 * while the file is behind.
 */
export class OutputReading {
  readonly #settings: ReadingSettings;
  readonly #pipes: readonly [OutputPipe, OutputPipe];
  readonly #out: StreamCapture;
  readonly #err: StreamCapture;
  readonly #spill: Spill;
  #paused = false;
  #lastData = performance.now();
  /** Settles when both pipes are closed (the end of the output, or `destroy`). */
  readonly closed: Promise<unknown>;

  /** `onData` is told of every chunk (to schedule an update), `first` for the first of the call. */
  constructor(pipes: readonly [OutputPipe, OutputPipe], settings: ReadingSettings, onData: (first: boolean) => void) {
    this.#settings = settings;
    this.#pipes = pipes;
    this.#out = new StreamCapture(settings.maxOutputBytes);
    this.#err = new StreamCapture(settings.maxOutputBytes);
    const fullOutput = settings.fullOutput;
    this.#spill = new Spill(() => this.#resume(), fullOutput ? () => fullOutput.next() : undefined, settings.redact, settings.fullOutputBytes);
    let first = true;
    const reader = (capture: StreamCapture, stream: 0 | 1) => (chunk: Buffer, release: () => void) => {
      this.#lastData = performance.now();
      capture.push(chunk);
      if (!this.#spill.record(chunk, release, stream)) this.#pause();
      if (capture.overflowed && !this.#spill.started) this.#spill.start();
      onData(first);
      first = false;
    };
    pipes[0].start(reader(this.#out, 0));
    pipes[1].start(reader(this.#err, 1));
    this.closed = Promise.all([pipes[0].closed, pipes[1].closed]);
  }

  /** Whether reading is paused for the file, and when the last chunk came (for the drain). */
  state(): { paused: boolean; lastData: number } {
    return { paused: this.#paused, lastData: this.#lastData };
  }

  /** What each stream shows now, and the full-output file's path once there is one. */
  now(): { stdout: RenderedStream; stderr: RenderedStream; fullOutputPath: string | undefined } {
    const { maxStdoutLines, maxStderrLines } = this.#settings;
    return { stdout: this.#out.render(maxStdoutLines), stderr: this.#err.render(maxStderrLines), fullOutputPath: this.#spill.path };
  }

  /** Stops reading, writes what the full-output file still needs, and says what the model sees. */
  async finish(): Promise<FinalOutput> {
    for (const pipe of this.#pipes) pipe.destroy();
    const { stdout, stderr } = this.now();
    const truncated = stdout.truncated || stderr.truncated;
    const spill = this.#spill;
    if (truncated && !spill.started) spill.start();
    await spill.finish();
    const fullOutputPath = truncated && spill.path !== undefined && spill.error === undefined ? spill.path : null;
    // A file the result does not name is of no use to anyone: it goes now, not at its expiry.
    if (fullOutputPath === null) await spill.discard();
    const fullOutputExpiresAt = fullOutputPath !== null ? (spill.expiresAt ?? null) : null;
    const cut = fullOutputPath !== null ? spill.cut : undefined;
    const cutText = cut ? `, cut at ${bytesText(cut.keptBytes)} of ${bytesText(cut.totalBytes)} (fullOutputBytes)` : "";
    const note = fullOutputPath
      ? `full output: ${fullOutputPath}${fullOutputExpiresAt ? ` (kept until ${fullOutputExpiresAt}${cutText})` : cutText ? ` (${cutText.slice(2)})` : ""}`
      : !this.#settings.fullOutput
        ? `the full output is not kept (keepFullOutput: false)`
        : `the full output could not be saved (${spill.error ? messageOf(spill.error) : "no file"})`;
    return { stdout, stderr, truncated, fullOutputPath, fullOutputExpiresAt, ...(cut && { fullOutputCut: cut }), note };
  }

  #pause(): void {
    this.#paused = true;
    for (const pipe of this.#pipes) pipe.pause();
  }

  #resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    for (const pipe of this.#pipes) pipe.resume();
  }
}

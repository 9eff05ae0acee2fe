import type { AgentToolUpdateCallback } from "@toolhost/core";
import type { BashToolDetails } from "../details.js";
import type { OutputReading } from "./_reading.js";
import { streamText } from "../_output.js";
import { type CallRecord, assemble } from "./_result.js";

const UPDATE_INTERVAL_MS = 100;
const NOTE = "full output will be saved to a file";

/**
 * The call's streamed updates: the latest output, at most one per interval (the first one interval
 * after the start, like every other), none once the call has ended.
 */
export class Updates {
  readonly #send: AgentToolUpdateCallback<BashToolDetails> | undefined;
  readonly #call: CallRecord;
  #reading: OutputReading | undefined;
  #timer: NodeJS.Timeout | undefined;
  #last: number;
  #ended = false;

  constructor(send: AgentToolUpdateCallback<BashToolDetails> | undefined, call: CallRecord) {
    this.#send = send;
    this.#call = call;
    this.#last = call.started;
  }

  /** The output to show; updates start once it is known. */
  follow(reading: OutputReading): void {
    this.#reading = reading;
  }

  /** New output came: an update goes out when the interval since the last one has passed. */
  schedule(): void {
    if (this.#timer !== undefined || this.#ended || !this.#send) return;
    this.#timer = setTimeout(() => this.#update(), Math.max(0, this.#last + UPDATE_INTERVAL_MS - performance.now()));
  }

  /** No update after this. */
  end(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
  }

  #update(): void {
    this.#timer = undefined;
    const reading = this.#reading;
    if (this.#ended || !this.#send || !reading) return;
    this.#last = performance.now();
    const { stdout, stderr, fullOutputPath } = reading.now();
    const details: BashToolDetails = {
      ...this.#call.details(),
      stdout: streamText(stdout, NOTE),
      stderr: streamText(stderr, NOTE),
      truncated: stdout.truncated || stderr.truncated,
      fullOutputPath: fullOutputPath ?? null,
    };
    try {
      this.#send({ content: [{ type: "text", text: assemble(details.stdout, details.stderr, undefined) }], details });
    } catch {
      // A listener's failure is not the command's.
    }
  }
}

// Private to cli/: the progress line of a long call (`call`) and of a
// program's calls (`run`): each report a call hears (a server's progress, a
// task's status) said in a few words, through the Output's status line. On
// a terminal it is one line redrawn in place, at most every
// PROGRESS_REDRAW_MS; off one (piped), a plain line, at most one per call
// every PROGRESS_LINE_EVERY_MS (a server may report every millisecond), and
// the same words twice in a row only once. A task's change of status is
// always said. `call` and `run` ask for progress only on a terminal, without
// --quiet or --json: a piped command hears none, however much a server
// reports, and the plain line is there for a caller that asks off one.

import type { CallProgress } from "../codec/progress.ts";
import type { Output } from "./_output.ts";
import { oneLine } from "./_render.ts";

/** The least time between two redraws of the progress line on a terminal, in milliseconds. */
export const PROGRESS_REDRAW_MS = 100;
/** The least time between two plain progress lines of one call off a terminal, in milliseconds. */
export const PROGRESS_LINE_EVERY_MS = 1_000;
/** The most characters of a progress message shown. */
export const PROGRESS_MESSAGE_CHARS = 200;

/** One report in a few words: `2 of 5 (40%): message`, or `task t-1 working: message`. */
export function progressText(progress: CallProgress): string {
  const message = progress.message === undefined || progress.message.trim() === ""
    ? ""
    : `: ${oneLine(progress.message, PROGRESS_MESSAGE_CHARS)}`;
  if (progress.kind === "task") {
    return `task ${oneLine(progress.taskId, 60)} ${progress.status}${message}`;
  }
  const { total } = progress;
  const done = total === undefined
    ? number(progress.progress)
    : `${number(progress.progress)} of ${number(total)}${
      total > 0 ? ` (${Math.round(progress.progress / total * 100)}%)` : ""
    }`;
  return `${done}${message}`;
}

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
}

type Said = { at: number; text: string; status?: string };

/** The progress of one command's calls, shown as the module doc says. */
export class ProgressLine {
  readonly #output: Output;
  readonly #now: () => number;
  readonly #said = new Map<string, Said>();
  #drawnAt = -Infinity;

  /** Shows through `output`; `now` is the clock (milliseconds, monotonic). */
  constructor(output: Output, options: { now?: () => number } = {}) {
    this.#output = output;
    this.#now = options.now ?? (() => performance.now());
  }

  /** One report of the call `label` names (`server.tool`, or `call 2` of a program). */
  report(label: string, progress: CallProgress): void {
    const text = `${label}: ${progressText(progress)}`;
    const now = this.#now();
    const before = this.#said.get(label);
    const status = progress.kind === "task" ? progress.status : undefined;
    // A task that changed status is news however soon it comes.
    const news = status !== undefined && status !== before?.status;
    if (before?.text === text) return;
    if (this.#output.statusInPlace) {
      if (!news && now - this.#drawnAt < PROGRESS_REDRAW_MS) return;
      this.#drawnAt = now;
    } else if (!news && before !== undefined && now - before.at < PROGRESS_LINE_EVERY_MS) {
      return;
    }
    this.#said.set(label, { at: now, text, ...(status === undefined ? {} : { status }) });
    this.#output.status(text);
  }

  /** The calls are over: the line is erased (plain lines stay). */
  end(): void {
    this.#output.clearStatus();
  }
}

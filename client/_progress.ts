// Private to client/: what a caller asked of a long call (its progress, its
// deadline reset by that progress, its whole-flow bound, whether it runs as
// a task), the checks of those options, and what the caller is handed: each
// report with its server text made inert (`sanitizeLine`) and cut to
// MAX_PROGRESS_MESSAGE_CHARS, and, at the bound, a timeout that says so.
//
// The deadline stays on the main thread (`_tickets.ts`), as for every call:
// a report moves it to `timeoutMs` after the report, never past
// `maxTotalTimeoutMs` after the call left, as the official SDK's
// `resetTimeoutOnProgress` and `maxTotalTimeout` do (there, the bound is
// checked at the next report; here, it is a deadline of its own).

import { sanitizeLine, truncate } from "../codegen/text.ts";
import { isTimeoutMs, TIMEOUT_RULE } from "../settings/check.ts";
import { MAX_PROGRESS_MESSAGE_CHARS } from "../settings/limits.ts";
import type { ClientError } from "./thread/outcomes.ts";
import type { CallProgress } from "./thread/progress.ts";

/** What a long call was asked to do, as its ticket keeps it. */
export type Follow = {
  onProgress: ((progress: CallProgress) => void) | undefined;
  resetTimeoutOnProgress: boolean;
  maxTotalTimeoutMs: number | undefined;
  task: boolean;
};

/** The options of a call that make it long (see `CallOptions`). */
export type FollowOptions = {
  onProgress?: (progress: CallProgress) => void;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
};

/**
 * What a call must follow, or `undefined` for an ordinary call (the hot
 * path); `TypeError` or `RangeError` for options a caller got wrong.
 */
export function followOf(options: FollowOptions, task: boolean): Follow | undefined {
  const { onProgress, resetTimeoutOnProgress, maxTotalTimeoutMs } = options;
  if (onProgress === undefined && !task) {
    if (resetTimeoutOnProgress === true) {
      throw new TypeError("Cannot reset a call's timeout on progress without onProgress");
    }
    return undefined;
  }
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw new TypeError("Cannot call a tool: onProgress is not a function");
  }
  if (resetTimeoutOnProgress !== undefined && typeof resetTimeoutOnProgress !== "boolean") {
    throw new TypeError("Cannot call a tool: resetTimeoutOnProgress is not a boolean");
  }
  if (maxTotalTimeoutMs !== undefined && !isTimeoutMs(maxTotalTimeoutMs)) {
    throw new RangeError(
      `Cannot use maxTotalTimeoutMs ${String(maxTotalTimeoutMs)}: it must be ${TIMEOUT_RULE}`,
    );
  }
  return {
    onProgress,
    resetTimeoutOnProgress: resetTimeoutOnProgress ?? false,
    maxTotalTimeoutMs,
    task,
  };
}

/** The deadline a call gets when it leaves, or at a report that resets it. */
export function deadlineOf(
  follow: Follow | undefined,
  now: number,
  timeoutMs: number,
  startedAt: number,
): number {
  const next = now + timeoutMs;
  const bound = follow?.maxTotalTimeoutMs;
  return bound === undefined ? next : Math.min(next, startedAt + bound);
}

/** A report as the caller reads it: its server text inert and bounded. */
export function sanitized(progress: CallProgress): CallProgress {
  if (progress.message === undefined) return progress;
  const message = truncate(sanitizeLine(progress.message), MAX_PROGRESS_MESSAGE_CHARS);
  return { ...progress, message };
}

/**
 * The error of a long call cut at its whole-flow bound, or `undefined` when
 * its own deadline ended it.
 */
export function boundReached(
  server: string,
  follow: Follow | undefined,
  deadline: number,
  startedAt: number,
): ClientError | undefined {
  const bound = follow?.maxTotalTimeoutMs;
  if (bound === undefined || deadline < startedAt + bound) return undefined;
  return {
    kind: "call_timed_out",
    method: "tools/call",
    timeoutMs: bound,
    aborted: false,
    message: `Server "${server}" did not finish tools/call within its maxTotalTimeoutMs of ` +
      `${bound} ms, progress or not; raise maxTotalTimeoutMs of the call`,
  };
}

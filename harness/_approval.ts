// Private to harness/: the approval hook, asked about each call that would
// otherwise be sent. It is asked one call at a time per queue (a run's calls,
// or the harness's own), in the order the calls were made: each call takes
// its place in its queue when it is made, synchronously, and waits for the
// answer about the call before it. The wait and the hook's own time count in
// the call's deadline (and so in its run's); a hook that throws, answers
// anything but an approval, or does not answer by the deadline or before the
// run ends, denies the call.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ApprovalRequest, Approve } from "../runner/host/approval.ts";
import { MAX_DENIAL_REASON_CHARS } from "./limits.ts";
import type { CallDenial } from "./types.ts";

type Ended = { ended: "expired" | "aborted" };
type Options = { queue: object; timeoutMs: number; signal: AbortSignal | undefined };
type Queue = { waiting: number; tail: Promise<unknown> };

/** The queues of one harness's approvals, and the asking. */
export class ApprovalGate {
  #queues = new WeakMap<object, Queue>();

  /**
   * Asks `approve` about `request` once every call queued before it under
   * `options.queue` has been answered; ok when it allows the call. A call
   * with none before it asks at once, and a hook that answers at once costs
   * no timer.
   */
  ask(
    approve: Approve,
    request: ApprovalRequest,
    options: Options,
  ): Promise<Result<void, CallDenial>> {
    let queue = this.#queues.get(options.queue);
    if (queue === undefined) this.#queues.set(options.queue, queue = { waiting: 0, tail: DONE });
    const issued = performance.now();
    let first: unknown;
    if (queue.waiting === 0) {
      // Nothing before it: asked now; an answer given at once needs no queue.
      if (options.signal?.aborted) return Promise.resolve(lapsed(request, ABORTED, 0));
      try {
        first = approve(request);
      } catch (error) {
        return Promise.resolve(threw(request, error));
      }
      if (!isThenable(first)) return Promise.resolve(verdict(request, first));
    }
    const before = queue.waiting === 0 ? undefined : queue.tail;
    queue.waiting++;
    const held = queue;
    const decided = decide(approve, request, { before, first }, { ...options, issued });
    held.tail = decided;
    return decided.finally(() => held.waiting--);
  }
}

const DONE = Promise.resolve();

/**
 * The answer about a call asked after the ones `before` it, or, when none,
 * the pending `first` answer the hook gave at once.
 */
async function decide(
  approve: Approve,
  request: ApprovalRequest,
  asked: { before: Promise<unknown> | undefined; first: unknown },
  options: Options & { issued: number },
): Promise<Result<void, CallDenial>> {
  const left = () => options.timeoutMs - (performance.now() - options.issued);
  let answer = asked.first;
  try {
    if (asked.before !== undefined) {
      const turn = await withDeadline(asked.before, left(), options.signal);
      if (isEnded(turn)) return lapsed(request, turn, options.timeoutMs);
      if (options.signal?.aborted) return lapsed(request, ABORTED, options.timeoutMs);
      answer = approve(request);
    }
    if (isThenable(answer)) answer = await withDeadline(answer, left(), options.signal);
  } catch (error) {
    return threw(request, error);
  }
  if (isEnded(answer)) return lapsed(request, answer, options.timeoutMs);
  return verdict(request, answer);
}

function threw(request: ApprovalRequest, error: unknown): Result<void, CallDenial> {
  const reason = error instanceof Error ? error.message : String(error);
  return err(denial(request, `the approval hook threw: ${reason}`));
}

/** What the hook's answer means. */
function verdict(request: ApprovalRequest, answer: unknown): Result<void, CallDenial> {
  if (answer === true || isRecord(answer) && answer.allow === true) return ok(undefined);
  if (answer === false) return err(denial(request, "the approval hook refused it"));
  if (isRecord(answer) && answer.allow === false) {
    const reason = typeof answer.reason === "string" && answer.reason !== ""
      ? answer.reason.slice(0, MAX_DENIAL_REASON_CHARS)
      : "the approval hook refused it";
    return err(denial(request, reason));
  }
  return err(
    denial(request, "the approval hook answered neither true, false nor { allow: false, reason }"),
  );
}

const ENDED = new WeakSet<object>();
const ABORTED: Ended = { ended: "aborted" };
ENDED.add(ABORTED);

function isEnded(value: unknown): value is Ended {
  return typeof value === "object" && value !== null && ENDED.has(value);
}

/** `promise`, or how the wait for it ended: its deadline, or the call given up. */
async function withDeadline<T>(
  promise: PromiseLike<T>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<T | Ended> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = (): void => {};
  const end = (how: Ended["ended"]): Ended => {
    const ended = { ended: how };
    ENDED.add(ended);
    return ended;
  };
  const ended = new Promise<Ended>((resolve) => {
    if (signal?.aborted) return resolve(end("aborted"));
    if (ms <= 0) return resolve(end("expired"));
    timer = setTimeout(() => resolve(end("expired")), ms);
    onAbort = () => resolve(end("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, ended]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

function lapsed(request: ApprovalRequest, how: Ended, timeoutMs: number): Result<void, CallDenial> {
  return err(denial(
    request,
    how.ended === "aborted"
      ? "the call was given up before the approval hook answered"
      : `the approval hook did not answer within the call's deadline of ${timeoutMs} ms`,
  ));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

function denial(request: ApprovalRequest, reason: string): CallDenial {
  const what = request.resource !== undefined
    ? `read resource ${quote(request.resource)}`
    : request.prompt !== undefined
    ? `get prompt ${quote(request.prompt)}`
    : `call tool ${quote(request.tool)}`;
  return {
    kind: "denied",
    server: request.server,
    tool: request.tool,
    reason,
    message: `Cannot ${what} of ${quote(request.server)}: denied: ${reason}`,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

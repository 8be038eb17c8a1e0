/**
 * What a client's worker sends the main thread, gathered per turn of its
 * event loop and sent through its end of the link (`client/thread/link.ts`): the
 * events of a turn in one posted message, or, the common case, a turn's
 * answers alone as one string through the answer ring.
 *
 * Hot path: the responses handed on since the last other event are gathered
 * as their bytes, copied into one buffer kept from turn to turn as they come
 * (a line may be a view into a read's chunk), and leave as text when small
 * and UTF-8 (decoded here in one call), or as a copy of their bytes,
 * transferred; a line that is a buffer of its own leaves whole while it is
 * the only one. Stderr is held for a moment ({@linkcode STDERR_FLUSH_MS})
 * and sent in one event, ahead of whatever is sent next.
 *
 * A server's progress is a latest value: a call's reports gathered in one
 * turn leave as one event, its newest, in the place of the first
 * ({@linkcode Outbox.progress}), so that a server reporting a million times
 * a second costs the main thread one event per read of its pipe, not one
 * per report, and the worker holds no queue of them. A task's change of
 * status is news and is never folded.
 *
 * @module
 */

import { joinBytes } from "../../codec/_bytes.ts";
import { decodeUtf8 } from "../../codec/_utf8.ts";
import { LineSplitter } from "../../codec/framing.ts";
import { STDERR_TAIL_BYTES } from "../../settings/limits.ts";
import {
  type Answers,
  encodeProgress,
  encodeStderr,
  type FromWorker,
  type ProgressEvent,
  renderAnswers,
} from "../thread/from_worker.ts";
import type { CallProgress } from "../thread/progress.ts";
import type { ThreadEnd } from "../thread/link.ts";
import type { Clock, TimerHandle } from "../transport/clock.ts";

/** How long stderr bytes may wait before they are sent to the main thread, in ms. */
export const STDERR_FLUSH_MS = 50;

/** The first size of the buffer a turn's answers are gathered in, in bytes. */
const ANSWER_BUFFER_BYTES = 16 * 1024;
/**
 * Answers up to this size leave as text, decoded here in one call: a string
 * crosses to the main thread for half what a byte buffer costs, transferred
 * or not (measured: 2 to 4 µs a message against 6 to 10). Larger ones leave
 * as their bytes, transferred, so that no large string is copied twice.
 */
export const ANSWER_TEXT_BYTES = 64 * 1024;
const EMPTY = "";
const NEWLINE = 0x0a;

type AnswerBatch = { event: Answers; size: number; whole: Uint8Array | undefined };

/** The events a worker sends, gathered per turn. */
export class Outbox {
  #end: ThreadEnd;
  #clock: Clock;
  #events: FromWorker[] = [];
  #flushQueued = false;
  #flush = () => this.flush();
  #answers: AnswerBatch | undefined;
  #scratch = new Uint8Array(ANSWER_BUFFER_BYTES);
  #stderr: Uint8Array[] = [];
  #stderrBytes = 0;
  #stderrTimer: TimerHandle | undefined;
  #flushStderr = () => this.flushStderr();
  // The progress event of each ticket queued this turn, replaced by newer reports until sent.
  #progress = new Map<number, ProgressEvent>();

  constructor(end: ThreadEnd, clock: Clock) {
    this.#end = end;
    this.#clock = clock;
  }

  /** Queues an event; the turn's events leave together once the turn's work is done. */
  post(event: FromWorker): void {
    this.#seal();
    this.#events.push(event);
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      queueMicrotask(this.#flush);
    }
  }

  /**
   * Queues a report of the long call of `ticket`. A server's progress
   * replaces the one of the same call still queued this turn (it keeps its
   * place, before any answer to the call); a task's status is always queued.
   */
  progress(ticket: number, progress: CallProgress): void {
    const queued = this.#progress.get(ticket);
    if (queued !== undefined && progress.kind === "progress") {
      queued.progress = progress;
      return;
    }
    const event = encodeProgress(ticket, progress);
    this.post(event);
    if (progress.kind === "progress") this.#progress.set(ticket, event);
    else this.#progress.delete(ticket);
  }

  /** Sends what is queued now. */
  flush(): void {
    this.#flushQueued = false;
    this.#seal();
    if (this.#progress.size > 0) this.#progress.clear();
    if (this.#events.length === 0) return;
    const batch = this.#events;
    this.#events = [];
    const only = batch.length === 1 ? batch[0] : undefined;
    if (only?.kind === "answers" && typeof only.lines === "string") {
      // The common message, answers as text alone, crosses the ring as one
      // string, or is posted as one when the ring is full.
      this.#end.text(renderAnswers(only.tickets, only.ids, only.lines));
      return;
    }
    const transfer: ArrayBuffer[] = [];
    for (const event of batch) {
      if (event.kind === "answers" && typeof event.lines !== "string") {
        transfer.push(event.lines.buffer as ArrayBuffer);
      }
    }
    this.#end.message(batch, transfer);
  }

  /** Hands on the response line of `ticket`, routed by `id`, undecoded. */
  answer(ticket: number, id: number, line: Uint8Array): void {
    let batch = this.#answers;
    if (batch === undefined) {
      const event: Answers = { kind: "answers", tickets: [], ids: [], lines: EMPTY };
      this.post(event);
      batch = { event, size: 0, whole: undefined };
      this.#answers = batch;
      if (line.length > ANSWER_TEXT_BYTES && LineSplitter.owns(line)) {
        batch.whole = line;
        batch.size = line.length;
        batch.event.tickets.push(ticket);
        batch.event.ids.push(id);
        return;
      }
    }
    if (batch.whole !== undefined) {
      const whole = batch.whole;
      batch.whole = undefined;
      batch.size = 0;
      this.#append(batch, whole, false);
    }
    this.#append(batch, line, batch.event.tickets.length > 0);
    batch.event.tickets.push(ticket);
    batch.event.ids.push(id);
  }

  /** Holds a chunk of the server's stderr, sent within {@linkcode STDERR_FLUSH_MS}. */
  holdStderr(chunk: Uint8Array): void {
    this.#stderr.push(chunk.slice());
    this.#stderrBytes += chunk.length;
    while (this.#stderrBytes - (this.#stderr[0]?.length ?? 0) >= STDERR_TAIL_BYTES) {
      this.#stderrBytes -= this.#stderr.shift()?.length ?? 0;
    }
    this.#stderrTimer ??= this.#clock.setTimer(STDERR_FLUSH_MS, this.#flushStderr);
  }

  /** Queues held stderr now, ahead of whatever is posted next. */
  flushStderr(): void {
    if (this.#stderrTimer !== undefined) this.#clock.clearTimer(this.#stderrTimer);
    this.#stderrTimer = undefined;
    if (this.#stderrBytes === 0) return;
    const bytes = joinBytes(this.#stderr, this.#stderrBytes);
    this.#stderr = [];
    this.#stderrBytes = 0;
    this.post(encodeStderr(bytes));
  }

  /** Ends the batch of answers being gathered: its bytes are final. */
  #seal(): void {
    const batch = this.#answers;
    this.#answers = undefined;
    if (batch === undefined) return;
    batch.event.lines = batch.whole ?? textOrBytes(this.#scratch.subarray(0, batch.size));
    // A buffer grown for one large answer is not kept for the small ones.
    if (this.#scratch.length > ANSWER_BUFFER_BYTES * 16) {
      this.#scratch = new Uint8Array(ANSWER_BUFFER_BYTES);
    }
  }

  /** Copies a line into the batch's buffer, after a newline when it is not the first. */
  #append(batch: AnswerBatch, line: Uint8Array, separated: boolean): void {
    const needed = batch.size + line.length + (separated ? 1 : 0);
    if (needed > this.#scratch.length) {
      const grown = new Uint8Array(Math.max(needed, this.#scratch.length * 2));
      grown.set(this.#scratch.subarray(0, batch.size));
      this.#scratch = grown;
    }
    if (separated) this.#scratch[batch.size++] = NEWLINE;
    this.#scratch.set(line, batch.size);
    batch.size += line.length;
  }
}

/**
 * A batch's lines as text when small and UTF-8; otherwise a copy of their
 * bytes, for the main thread to decode (and to refuse the line that is not
 * UTF-8, with the framing fault a worker-side decode would have given).
 */
function textOrBytes(bytes: Uint8Array): string | Uint8Array {
  // Bytes that are not UTF-8 are handed on as they are: the main thread finds the line.
  const text = bytes.length <= ANSWER_TEXT_BYTES ? decodeUtf8(bytes) : undefined;
  return text ?? bytes.slice();
}

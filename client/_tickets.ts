// Private to client/: the requests a client has sent to its worker and not
// yet seen settled, each with a deadline that one main-thread timer watches
// (armed for the earliest), so that neither a hung server nor a hung worker
// can hold a caller past it.
//
// Hot path: requests cross as strings, batched per microtask (a string
// crosses the boundary far cheaper than an object, and 64 batched cost about
// 0.6 µs each against 16 µs alone); parameters past
// TRANSFER_PARAMS_CHARS cross as transferred UTF-8 bytes instead. Responses
// come back as their lines, a turn's worth in one text (or, when large, one
// transferred buffer of their bytes), routed by the id the worker peeked,
// and are decoded here, once (`answers`).

import type { JsonValue } from "../codec/json.ts";
import { decodeInbound } from "../codec/jsonrpc.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { encodeUtf8 } from "../codec/_utf8.ts";
import { type AnswerFault, answerLines } from "./_answer_lines.ts";
import { callTimedOut, type ClientError, malformedLine, serverError } from "./thread/outcomes.ts";
import { MAX_TIMEOUT_MS } from "../settings/mod.ts";
import {
  encodeBytesRequest,
  encodeCancel,
  encodeLongCall,
  renderRequest,
  type RequestMethod,
  type ToWorker,
  TRANSFER_PARAMS_CHARS,
} from "./thread/to_worker.ts";
import type { CallProgress } from "./thread/progress.ts";
import { boundReached, deadlineOf, type Follow, sanitized } from "./_progress.ts";
import { ClientOperation, type McpPeer, tracing } from "../telemetry/mcp.ts";
import { endOf, withTraceContext } from "./_telemetry.ts";

const KEEP_PROTOTYPES = { keepPrototypes: true } as const;

/** How a ticket table reaches the worker; each call does nothing once the worker is gone. */
export type WorkerPost = {
  /** Posts a batch of rendered requests. */
  batch(text: string): void;
  /** Posts one control message, with buffers to transfer. */
  message(message: ToWorker, transfer?: ArrayBuffer[]): void;
};

/** What a caller makes of a raw result, in the same step that settles its call. */
export type Decode<T> = (value: JsonValue) => Result<T, ClientError>;

type Pending = {
  method: RequestMethod;
  timeoutMs: number;
  resolve: (outcome: Result<unknown, ClientError>) => void;
  decode: Decode<unknown> | undefined;
  /**
   * When the request expires, on `performance.now()`'s scale: set when it
   * leaves for the worker (`Infinity` until then).
   */
  deadline: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** What a long call follows (`_progress.ts`), and when it left. */
  follow: Follow | undefined;
  startedAt: number;
  /** The request's span and its raw result, while tracing. */
  traced: Traced | undefined;
};

type Traced = { operation: ClientOperation; raw: JsonValue | undefined };

/** The requests in flight to one worker, by ticket. */
export class Tickets {
  #server: string;
  #post: WorkerPost;
  #pending = new Map<number, Pending>();
  #nextTicket = 0;
  #outbox: string[] = [];
  #flushQueued = false;
  // One timer for the table, at the earliest deadline it has seen: setting
  // and clearing a timer per call cost more main-thread CPU than routing the
  // call. It stays armed when the table empties (a sequential caller would
  // otherwise set and clear one per call: 4 µs of a call's 70 here), unref'd
  // so that it keeps no process alive while nothing waits on it, fires at
  // most once per deadline for nothing, and is cleared by `settleAll`, which
  // every end of a client calls, so nothing outlives it.
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  // The tickets queued in this turn, whose deadlines start when they leave.
  #leaving: number[] = [];
  // Whether an answer was refused: none settles anything after it.
  #refused = false;
  // The listens waiting for their acknowledgment, by ticket (`listen`).
  #listening = new Map<number, (honored: boolean, ticket: number) => void>();
  // The server's requests being answered (`hold`), and since when one has been.
  #holds = 0;
  #heldSince = 0;
  // Told of each request as it settles, and whether it was given up (`watch`).
  #watchers = new Set<(ticket: number, givenUp: boolean) => void>();

  #peer: () => McpPeer;

  constructor(
    server: string,
    post: WorkerPost,
    peer: () => McpPeer = () => ({ transport: "pipe" }),
  ) {
    this.#server = server;
    this.#post = post;
    this.#peer = peer;
  }

  /**
   * Sends one request and resolves with its raw outcome: the worker's
   * settlement, `call_timed_out` at the deadline or on abort (the worker is
   * told to cancel), or whatever {@linkcode settleAll} says.
   */
  request<T = JsonValue>(
    method: RequestMethod,
    paramsText: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    decode?: Decode<T>,
    follow?: Follow,
  ): Promise<Result<T, ClientError>> {
    // Without a tracer provider this check is all tracing costs a request.
    if (tracing()) return this.#traced(method, paramsText, timeoutMs, signal, decode, follow);
    return this.#request(method, paramsText, timeoutMs, signal, decode, follow, undefined);
  }

  /**
   * A request in a CLIENT span (a child of the active one), whose trace
   * context leads its parameters' `_meta`; the span ends with its settlement.
   */
  #traced<T>(
    method: RequestMethod,
    paramsText: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    decode: Decode<T> | undefined,
    follow: Follow | undefined,
  ): Promise<Result<T, ClientError>> {
    const operation = new ClientOperation(method, paramsText, this.#peer());
    const traced: Traced = { operation, raw: undefined };
    const sent = withTraceContext(paramsText, operation.carrier());
    return this.#request(method, sent, timeoutMs, signal, decode, follow, traced).then(
      (outcome) => {
        // A result is judged as the server sent it (`isError`), not as decoded.
        operation.end(endOf(outcome.ok ? ok(traced.raw ?? outcome.value) : outcome));
        return outcome;
      },
    );
  }

  #request<T>(
    method: RequestMethod,
    paramsText: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    decode: Decode<T> | undefined,
    follow: Follow | undefined,
    traced: Traced | undefined,
  ): Promise<Result<T, ClientError>> {
    if (signal?.aborted) {
      return Promise.resolve(err(callTimedOut(this.#server, method, timeoutMs, true)));
    }
    const ticket = this.#nextTicket++;
    return new Promise((resolve) => {
      const pending: Pending = {
        method,
        timeoutMs,
        resolve: resolve as Pending["resolve"],
        decode,
        deadline: Infinity,
        signal,
        onAbort: undefined,
        follow,
        startedAt: 0,
        traced,
      };
      this.#leaving.push(ticket);
      if (signal !== undefined) {
        pending.onAbort = () => this.#expire(ticket, true);
        signal.addEventListener("abort", pending.onAbort, { once: true });
      }
      this.#pending.set(ticket, pending);
      if (this.#pending.size === 1 && this.#timer !== undefined) Deno.refTimer(this.#timer);
      if (follow !== undefined) {
        // Posted, after those queued: a long call leaves the hot path.
        this.flush();
        this.#post.message(encodeLongCall({
          ticket,
          timeoutMs,
          params: paramsText,
          progress: follow.onProgress !== undefined,
          task: follow.task,
          ttlMs: Math.max(timeoutMs, follow.maxTotalTimeoutMs ?? 0),
        }));
        return;
      }
      if (paramsText.length >= TRANSFER_PARAMS_CHARS) {
        // After those queued, so that requests reach the worker in order.
        this.flush();
        const [message, transfer] = encodeBytesRequest(
          ticket,
          timeoutMs,
          method,
          encodeUtf8(paramsText),
        );
        this.#post.message(message, transfer);
        return;
      }
      this.#outbox.push(renderRequest(ticket, timeoutMs, method, paramsText));
      if (!this.#flushQueued) {
        this.#flushQueued = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  /**
   * Sends a 2026-07-28 `subscriptions/listen` as {@linkcode request} does,
   * with no deadline of its own (it lasts until `signal` cancels it or the
   * server ends it); `acknowledged` is told, once, whether the server agreed
   * to every URI it named, and the listen's ticket, which the updates it
   * brings name, when its acknowledgment comes before its end.
   */
  listen(
    paramsText: string,
    signal: AbortSignal,
    acknowledged: (honored: boolean, ticket: number) => void,
  ): Promise<Result<JsonValue, ClientError>> {
    // The ticket the request is about to take, taken at once by it.
    const ticket = this.#nextTicket;
    const outcome = this.request("subscriptions/listen", paramsText, MAX_TIMEOUT_MS, signal);
    if (!this.#pending.has(ticket)) return outcome;
    this.#listening.set(ticket, acknowledged);
    return outcome.finally(() => this.#listening.delete(ticket));
  }

  /** The worker handed on a listen's acknowledgment; one of no listen waiting is ignored. */
  acknowledged(ticket: number, honored: boolean): void {
    const acknowledged = this.#listening.get(ticket);
    this.#listening.delete(ticket);
    acknowledged?.(honored, ticket);
  }

  /**
   * Starts the deadlines of the requests about to leave, from one clock read
   * for the batch (a read per request cost more than the rest of queueing it
   * with 64 in flight): a deadline runs from when its request leaves, so no
   * call waits less than it asked, however long the turn that made it.
   */
  #start(): void {
    const leaving = this.#leaving;
    if (leaving.length === 0) return;
    this.#leaving = [];
    const now = performance.now();
    let earliest = Infinity;
    for (const ticket of leaving) {
      // One settled already (aborted, or ended with its client) has no deadline.
      const pending = this.#pending.get(ticket);
      if (pending === undefined) continue;
      pending.startedAt = now;
      pending.deadline = pending.follow === undefined
        ? now + pending.timeoutMs
        : deadlineOf(pending.follow, now, pending.timeoutMs, now);
      if (pending.deadline < earliest) earliest = pending.deadline;
    }
    if (earliest < this.#timerAt) this.#arm(earliest);
  }

  /**
   * Watches the requests in flight now (listens aside) until each has
   * settled: `done` is called once, with whether any of them was given up
   * (its caller's signal, or its deadline), unless the returned stop comes
   * first. With none in flight, nothing is watched and `done` never called.
   */
  watch(done: (givenUp: boolean) => void): () => void {
    const waiting = new Set<number>();
    for (const ticket of this.#pending.keys()) {
      if (!this.#listening.has(ticket)) waiting.add(ticket);
    }
    if (waiting.size === 0) return () => {};
    let givenUp = false;
    const watcher = (ticket: number, up: boolean) => {
      if (!waiting.delete(ticket)) return;
      givenUp ||= up;
      if (waiting.size > 0) return;
      this.#watchers.delete(watcher);
      done(givenUp);
    };
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /**
   * Stops every deadline of the table while the server waits for an answer
   * of this side's (a person answering its elicitation, a model sampling for
   * it): the time from the first hold to the last release is not counted
   * against any request in flight, as the server's own deadline would not
   * count it. A caller's signal still withdraws a request at once. Returns
   * the release, which does something once.
   */
  hold(): () => void {
    if (this.#holds++ === 0) this.#heldSince = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holds === 0) this.#resume();
    };
  }

  // The last hold was released: each deadline moves by the time it was held.
  #resume(): void {
    const now = performance.now();
    let earliest = Infinity;
    for (const pending of this.#pending.values()) {
      if (pending.deadline === Infinity) continue;
      const held = now - Math.max(this.#heldSince, pending.startedAt);
      if (held > 0) {
        pending.deadline += held;
        pending.startedAt += held;
      }
      if (pending.deadline < earliest) earliest = pending.deadline;
    }
    this.#disarm();
    if (earliest !== Infinity) this.#arm(earliest);
  }

  /** Posts the queued requests now: before any control message, to keep the order. */
  flush(): void {
    this.#flushQueued = false;
    this.#start();
    const batch = this.#outbox;
    this.#outbox = [];
    if (batch.length === 0) return;
    this.#post.batch(batch.length === 1 ? batch[0] as string : batch.join("\n"));
  }

  /** The worker settled a ticket; a ticket already settled is ignored. */
  settled(ticket: number, outcome: Result<JsonValue, ClientError>): void {
    const pending = this.#take(ticket);
    if (pending === undefined) return;
    pending.resolve(
      outcome.ok && pending.decode !== undefined ? pending.decode(outcome.value) : outcome,
    );
  }

  /**
   * The worker handed on, as one text or buffer of lines joined by `\n`, the
   * lines it routed to `tickets` as the responses of `ids`: each is decoded and
   * settled in order, up to the first that must end the client (a line that
   * is not UTF-8 or not its response, or a batch the worker got wrong).
   * After that line, no answer settles anything: the client dies of it in
   * the worker, and its death, reported, settles the rest.
   */
  answers(
    tickets: readonly number[],
    ids: readonly number[],
    lines: string | Uint8Array,
  ): AnswerFault | undefined {
    if (this.#refused) return undefined;
    const fault = answerLines(
      this.#server,
      tickets,
      ids,
      lines,
      (ticket, id, line) => this.answered(ticket, id, line),
    );
    if (fault !== undefined) this.#refused = true;
    return fault;
  }

  /**
   * The worker handed on the line it routed to a ticket as the response of
   * `id`: decoded here, whole, and settled. Returns why the client must die
   * when the line is not that response (it is decoded even when the ticket
   * was already settled: no line goes unchecked); the ticket is then left
   * for the death to settle.
   */
  answered(ticket: number, id: number, line: string): string | undefined {
    // Results reach callers as plain data, on Object.prototype, as they
    // did when they crossed as structured clones.
    const inbound = decodeInbound(line, KEEP_PROTOTYPES);
    if (!inbound.ok) return malformedLine(this.#server, line, inbound.error.message);
    const message = inbound.value;
    if (message.kind !== "response" || message.id !== id) {
      return malformedLine(this.#server, line, `it is not the response ${id} it was routed as`);
    }
    const pending = this.#take(ticket);
    if (pending === undefined) return undefined;
    const outcome = message.outcome;
    const traced = pending.traced;
    if (traced !== undefined) {
      traced.operation.sentAs(id);
      if (outcome.ok) traced.raw = outcome.value;
    }
    if (!outcome.ok) {
      pending.resolve(err(serverError(this.#server, pending.method, outcome.error)));
    } else {
      pending.resolve(pending.decode === undefined ? outcome : pending.decode(outcome.value));
    }
    return undefined;
  }

  /**
   * The worker handed on a report of the long call of `ticket`: its caller
   * hears it, and its deadline moves when it asked for that. A report of a
   * ticket settled, or of a call that asked for none, is not handed on.
   */
  progress(ticket: number, progress: CallProgress): void {
    const pending = this.#pending.get(ticket);
    const follow = pending?.follow;
    if (pending === undefined || follow === undefined) return;
    if (follow.resetTimeoutOnProgress && pending.deadline !== Infinity) {
      pending.deadline = deadlineOf(
        follow,
        performance.now(),
        pending.timeoutMs,
        pending.startedAt,
      );
    }
    if (follow.onProgress === undefined) return;
    try {
      follow.onProgress(sanitized(progress));
    } catch {
      // A caller's handler that throws changes nothing of the call.
    }
  }

  /** Settles every request in flight with one error, and clears the table's timer. */
  settleAll(error: ClientError): void {
    for (const ticket of [...this.#pending.keys()]) {
      this.#take(ticket)?.resolve(err(error));
    }
    this.#leaving = [];
    this.#disarm();
  }

  #take(ticket: number, givenUp = false): Pending | undefined {
    const pending = this.#pending.get(ticket);
    if (pending === undefined) return undefined;
    this.#pending.delete(ticket);
    if (this.#watchers.size > 0) {
      for (const watcher of [...this.#watchers]) watcher(ticket, givenUp);
    }
    if (this.#pending.size === 0 && this.#timer !== undefined) Deno.unrefTimer(this.#timer);
    if (pending.onAbort !== undefined) {
      pending.signal?.removeEventListener("abort", pending.onAbort);
    }
    return pending;
  }

  #arm(at: number): void {
    this.#disarm();
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, at - performance.now()));
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  /** Expires every request past its deadline, then waits for the earliest left. */
  #sweep(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    // Held: the last release moves the deadlines and arms the timer again.
    if (this.#holds > 0) return;
    const now = performance.now();
    const due: number[] = [];
    let next = Infinity;
    for (const [ticket, pending] of this.#pending) {
      if (pending.deadline <= now) due.push(ticket);
      else if (pending.deadline < next) next = pending.deadline;
    }
    for (const ticket of due) this.#expire(ticket, false);
    if (next !== Infinity && this.#pending.size > 0 && next < this.#timerAt) this.#arm(next);
  }

  #expire(ticket: number, aborted: boolean): void {
    const pending = this.#take(ticket, true);
    if (pending === undefined) return;
    this.flush();
    this.#post.message(encodeCancel(ticket, !aborted));
    const bound = aborted
      ? undefined
      : boundReached(this.#server, pending.follow, pending.deadline, pending.startedAt);
    pending.resolve(
      err(bound ?? callTimedOut(this.#server, pending.method, pending.timeoutMs, aborted)),
    );
  }
}

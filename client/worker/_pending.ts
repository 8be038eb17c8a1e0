// Private to client/worker/: a machine's requests waiting for their answers, by id,
// each under a timer on the machine's clock. Ids are minted here, integers
// from 0; an id leaves the table exactly once (answered, expired, or settled
// by a death), and its timer is cleared when it does. A request re-issued
// under a new id (its stream broke, `rekey`) keeps its deadline and its
// caller, and its former ids still name it (a cancel says the first).

import type { JsonValue } from "../../codec/json.ts";
import type { Result } from "../../codec/result.ts";
import type { Clock, TimerHandle } from "../transport/clock.ts";
import type { ClientError } from "../thread/outcomes.ts";

/** Receives the outcome of a request, exactly once. */
export type Settle = (outcome: Result<JsonValue, ClientError>) => void;

/**
 * What a long call's request carries beyond its parameters: fields of its
 * `_meta` (`"progressToken":7`), fields of its parameters (`"task":{}`), and
 * whether a modern session's envelope declares the tasks extension.
 */
export type RequestExtra = { meta?: string; fields?: string; tasks?: boolean };

/** One request waiting for its answer. */
export type Pending = {
  method: string;
  settle: Settle;
  timeoutMs: number;
  /** Whether the server is told when the request is given up (not for a probe). */
  tellCancel: boolean;
  /**
   * Receives the response undecoded instead of `settle`: the id the line was
   * routed by and the whole line as the server wrote it (UTF-8 not yet
   * checked), for the receiver to decode. The bytes may be a view into a
   * read's chunk: copy them before the current task ends.
   */
  raw: ((id: number, line: Uint8Array) => void) | undefined;
  /**
   * Whether the table keeps the deadline (`timeoutMs`); `false` when the
   * sender keeps it and says `cancel` at it (the main thread, for its calls).
   */
  timed: boolean;
  /**
   * What a long call's request carries beyond its parameters; with
   * `progress`, its `_meta` asks for progress with its id as the token.
   */
  long?: { extra: RequestExtra; progress: boolean };
};

type Entry = Pending & {
  timer: TimerHandle | undefined;
  /** When its deadline passes, on the clock (only when `timed`: the table keeps it). */
  deadlineAt: number;
  /** The ids it had before it was re-issued. */
  formerIds: number[];
};

/** The requests in flight, by id. */
export class PendingTable {
  #clock: Clock;
  #onTimeout: (id: number, pending: Pending) => void;
  #transport: { done?(id: number): void } | undefined;
  #nextId = 0;
  #entries = new Map<number, Entry>();
  #aliases = new Map<number, number>();

  /**
   * `onTimeout` receives a request whose deadline passed, already taken out;
   * `transport` is told of every id that leaves, however it does (a
   * transport with a stream per request closes it then).
   */
  constructor(
    clock: Clock,
    onTimeout: (id: number, pending: Pending) => void,
    transport?: { done?(id: number): void },
  ) {
    this.#clock = clock;
    this.#onTimeout = onTimeout;
    this.#transport = transport;
  }

  /** Requests in flight. */
  get size(): number {
    return this.#entries.size;
  }

  /** Records a request and starts its timer (when `timed`); returns its id. */
  add(pending: Pending): number {
    const id = this.#nextId++;
    const entry: Entry = {
      method: pending.method,
      settle: pending.settle,
      timeoutMs: pending.timeoutMs,
      tellCancel: pending.tellCancel,
      raw: pending.raw,
      timed: pending.timed,
      timer: undefined,
      // Only a deadline the table keeps costs a clock read (the hot path's calls have none).
      deadlineAt: pending.timed ? this.#clock.now() + pending.timeoutMs : 0,
      formerIds: [],
    };
    if (pending.long !== undefined) entry.long = pending.long;
    this.#arm(id, entry);
    this.#entries.set(id, entry);
    return id;
  }

  /**
   * Moves a request to a new id, its deadline and caller kept, for it to be
   * sent again; `undefined` when nothing waits under `id`.
   */
  rekey(id: number): number | undefined {
    const current = this.#aliases.get(id) ?? id;
    const entry = this.#entries.get(current);
    if (entry === undefined) return undefined;
    this.#entries.delete(current);
    if (entry.timer !== undefined) this.#clock.clearTimer(entry.timer);
    const next = this.#nextId++;
    entry.formerIds.push(current);
    for (const former of entry.formerIds) this.#aliases.set(former, next);
    this.#arm(next, entry);
    this.#entries.set(next, entry);
    return next;
  }

  /** Takes a request out (its timer cleared), or `undefined` for an unknown or settled id. */
  take(id: number): Pending | undefined {
    const key = this.#aliases.get(id) ?? id;
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    for (const former of entry.formerIds) this.#aliases.delete(former);
    if (entry.timer !== undefined) this.#clock.clearTimer(entry.timer);
    this.#transport?.done?.(key);
    return entry;
  }

  #arm(id: number, entry: Entry): void {
    if (!entry.timed) return;
    entry.timer = this.#clock.setTimer(Math.max(0, entry.deadlineAt - this.#clock.now()), () => {
      const taken = this.take(id);
      if (taken !== undefined) this.#onTimeout(id, taken);
    });
  }

  /** Takes a request out only if it wants its response undecoded (`raw`). */
  takeRaw(id: number): Pending | undefined {
    return this.#entries.get(this.#aliases.get(id) ?? id)?.raw === undefined
      ? undefined
      : this.take(id);
  }

  /** Takes every request out, in the order they were sent. */
  takeAll(): Pending[] {
    const all = [...this.#entries.keys()];
    return all.map((id) => this.take(id)).filter((p): p is Pending => p !== undefined);
  }
}

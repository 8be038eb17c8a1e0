// Private to harness/: when a server is listed again. A handshake-era server
// says its tools changed (`notifications/tools/list_changed`); a
// stateless-era listing says how long it stays fresh (`ttlMs`). Either makes
// the server be listed again, but never sooner than
// MIN_RELIST_INTERVAL_MS after its last listing began, which no server can
// shorten: a flood of notifications, or a `ttlMs` of 0, costs one listing
// per interval. Notifications that arrive while a listing is under way make
// one more, after it; one relist at a time per server.
//
// Who closes what: the scheduler owns one timer per server at most, on the
// clock it is given (unref'd on the real one: a pending re-listing never
// keeps a process alive); `stop` clears them all, and a listing under way
// then finds its result dropped by whoever asked for it.

import { MIN_RELIST_INTERVAL_MS } from "./limits.ts";

/** Why a server is listed again. */
export type RelistCause = "list_changed" | "ttl_expired";

/** The timers a scheduler runs on; the real ones by default. */
export type RelistClock = {
  now(): number;
  setTimer(run: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
};

const realClock: RelistClock = {
  now: () => performance.now(),
  setTimer(run, ms) {
    const timer = setTimeout(run, ms);
    Deno.unrefTimer(timer as unknown as number);
    return timer;
  },
  clearTimer: (timer) => clearTimeout(timer as number),
};

/** Lists a server again; resolves to its new listing's `ttlMs`, when it has one. */
export type Relist = (server: string, cause: RelistCause) => Promise<number | undefined>;

type Entry = {
  /** When the last listing began. */
  last: number;
  timer: unknown;
  due: number;
  cause: RelistCause | undefined;
  running: boolean;
  /** What arrived while a listing ran: listed again after it. */
  again: RelistCause | undefined;
};

/** Schedules the re-listings of a harness's servers (see the module doc). */
export class RelistScheduler {
  readonly #relist: Relist;
  readonly #clock: RelistClock;
  readonly #entries = new Map<string, Entry>();
  #stopped = false;

  constructor(relist: Relist, clock: RelistClock = realClock) {
    this.#relist = relist;
    this.#clock = clock;
  }

  /** A listing of `server` began at `startedAt`; `ttlMs`, when given, says when it expires. */
  listed(server: string, startedAt: number, ttlMs?: number): void {
    const entry = this.#entry(server);
    entry.last = Math.max(entry.last, startedAt);
    if (ttlMs !== undefined) this.#schedule(server, "ttl_expired", startedAt + ttlMs);
  }

  /** The server said its tools changed. */
  changed(server: string): void {
    this.#schedule(server, "list_changed", this.#clock.now());
  }

  /** Clears every timer; nothing is listed again. */
  stop(): void {
    this.#stopped = true;
    for (const entry of this.#entries.values()) {
      if (entry.timer !== undefined) this.#clock.clearTimer(entry.timer);
      entry.timer = undefined;
    }
  }

  #entry(server: string): Entry {
    let entry = this.#entries.get(server);
    if (entry === undefined) {
      entry = {
        last: Number.NEGATIVE_INFINITY,
        timer: undefined,
        due: Number.POSITIVE_INFINITY,
        cause: undefined,
        running: false,
        again: undefined,
      };
      this.#entries.set(server, entry);
    }
    return entry;
  }

  #schedule(server: string, cause: RelistCause, wanted: number): void {
    if (this.#stopped) return;
    const entry = this.#entry(server);
    if (entry.running) {
      if (cause === "list_changed" || entry.again === undefined) entry.again = cause;
      return;
    }
    const at = Math.max(wanted, entry.last + MIN_RELIST_INTERVAL_MS);
    if (entry.timer !== undefined) {
      if (entry.due <= at) return;
      this.#clock.clearTimer(entry.timer);
    }
    entry.due = at;
    entry.cause = cause;
    entry.timer = this.#clock.setTimer(
      () => void this.#fire(server),
      Math.max(0, at - this.#clock.now()),
    );
  }

  async #fire(server: string): Promise<void> {
    const entry = this.#entry(server);
    const cause = entry.cause ?? "list_changed";
    entry.timer = undefined;
    entry.due = Number.POSITIVE_INFINITY;
    entry.cause = undefined;
    if (this.#stopped) return;
    entry.running = true;
    entry.last = this.#clock.now();
    let ttlMs: number | undefined;
    try {
      ttlMs = await this.#relist(server, cause);
    } catch {
      // A listing that failed keeps the listing there was; the next change tries again.
      ttlMs = undefined;
    } finally {
      entry.running = false;
    }
    const again = entry.again;
    entry.again = undefined;
    if (ttlMs !== undefined) this.#schedule(server, "ttl_expired", entry.last + ttlMs);
    if (again !== undefined) this.#schedule(server, again, this.#clock.now());
  }
}

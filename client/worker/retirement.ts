/**
 * The retirement of one server: the stopping strategy it is given, run on
 * one deadline, and the only evidence it accepts.
 *
 * Two strategies, one per kind of server control (`transport.ts`):
 *
 * - {@linkcode ProcessEscalation}, for a child process: close its stdin and
 *   wait (its documented shutdown request), SIGTERM its process group and
 *   wait, SIGKILL the group and wait, all within one deadline. Evidence is the
 *   real exit status seen by the transport, with the drain check of the group
 *   after it; a deadline passed without it is `retirement_timed_out`, never
 *   evidence. Once the exit has been seen no signal is sent (the transport
 *   refuses: pids are recycled).
 * - {@linkcode SessionRelease}, for a remote server: its session is ended
 *   within the deadline and the evidence says how, never claiming an exit.
 *
 * The machine starts a retirement on any death; this module decides only how
 * it runs. Who does what: the worker owns the pipes and this order; the
 * signals and the drain check go through the transport's process control,
 * which asks the main thread for them (a least-privilege worker cannot signal
 * a process group).
 *
 * @module
 */

import { err, ok, type Result } from "../../codec/result.ts";
import type { Clock } from "../transport/clock.ts";
import type {
  Escalation,
  ExitStatus,
  RetirementError,
  RetirementEvidence,
} from "../thread/evidence.ts";
import type { ProcessControl, ServerControl, SessionControl } from "../transport/transport.ts";

/** Share of a retirement's deadline spent waiting after closing stdin. */
export const STDIN_GRACE_SHARE = 0.4;
/** Share of a retirement's deadline spent waiting after SIGTERM (cumulative). */
export const SIGTERM_GRACE_SHARE = 0.8;

/** What a retirement answers: evidence, or why there is none. */
export type RetirementOutcome = Result<RetirementEvidence, RetirementError>;

/**
 * The real exit of one server process, once seen, and the waits on it: a
 * retirement's steps wait here, and so does the grace after the end of its
 * stdout.
 */
export class ExitWatch {
  #clock: Clock;
  #exit: ExitStatus | undefined;
  #waiters = new Set<() => void>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The real exit status, once seen. */
  get exit(): ExitStatus | undefined {
    return this.#exit;
  }

  /** Records the real exit and wakes every wait; false when it was already seen. */
  exited(status: ExitStatus): boolean {
    if (this.#exit !== undefined) return false;
    this.#exit = status;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
    return true;
  }

  /**
   * Calls `then` once, synchronously: when the exit is seen (with `true`) or
   * at `at` on the clock (with `false`), whichever is first.
   */
  whenExit(at: number, then: (exited: boolean) => void): void {
    if (this.#exit !== undefined) {
      then(true);
      return;
    }
    const wake = () => {
      this.#clock.clearTimer(timer);
      then(true);
    };
    const timer = this.#clock.setTimer(at - this.#clock.now(), () => {
      this.#waiters.delete(wake);
      then(false);
    });
    this.#waiters.add(wake);
  }

  /** Resolves once the exit has been seen, or at `at` on the clock, whichever is first. */
  waitExit(at: number): Promise<void> {
    return new Promise((resolve) => this.whenExit(at, () => resolve()));
  }
}

/** How a server is stopped: one run, within a deadline, to its evidence or why not. */
export interface Stopping {
  /** The last step taken so far. */
  readonly escalation: Escalation;
  /** Stops the server within `timeoutMs`. */
  stop(timeoutMs: number): Promise<RetirementOutcome>;
}

/** What a {@linkcode ProcessEscalation} acts on. */
export type EscalationOptions = {
  /** The server's name, used in every message. */
  name: string;
  /** The child's process control: its stdin, its group's signals, the drain check. */
  process: ProcessControl;
  /** Where the child's real exit is seen. */
  exit: ExitWatch;
  /** The clock its waits run on. */
  clock: Clock;
};

/**
 * Stops a child process: stdin, SIGTERM, SIGKILL on one deadline, then the
 * drain check of its group. A run may follow a failed one (the exit may
 * still come); the escalation never steps back.
 */
export class ProcessEscalation implements Stopping {
  #name: string;
  #process: ProcessControl;
  #exit: ExitWatch;
  #clock: Clock;
  #escalation: Escalation = "none";

  constructor(options: EscalationOptions) {
    this.#name = options.name;
    this.#process = options.process;
    this.#exit = options.exit;
    this.#clock = options.clock;
  }

  /** The last step taken. */
  get escalation(): Escalation {
    return this.#escalation;
  }

  /** Runs the escalation; evidence only on the real exit. */
  async stop(timeoutMs: number): Promise<RetirementOutcome> {
    const process = this.#process;
    const exit = this.#exit;
    const start = this.#clock.now();
    const deadlineAt = start + timeoutMs;
    if (exit.exit === undefined) {
      if (this.#escalation === "none") this.#escalation = "stdin_closed";
      process.closeStdin();
      await exit.waitExit(start + timeoutMs * STDIN_GRACE_SHARE);
    }
    if (exit.exit === undefined) {
      if (this.#escalation !== "sigkill") this.#escalation = "sigterm";
      process.signal("SIGTERM");
      await exit.waitExit(start + timeoutMs * SIGTERM_GRACE_SHARE);
    }
    if (exit.exit === undefined) {
      this.#escalation = "sigkill";
      process.signal("SIGKILL");
      await exit.waitExit(deadlineAt);
    }
    const status = exit.exit;
    if (status === undefined) {
      return err({
        kind: "retirement_timed_out",
        timeoutMs,
        escalation: this.#escalation,
        message: `Server "${this.#name}" (pid ${process.pid ?? "unknown"}) did not exit ` +
          `within ${timeoutMs} ms of its retirement, even after SIGKILL; do not start a ` +
          `replacement until it is gone`,
      });
    }
    const drained = await process.drain(Math.max(0, deadlineAt - this.#clock.now()));
    return ok({
      kind: "exited",
      pid: process.pid ?? -1,
      code: status.code,
      signal: status.signal,
      drained,
      escalation: this.#escalation,
    });
  }
}

/** Stops a remote server: its session is released; no process, no signal, no exit claimed. */
export class SessionRelease implements Stopping {
  #session: SessionControl;

  constructor(session: SessionControl) {
    this.#session = session;
  }

  /** A session is never escalated. */
  get escalation(): Escalation {
    return "none";
  }

  /** Ends the session; says what was done. */
  async stop(timeoutMs: number): Promise<RetirementOutcome> {
    return ok(await this.#session.release(timeoutMs));
  }
}

/** The strategy that stops a server under `control`: escalation for a process, release for a session. */
export function stoppingFor(
  control: ServerControl,
  options: { name: string; exit: ExitWatch; clock: Clock },
): Stopping {
  return control.kind === "process"
    ? new ProcessEscalation({ ...options, process: control.process })
    : new SessionRelease(control.session);
}

/** What a {@linkcode Retirement} is given. */
export type RetirementOptions = {
  /** The server's name, used in every message. */
  name: string;
  /** How the server is stopped. */
  stopping: Stopping;
  /** Releases what is left of the transport once the server is confirmed gone. */
  dispose: () => Promise<void>;
  /** The clock of its deadline. */
  clock: Clock;
};

/**
 * Runs one server's retirement with the strategy it is given; at most one
 * run at a time, and a failed one may be run again (the exit may still
 * come). Disposes of the transport once the server is confirmed gone.
 *
 * @example Retire an in-process peer that exits on EOF
 * ```ts
 * import { ChannelTransport } from "../transport/channel_transport.ts";
 * import { ExitWatch, Retirement, stoppingFor } from "./retirement.ts";
 * import { systemClock } from "../transport/clock.ts";
 * const transport = new ChannelTransport({ stdinClosed: (peer) => peer.exit(0) });
 * const exit = new ExitWatch(systemClock);
 * const retirement = new Retirement({
 *   name: "peer",
 *   stopping: stoppingFor(transport.control, { name: "peer", exit, clock: systemClock }),
 *   dispose: () => transport.dispose(),
 *   clock: systemClock,
 * });
 * await transport.open({ bytes() {}, end() {}, exit: (status) => exit.exited(status) });
 * const outcome = await retirement.retire(1_000);
 * console.log(outcome.ok && outcome.value.kind); // exited
 * ```
 */
export class Retirement {
  #name: string;
  #stopping: Stopping;
  #dispose: () => Promise<void>;
  #clock: Clock;
  #running: Promise<RetirementOutcome> | undefined;

  constructor(options: RetirementOptions) {
    this.#name = options.name;
    this.#stopping = options.stopping;
    this.#dispose = options.dispose;
    this.#clock = options.clock;
  }

  /** The last step taken. */
  get escalation(): Escalation {
    return this.#stopping.escalation;
  }

  /** Runs the strategy, or joins the run under way. */
  retire(timeoutMs: number): Promise<RetirementOutcome> {
    if (this.#running === undefined) {
      const running = this.#run(timeoutMs);
      this.#running = running;
      // A failed retirement may be tried again later: the exit may come yet.
      void running.then((outcome) => {
        if (!outcome.ok && this.#running === running) this.#running = undefined;
      });
    }
    return this.#running;
  }

  /**
   * Runs the strategy under a deadline of its own: a caller's `retire` is
   * answered by then even if a retirement started earlier runs longer.
   */
  retireWithin(timeoutMs: number): Promise<RetirementOutcome> {
    const running = this.retire(timeoutMs);
    return new Promise((resolve) => {
      const timer = this.#clock.setTimer(timeoutMs, () => {
        const escalation = this.#stopping.escalation;
        resolve(err({
          kind: "retirement_timed_out",
          timeoutMs,
          escalation,
          message: `Server "${this.#name}" was not confirmed gone within ${timeoutMs} ms ` +
            `(last step: ${escalation}); do not start a replacement until it is`,
        }));
      });
      void running.then((outcome) => {
        this.#clock.clearTimer(timer);
        resolve(outcome);
      });
    });
  }

  async #run(timeoutMs: number): Promise<RetirementOutcome> {
    const outcome = await this.#stopping.stop(timeoutMs);
    if (outcome.ok) await this.#dispose();
    return outcome;
  }
}

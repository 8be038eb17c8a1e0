/**
 * The retirement of one server: the escalation from a polite request to a
 * forced kill, on one deadline, and the only evidence it accepts.
 *
 * Order: close the child's stdin and wait (its documented shutdown request),
 * SIGTERM its process group and wait, SIGKILL the group and wait, all within
 * one deadline. Evidence is the real exit status seen by the transport, with
 * the drain check of the group after it; a deadline passed without it is
 * `retirement_timed_out`, never evidence. Once the exit has been seen no
 * signal is sent (the transport refuses: pids are recycled). The machine
 * starts a retirement on any death; this module decides only how it runs.
 *
 * A transport with no process (a remote server) has `release` instead: its
 * session is ended within the deadline and the evidence says how, never
 * claiming an exit.
 *
 * Who does what: the worker owns the pipes and this order; the signals and
 * the drain check go through the transport, which asks the main thread for
 * them (a least-privilege worker cannot signal a process group).
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import type { Clock } from "./clock.ts";
import type { Escalation, RetirementError, RetirementEvidence } from "../thread/evidence.ts";
import type { ExitStatus, Transport } from "./transport.ts";

/** Share of a retirement's deadline spent waiting after closing stdin. */
export const STDIN_GRACE_SHARE = 0.4;
/** Share of a retirement's deadline spent waiting after SIGTERM (cumulative). */
export const SIGTERM_GRACE_SHARE = 0.8;

/** What a {@linkcode Retirement} acts on. */
export type RetirementOptions = {
  /** The server's name, used in every message. */
  name: string;
  /** The transport whose child is retired. */
  transport: Transport;
  /** The clock its waits run on. */
  clock: Clock;
  /** The server's pid once known, read when the evidence is made. */
  pid: () => number | null;
};

/**
 * Watches for one server's exit and runs its retirement; at most one
 * escalation runs at a time, and a failed one may be run again (the exit may
 * still come).
 *
 * @example Retire an in-process peer that exits on EOF
 * ```ts
 * import { ChannelTransport } from "./channel_transport.ts";
 * import { Retirement } from "./retirement.ts";
 * import { systemClock } from "./clock.ts";
 * const transport = new ChannelTransport({ stdinClosed: (peer) => peer.exit(0) });
 * const retirement = new Retirement({
 *   name: "peer",
 *   transport,
 *   clock: systemClock,
 *   pid: () => 1234,
 * });
 * await transport.open({
 *   bytes() {},
 *   end() {},
 *   exit: (status) => retirement.exited(status),
 * });
 * const outcome = await retirement.retire(1_000);
 * console.log(outcome.ok && outcome.value.escalation); // stdin_closed
 * ```
 */
export class Retirement {
  #name: string;
  #transport: Transport;
  #clock: Clock;
  #pid: () => number | null;
  #exit: ExitStatus | undefined;
  #exitWaiters = new Set<() => void>();
  #escalation: Escalation = "none";
  #running: Promise<Result<RetirementEvidence, RetirementError>> | undefined;

  constructor(options: RetirementOptions) {
    this.#name = options.name;
    this.#transport = options.transport;
    this.#clock = options.clock;
    this.#pid = options.pid;
  }

  /** The real exit status, once seen. */
  get exit(): ExitStatus | undefined {
    return this.#exit;
  }

  /** The last step taken. */
  get escalation(): Escalation {
    return this.#escalation;
  }

  /** Records the real exit and wakes every wait; false when it was already seen. */
  exited(status: ExitStatus): boolean {
    if (this.#exit !== undefined) return false;
    this.#exit = status;
    const waiters = [...this.#exitWaiters];
    this.#exitWaiters.clear();
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
      this.#exitWaiters.delete(wake);
      then(false);
    });
    this.#exitWaiters.add(wake);
  }

  /** Resolves once the exit has been seen, or at `at` on the clock, whichever is first. */
  waitExit(at: number): Promise<void> {
    return new Promise((resolve) => this.whenExit(at, () => resolve()));
  }

  /** Runs the escalation, or joins the one running. */
  retire(timeoutMs: number): Promise<Result<RetirementEvidence, RetirementError>> {
    if (this.#running === undefined) {
      const running = this.#escalate(timeoutMs);
      this.#running = running;
      // A failed retirement may be tried again later: the exit may come yet.
      void running.then((outcome) => {
        if (!outcome.ok && this.#running === running) this.#running = undefined;
      });
    }
    return this.#running;
  }

  /**
   * Runs the escalation under a deadline of its own: a caller's `retire`
   * is answered by then even if a retirement started earlier runs longer.
   */
  retireWithin(timeoutMs: number): Promise<Result<RetirementEvidence, RetirementError>> {
    const running = this.retire(timeoutMs);
    return new Promise((resolve) => {
      const timer = this.#clock.setTimer(timeoutMs, () => {
        resolve(err({
          kind: "retirement_timed_out",
          timeoutMs,
          escalation: this.#escalation,
          message: `Server "${this.#name}" was not confirmed gone within ${timeoutMs} ms ` +
            `(last step: ${this.#escalation}); do not start a replacement until it is`,
        }));
      });
      void running.then((outcome) => {
        this.#clock.clearTimer(timer);
        resolve(outcome);
      });
    });
  }

  async #escalate(timeoutMs: number): Promise<Result<RetirementEvidence, RetirementError>> {
    const release = this.#transport.release;
    if (release !== undefined) {
      // A remote server: no process, no signal; its session is ended instead.
      const evidence = await release.call(this.#transport, timeoutMs);
      await this.#transport.dispose();
      return ok(evidence);
    }
    const start = this.#clock.now();
    const deadlineAt = start + timeoutMs;
    if (this.#exit === undefined) {
      if (this.#escalation === "none") this.#escalation = "stdin_closed";
      this.#transport.closeStdin();
      await this.waitExit(start + timeoutMs * STDIN_GRACE_SHARE);
    }
    if (this.#exit === undefined) {
      if (this.#escalation !== "sigkill") this.#escalation = "sigterm";
      this.#transport.signal("SIGTERM");
      await this.waitExit(start + timeoutMs * SIGTERM_GRACE_SHARE);
    }
    if (this.#exit === undefined) {
      this.#escalation = "sigkill";
      this.#transport.signal("SIGKILL");
      await this.waitExit(deadlineAt);
    }
    const status = this.#exit;
    if (status === undefined) {
      return err({
        kind: "retirement_timed_out",
        timeoutMs,
        escalation: this.#escalation,
        message: `Server "${this.#name}" (pid ${this.#pid() ?? "unknown"}) did not exit within ` +
          `${timeoutMs} ms of its retirement, even after SIGKILL; do not start a replacement ` +
          `until it is gone`,
      });
    }
    const drained = await this.#transport.drain(Math.max(0, deadlineAt - this.#clock.now()));
    await this.#transport.dispose();
    return ok({
      kind: "exited",
      pid: this.#pid() ?? -1,
      code: status.code,
      signal: status.signal,
      drained,
      escalation: this.#escalation,
    });
  }
}

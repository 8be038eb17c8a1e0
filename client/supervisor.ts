/**
 * Supervised restart, and the record of every generation of a client. A
 * generation is one start of the server: its pid, how its start went, how it
 * died, the evidence of its end, and what followed. A client whose spec asks
 * for it (`restart: { max, backoffMs }`) is started again when a ready
 * generation dies, by one rule: **uncertainty cannot authorize a
 * replacement**. The dead generation is retired first, and a replacement
 * starts only on the evidence of that retirement: the exit witnessed and the
 * process group drained (`drained: true`), a remote session ended, or nothing
 * spawned ({@linkcode replacementRefusal}). With `retirement_timed_out`,
 * `retirement_unconfirmed` (a worker lost), `drained: false` or
 * `drained: "unknown"` (where `/proc` cannot be read: every system but
 * Linux) none starts, and the record and the client's calls say why.
 *
 * Attempts back off exponentially from `backoffMs`, at most
 * `RESTART_BACKOFF_CAP_MS`; a start that fails counts, and its cleanup must
 * bring the same evidence before the next; after `max` attempts in a row the
 * client stays dead. A generation that was ready for `RESTART_STABLE_MS`
 * starts a new count. While the client is down every call fails at once as
 * `unavailable`, saying when the next attempt is.
 *
 * Who does what: the client (`client.ts`) reports each death and carries
 * out what this asks (retire the dead generation's worker, start a new
 * one); this decides, keeps the timer of the next attempt, and tells the
 * client's listeners. `stop` (the client retired) cancels whatever was next:
 * a harness that retires its census leaves no timer behind.
 *
 * @module
 */

import type { Result } from "../codec/result.ts";
import {
  type ResolvedRestartPolicy,
  RESTART_STABLE_MS,
  restartDelay,
} from "../settings/restart.ts";
import type { RetirementError, RetirementEvidence } from "./thread/evidence.ts";
import type { ClientError, StartError } from "./thread/outcomes.ts";
import type { ServerInfo } from "./thread/server_info.ts";

/** How a generation's retirement ended: its evidence, or why there is none. */
export type GenerationEnd = Result<RetirementEvidence, RetirementError>;

/** A restart to come: the how-many-th attempt in a row, of how many, and in how long. */
export type RestartPlan = { kind: "restart"; attempt: number; max: number; inMs: number };

/**
 * Why no replacement starts: `not_drained` (a member of the group survived),
 * `drain_unknown` (the drain could not be checked), `unconfirmed` (no
 * evidence of the exit: the retirement timed out or the worker was lost),
 * `attempts_exhausted` (`max` attempts in a row failed), `retired` (the
 * client was retired meanwhile).
 */
export const RESTART_REFUSALS = [
  "not_drained",
  "drain_unknown",
  "unconfirmed",
  "attempts_exhausted",
  "retired",
] as const;

/** Why no replacement starts, with a sentence a person can act on. */
export type RestartRefusal = {
  kind: "no_restart";
  reason: (typeof RESTART_REFUSALS)[number];
  message: string;
};

/** One start of a server, and its end. */
export type GenerationRecord = {
  /** 1 for the first start, then one more for each restart. */
  generation: number;
  /** The server's pid, once spawned (none for a remote server). */
  pid: number | null;
  /** How the start went; `null` while it runs. */
  start: Result<ServerInfo, StartError> | null;
  /** Why it ended after it was ready; `null` while it lives. */
  death: ClientError | null;
  /** The evidence of its end (or why there is none); `null` until retired. */
  end: GenerationEnd | null;
  /** What followed its death or failed start: a restart, or why none. */
  next: RestartPlan | RestartRefusal | null;
};

/** What a client's listeners hear of its generations. */
export type GenerationEvent =
  | {
    kind: "died";
    server: string;
    generation: number;
    pid: number | null;
    death: ClientError;
    end: GenerationEnd;
    next: RestartPlan | RestartRefusal;
  }
  | { kind: "restarted"; server: string; generation: number; pid: number | null; info: ServerInfo }
  | {
    kind: "restart_failed";
    server: string;
    generation: number;
    error: StartError;
    next: RestartPlan | RestartRefusal;
  };

/**
 * Why the evidence of a generation's end does not authorize a replacement,
 * or `undefined` when it does (the one statement of the rule).
 *
 * @example A SIGKILLed server whose group drained may be replaced
 * ```ts
 * import { replacementRefusal } from "@loom/mcp/client";
 * const evidence = {
 *   kind: "exited" as const, pid: 7, code: 137, signal: "SIGKILL",
 *   drained: true, escalation: "none" as const,
 * };
 * console.log(replacementRefusal({ ok: true, value: evidence })); // undefined
 * ```
 */
export function replacementRefusal(end: GenerationEnd): RestartRefusal | undefined {
  if (!end.ok) {
    return refusal(
      "unconfirmed",
      `its exit could not be confirmed (${end.error.kind}: ${end.error.message})`,
    );
  }
  const evidence = end.value;
  if (evidence.kind !== "exited" || evidence.drained === true) return undefined;
  return evidence.drained === false
    ? refusal("not_drained", `a process of its group (pid ${evidence.pid}) outlived its drain`)
    : refusal(
      "drain_unknown",
      `whether its process group (pid ${evidence.pid}) drained cannot be checked here`,
    );
}

function refusal(reason: RestartRefusal["reason"], message: string): RestartRefusal {
  return { kind: "no_restart", reason, message };
}

/** The record of every generation of one client. */
export class Generations {
  readonly #records: GenerationRecord[] = [];

  /** Every generation so far, the first first. */
  get records(): readonly GenerationRecord[] {
    return this.#records;
  }

  /** The generation now, or the last one. */
  get current(): GenerationRecord | undefined {
    return this.#records[this.#records.length - 1];
  }

  /** A new generation begins to start. */
  begin(): void {
    this.#records.push({
      generation: this.#records.length + 1,
      pid: null,
      start: null,
      death: null,
      end: null,
      next: null,
    });
  }

  /** Changes the current generation. */
  update(change: Partial<Omit<GenerationRecord, "generation">>): void {
    const current = this.current;
    if (current !== undefined) Object.assign(current, change);
  }
}

/** What a supervisor asks of its client. */
export type SupervisorPort = {
  /** Retires the dead generation, keeping the client dead, with the evidence or why none. */
  retireDead(): Promise<GenerationEnd>;
  /** Starts a new generation; only called on evidence that authorizes it. */
  renew(end: GenerationEnd): Promise<Result<ServerInfo, StartError>>;
  /** The record of the client's generations. */
  generations: Generations;
  /** Tells the client's listeners. */
  told(event: GenerationEvent): void;
};

/** Timers and time, injectable for tests. */
export type SupervisorClock = {
  now(): number;
  setTimer(ms: number, fire: () => void): unknown;
  clearTimer(handle: unknown): void;
};

const SYSTEM_CLOCK: SupervisorClock = {
  now: () => performance.now(),
  setTimer: (ms, fire) => setTimeout(fire, ms),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Restarts one client on evidence (see the module doc). */
export class Supervisor {
  #name: string;
  #policy: ResolvedRestartPolicy;
  #port: SupervisorPort;
  #clock: SupervisorClock;
  #attempts = 0;
  #readyAt = 0;
  #timer: unknown;
  #at: number | undefined;
  #starting = false;
  #stopped = false;
  #death: ClientError | undefined;
  #refused: RestartRefusal | undefined;

  /** Supervises the client `name` by `policy`, asking `port` what only the client can do. */
  constructor(
    name: string,
    policy: ResolvedRestartPolicy,
    port: SupervisorPort,
    clock: SupervisorClock = SYSTEM_CLOCK,
  ) {
    this.#name = name;
    this.#policy = policy;
    this.#port = port;
    this.#clock = clock;
  }

  /** A generation became ready. */
  ready(): void {
    this.#readyAt = this.#clock.now();
    this.#death = undefined;
    this.#refused = undefined;
  }

  /** A ready generation died: it is retired, and replaced on evidence. */
  async died(death: ClientError): Promise<void> {
    if (this.#stopped) return;
    this.#death = death;
    if (this.#clock.now() - this.#readyAt >= RESTART_STABLE_MS) this.#attempts = 0;
    const generations = this.#port.generations;
    const record = generations.current;
    generations.update({ death });
    const end = await this.#port.retireDead();
    generations.update({ end });
    const next = this.#stopped
      ? refusal("retired", "the client was retired")
      : replacementRefusal(end) ?? this.#schedule();
    if (next.kind === "no_restart") this.#refused = next;
    generations.update({ next });
    this.#port.told({
      kind: "died",
      server: this.#name,
      generation: record?.generation ?? 0,
      pid: record?.pid ?? null,
      death,
      end,
      next,
    });
  }

  /** The client was retired: nothing more is started. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
    this.#at = undefined;
  }

  /**
   * What a call is answered while the client is down: its death, and when
   * the next attempt is (or that one runs, or why none comes).
   */
  unavailable(base: ClientError): ClientError {
    const death = this.#death;
    if (death === undefined || death.kind !== "unavailable" || base.kind !== "unavailable") {
      return base;
    }
    const max = this.#policy.max;
    let what: string;
    let plan: RestartPlan | undefined;
    if (this.#at !== undefined) {
      const inMs = Math.max(0, Math.ceil(this.#at - this.#clock.now()));
      plan = { kind: "restart", attempt: this.#attempts, max, inMs };
      what = `the next attempt to start it is in ${inMs} ms (attempt ${this.#attempts} of ${max})`;
    } else if (this.#starting) {
      what = `it is being started again (attempt ${this.#attempts} of ${max}); call again soon`;
    } else if (this.#refused !== undefined) {
      what = `it is not restarted: ${this.#refused.message}`;
    } else {
      what = "it is being retired before it is started again";
    }
    const error: ClientError = {
      ...death,
      message: `${death.message}; ${what}`,
      stderrTail: base.stderrTail,
    };
    if (plan === undefined || error.kind !== "unavailable") return error;
    return { ...error, restart: { attempt: plan.attempt, max: plan.max, inMs: plan.inMs } };
  }

  /** The next attempt, or why there is none. */
  #schedule(): RestartPlan | RestartRefusal {
    const max = this.#policy.max;
    if (this.#attempts >= max) {
      return refusal("attempts_exhausted", `${max} attempts in a row to start it again failed`);
    }
    this.#attempts++;
    const inMs = restartDelay(this.#policy, this.#attempts);
    this.#at = this.#clock.now() + inMs;
    this.#timer = this.#clock.setTimer(inMs, () => void this.#attempt());
    return { kind: "restart", attempt: this.#attempts, max, inMs };
  }

  async #attempt(): Promise<void> {
    this.#timer = undefined;
    this.#at = undefined;
    const generations = this.#port.generations;
    const end = generations.current?.end;
    if (this.#stopped || end === null || end === undefined) return;
    this.#starting = true;
    const started = await this.#port.renew(end);
    this.#starting = false;
    const record = generations.current;
    if (started.ok) {
      if (this.#stopped) return;
      this.#port.told({
        kind: "restarted",
        server: this.#name,
        generation: record?.generation ?? 0,
        pid: record?.pid ?? null,
        info: started.value,
      });
      return;
    }
    // A failed start counts, and its cleanup must bring the same evidence.
    const error = started.error;
    const cleanup: GenerationEnd = error.kind === "cleanup_unconfirmed"
      ? { ok: false, error: error.retirement }
      : { ok: true, value: error.cleanup ?? { kind: "no_resource" } };
    generations.update({ end: cleanup });
    const next = this.#stopped
      ? refusal("retired", "the client was retired")
      : replacementRefusal(cleanup) ?? this.#schedule();
    if (next.kind === "no_restart") this.#refused = next;
    generations.update({ next });
    this.#port.told({
      kind: "restart_failed",
      server: this.#name,
      generation: record?.generation ?? 0,
      error,
      next,
    });
  }
}

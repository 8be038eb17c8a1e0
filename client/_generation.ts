// Private to client/: one generation of a client, one start of its server:
// the worker it runs in, the link to it, the tickets of its calls, the
// custody of its process, and what its machine last reported. The `Client`
// (`client.ts`) is the handle that stays; a supervised client makes a new
// generation for each restart (`supervisor.ts`), only once the last one's
// end is in evidence.
//
// Who closes what: the worker retires the process, within the deadline it is
// given; this terminates the worker only after the retirement is confirmed
// (or the worker is lost), and declares a worker that does not answer in time
// lost. Every call has a main-thread timer at its deadline (`_tickets.ts`).

import { compactJson, isJsonObject, type JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ClientError, StartError } from "./thread/outcomes.ts";
import {
  type FoundProcess,
  noResource,
  type RetirementError,
  type RetirementEvidence,
} from "./thread/evidence.ts";
import { decodeServerInfo, type ServerInfo } from "./thread/server_info.ts";
import { type EraCodec, eraCodec, LEGACY_ERA } from "./thread/era.ts";
import {
  cannotConnect,
  type ClientState,
  parkedReport,
  retiredAtOnce,
  type StateReport,
  unavailableOf,
} from "./thread/state.ts";
import type { FromWorker, WorkerAsk } from "./thread/from_worker.ts";
import {
  encodeAskReply,
  encodeMalformed,
  encodeRetire,
  type RequestMethod,
  type ToWorker,
} from "./thread/to_worker.ts";
import { WorkerLink } from "./thread/link.ts";
import { callDeadlineMs, DEFAULT_CONNECT_TIMEOUT_MS, WORKER_GRACE_MS } from "../settings/mod.ts";
import { Custody } from "./custody/custody.ts";
import { type Decode, Tickets } from "./_tickets.ts";
import type { Follow } from "./_progress.ts";
import { createWorker, grantOf, noWorker, startMessage } from "./_worker_launch.ts";
import { AskedRequests, serveAsk } from "./_asks.ts";
import { type McpSession, tracing } from "../telemetry/mcp.ts";
import { endOf, peerOf, tracedStart } from "./_telemetry.ts";
import type { GenerationHost } from "./_generation_host.ts";

export type { GenerationHost } from "./_generation_host.ts";

/** One start of a server, in its own worker. */
export class Generation {
  #host: GenerationHost;
  #name: string;
  /** What the worker's machine last reported; with no worker to ask, what is known without one. */
  #report: StateReport = parkedReport();
  #link: WorkerLink | undefined;
  #tickets: Tickets;
  #custody = new Custody();
  #info: ServerInfo | undefined;
  #era: EraCodec = LEGACY_ERA;
  #connecting: Promise<Result<ServerInfo, StartError>> | undefined;
  #startSettle: ((outcome: Result<ServerInfo, StartError>) => void) | undefined;
  #startTimer: ReturnType<typeof setTimeout> | undefined;
  #retireWaiters = new Set<(outcome: Result<RetirementEvidence, RetirementError>) => void>();
  /** The server's requests being answered, each under a signal its withdrawal aborts. */
  #asked = new AskedRequests(() => this.#tickets.hold());
  #gone = new AbortController();
  // Retired for its replacement: the handle stays dead meanwhile.
  #superseded = false;
  // From ready to its end, while tracing: `mcp.client.session.duration`.
  #session: McpSession | undefined;

  constructor(host: GenerationHost) {
    this.#host = host;
    this.#name = host.spec.name;
    this.#tickets = new Tickets(this.#name, {
      batch: (text) => this.#link?.batch(text),
      message: (message, transfer) => this.#link?.post(message, transfer),
    }, () => peerOf(this.#host.spec, this.#info));
  }

  /** Where the generation is in its life: what its worker last reported. */
  get state(): ClientState {
    return this.#report.state;
  }

  /** What its machine last reported. */
  get report(): StateReport {
    return this.#report;
  }

  /** The server's handshake, once ready. */
  get info(): ServerInfo | undefined {
    return this.#info;
  }

  /** The era the server speaks, chosen once from its info; the legacy era until it is ready. */
  get era(): EraCodec {
    return this.#era;
  }

  /**
   * Aborted once the generation answers nothing more: it ended, or its
   * server or worker died. What waits between its requests (the input a
   * 2026-07-28 call asks for) stops waiting then.
   */
  get gone(): AbortSignal {
    return this.#gone.signal;
  }

  /** The server's pid once spawned. */
  get pid(): number | undefined {
    return this.#custody.pid;
  }

  /** Starts the worker, spawns the server and runs the handshake; once. */
  connect(): Promise<Result<ServerInfo, StartError>> {
    if (this.#connecting !== undefined) return this.#connecting;
    if (this.state !== "parked") {
      return Promise.resolve(err(cannotConnect(this.#name, this.state, this.#host.tail.text())));
    }
    this.#connecting = tracing()
      ? tracedStart(this.#host.spec, {
        start: (traceContext) => this.#connect(traceContext),
        opened: (session) => this.#session = session,
      })
      : this.#connect();
    return this.#connecting;
  }

  #connect(traceContext?: Record<string, string>): Promise<Result<ServerInfo, StartError>> {
    const { spec, retirementTimeoutMs } = this.#host;
    const connectTimeoutMs = spec.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#custody.hold();
    this.#host.history.begin();
    let worker: Worker;
    try {
      worker = createWorker(this.#name, this.#host.permissions, grantOf(spec));
    } catch (error) {
      this.#custody.release();
      // No worker to report: the client failed, nothing was spawned.
      const failed = noWorker(this.#name, error);
      this.#report = failed.report;
      const failure = err<StartError>(failed.error);
      this.#host.history.update({ start: failure, end: ok(noResource()) });
      return Promise.resolve(failure);
    }
    const link = new WorkerLink(worker, this.#name, {
      event: (event) => this.#onEvent(event),
      lost: (message) => this.#lost(message),
    });
    this.#link = link;
    // What the start makes of the machine, before it says so.
    this.#report = { ...this.#report, state: "connecting" };
    const signIn = this.#host.signIn;
    const start = startMessage(spec, connectTimeoutMs, retirementTimeoutMs, link.rings, {
      signIn: signIn !== undefined,
      served: this.#host.served,
      ...(this.#host.logLevel === undefined ? {} : { logLevel: this.#host.logLevel }),
      ...(traceContext === undefined ? {} : { traceContext }),
    });
    // Last, so that no pair of the spec's can take it away: its descendants are known by it.
    if (start.remote === null) {
      const [name, value] = this.#custody.marker;
      start.env[name] = value;
    }
    this.#post(start);
    signIn?.watch((message) => this.#post(message));
    return new Promise((resolve) => {
      this.#startSettle = resolve;
      const backstop = connectTimeoutMs + retirementTimeoutMs + WORKER_GRACE_MS;
      this.#startTimer = setTimeout(() => {
        link.lose(`The worker of "${this.#name}" did not finish starting within ${backstop} ms`);
      }, backstop);
    });
  }

  /** Sends one request, or refuses it at once when the generation is not ready. */
  request<T = JsonValue>(
    method: RequestMethod,
    paramsText: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    decode?: Decode<T>,
    follow?: Follow,
  ): Promise<Result<T, ClientError>> {
    if (this.state !== "ready" || this.#link === undefined || this.#link.closed) {
      return Promise.resolve(err(this.#unavailable()));
    }
    return this.#tickets.request(method, paramsText, timeoutMs, signal, decode, follow);
  }

  /**
   * Opens a 2026-07-28 `subscriptions/listen` (`Tickets.listen`), or
   * refuses it at once when the generation is not ready.
   */
  listen(
    paramsText: string,
    signal: AbortSignal,
    acknowledged: (honored: boolean, ticket: number) => void,
  ): Promise<Result<JsonValue, ClientError>> {
    if (this.state !== "ready" || this.#link === undefined || this.#link.closed) {
      return Promise.resolve(err(this.#unavailable()));
    }
    return this.#tickets.listen(paramsText, signal, acknowledged);
  }

  /** Why a call is refused now: the latched death, or that the client is not ready. */
  #unavailable(): ClientError {
    return this.#host.unavailable(unavailableOf(this.#report, this.#name, this.#host.tail.text()));
  }

  /**
   * Retires the server within `timeoutMs`: evidence only on its real exit,
   * or `no_resource` for a generation that never spawned.
   */
  retire(timeoutMs: number): Promise<Result<RetirementEvidence, RetirementError>> {
    this.#superseded = false;
    // Nothing to stop: the evidence is known, or nothing was ever started.
    const atOnce = retiredAtOnce(this.#report, this.#name);
    if (atOnce !== undefined) {
      this.#report = atOnce;
      this.end();
      return Promise.resolve(ok(atOnce.evidence));
    }
    const link = this.#link;
    if (link === undefined || link.closed) {
      this.#report = { ...this.#report, state: "retiring" };
      return Promise.resolve(err(this.#unconfirmed()));
    }
    return this.#retireWorker(link, timeoutMs);
  }

  /** Retires a dead generation for its replacement; the handle stays dead meanwhile. */
  retireDead(): Promise<Result<RetirementEvidence, RetirementError>> {
    this.#superseded = true;
    const evidence = this.#report.evidence;
    if (evidence !== null) {
      this.end();
      return Promise.resolve(ok(evidence));
    }
    const link = this.#link;
    if (link === undefined || link.closed) return Promise.resolve(err(this.#unconfirmed()));
    return this.#retireWorker(link, this.#host.retirementTimeoutMs);
  }

  /** Asks the worker to retire its server, and waits for the outcome (or loses the worker). */
  #retireWorker(
    link: WorkerLink,
    timeoutMs: number,
  ): Promise<Result<RetirementEvidence, RetirementError>> {
    // The tree as it stands while the server still lives: once it exits, its
    // descendants are reparented and only this record finds them.
    this.#custody.snapshot();
    this.#post(encodeRetire(timeoutMs));
    // The worker answers within the deadline; one that does not is lost.
    const backstop = timeoutMs + WORKER_GRACE_MS;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        link.lose(
          `The worker of "${this.#name}" did not answer its retirement within ${backstop} ms`,
        );
      }, backstop);
      this.#retireWaiters.add((outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });
  }

  /**
   * The generation is done with: its worker ends, nothing of its process is
   * guarded, and a retirement still waiting on the worker (asked while the
   * start was failing, then answered at once by a later one) settles now,
   * with the evidence when it is known, its backstop timer cleared.
   */
  end(): void {
    this.#asked.end();
    this.#gone.abort();
    if (this.#retireWaiters.size > 0) {
      const evidence = this.#report.evidence;
      const outcome = evidence !== null ? ok(evidence) : err(this.#unconfirmed());
      for (const settle of [...this.#retireWaiters]) settle(outcome);
      this.#retireWaiters.clear();
    }
    this.#session?.end();
    this.#host.signIn?.stop();
    this.#link?.end();
    this.#custody.end();
  }

  // ---- events ----

  #post(message: ToWorker): void {
    this.#tickets.flush();
    this.#link?.post(message);
  }

  #onEvent(event: FromWorker): void {
    switch (event.kind) {
      case "answers": {
        const fault = this.#tickets.answers(event.tickets, event.ids, event.lines);
        if (fault === undefined) return;
        // The worker that sent them is lost; a line that is not its response
        // is told to the worker, whose machine dies of it and says so.
        if (fault.cause === "worker") this.#link?.lose(fault.message);
        else this.#post(encodeMalformed(fault.message, fault.cause));
        return;
      }
      case "settled":
        this.#tickets.settled(event.ticket, event.outcome);
        return;
      case "state": {
        const was = this.#report.state;
        const state = this.#superseded && (event.state === "retiring" || event.state === "retired")
          ? "dead"
          : event.state;
        this.#report = { state, death: event.death, evidence: event.evidence };
        // What the worker's death did not settle (answers handed on, not yet
        // read here) settles with it.
        if (event.death !== null) {
          this.#tickets.settleAll(this.#unavailable());
          this.#asked.withdrawAll();
          this.#gone.abort();
        }
        if (was === "ready" && state === "dead" && event.death !== null) {
          this.#session?.end(endOf(err(event.death)).errorType);
          this.#host.died(event.death);
        }
        return;
      }
      case "progress":
        this.#tickets.progress(event.ticket, event.progress);
        return;
      case "stderr":
        this.#host.tail.append(event.bytes);
        return;
      case "spawned":
        this.#custody.spawned(event.pid);
        this.#host.history.update({ pid: event.pid });
        return;
      case "exited":
        this.#custody.exited(event.pid);
        return;
      case "ask":
        this.#serve(event);
        return;
      case "withdrawn":
        this.#asked.withdraw(event.ticket);
        return;
      case "started":
        this.#started(event.outcome);
        return;
      case "tools_changed":
        return this.#host.toolsChanged();
      case "notice":
        if (event.notice.kind === "acknowledged") {
          return this.#tickets.acknowledged(event.notice.ticket, event.notice.honored);
        }
        return this.#host.notice(event.notice);
      case "retired": {
        const outcome = withFound(event.outcome, this.#custody.found);
        if (this.#host.history.current?.end === null) {
          this.#host.history.update({ end: outcome });
        }
        for (const settle of [...this.#retireWaiters]) settle(outcome);
        this.#retireWaiters.clear();
        // The start is answered before the retirement: nothing is left to ask.
        if (outcome.ok) this.end();
        return;
      }
    }
  }

  /** Does for the worker what it cannot (`_asks.ts`), and answers its ticket. */
  #serve(ask: WorkerAsk): void {
    serveAsk(ask, {
      answerers: { custody: this.#custody, signIn: this.#host.signIn, answers: this.#host.answers },
      asked: this.#asked,
      watch: (done) => this.#tickets.watch(done),
      reply: (answer) => this.#post(encodeAskReply(ask.ticket, answer)),
    });
  }

  #started(outcome: Result<JsonValue, StartError>): void {
    const settle = this.#startSettle;
    if (settle === undefined) return;
    this.#startSettle = undefined;
    clearTimeout(this.#startTimer);
    this.#custody.release();
    if (!outcome.ok) {
      const error = outcome.error;
      this.#host.history.update({
        start: outcome,
        end: error.kind === "cleanup_unconfirmed"
          ? err(error.retirement)
          : ok(error.cleanup ?? noResource()),
      });
      // Nothing is left for the worker to do once the cleanup is confirmed,
      // unless a retirement asked meanwhile is still to be answered.
      if (this.#report.evidence !== null && this.#retireWaiters.size === 0) this.end();
      settle(outcome);
      return;
    }
    const info = decodeServerInfo(outcome.value);
    if (info === undefined) {
      this.#link?.lose(`The worker of "${this.#name}" sent a malformed server info`);
      return;
    }
    this.#info = info;
    this.#era = eraCodec(info.era);
    this.#host.history.update({ start: ok(info) });
    this.#host.ready();
    this.tellLevel();
    settle(ok(info));
  }

  /**
   * Tells a legacy server that declared logging the level asked, ahead of any request its
   * caller makes next (at the start, and on a new session for one it forgot); unawaited.
   */
  tellLevel(): void {
    const level = this.#host.logLevel;
    const method = this.#era.setLevelMethod;
    if (level === undefined || method === undefined) return;
    if (!isJsonObject(this.#info?.capabilities.logging)) return;
    void this.request(method, compactJson({ level }), callDeadlineMs(this.#host.spec), undefined);
  }

  // ---- a lost worker ----

  #unconfirmed(): RetirementError {
    return {
      kind: "retirement_unconfirmed",
      message: `The worker of "${this.#name}" was lost before the exit of its server was seen; ` +
        `its process group was killed, but its exit is unconfirmed`,
    };
  }

  /**
   * The worker crashed, broke protocol or hung: it can report nothing more,
   * so its loss is the generation's last report, and everything waiting
   * settles now.
   */
  #lost(message: string): void {
    const cleanupConfirmed = this.#custody.abandon();
    const report = this.#report;
    const state = report.state === "connecting"
      ? "failed"
      : report.state === "ready"
      ? "dead"
      : report.state;
    // A death the worker reported stays why calls are refused.
    const death = report.death ?? {
      kind: "unavailable" as const,
      cause: "worker_lost" as const,
      message,
      stderrTail: "",
    };
    this.#report = { state, death, evidence: report.evidence };
    this.#tickets.settleAll(this.#unavailable());
    this.#gone.abort();
    if (report.state === "ready") {
      this.#session?.end(endOf(err(death)).errorType);
      this.#host.died(death);
    }
    const start = this.#startSettle;
    const tail = this.#host.tail.text();
    if (start !== undefined) {
      this.#startSettle = undefined;
      clearTimeout(this.#startTimer);
      const failure = { kind: "transport_failed" as const, message, stderrTail: tail };
      start(
        cleanupConfirmed ? err(failure) : err({
          kind: "cleanup_unconfirmed",
          message: `${message}; its server could not be confirmed gone`,
          cause: failure,
          retirement: this.#unconfirmed(),
          stderrTail: tail,
        }),
      );
    }
    for (const settle of [...this.#retireWaiters]) settle(err(this.#unconfirmed()));
    this.#retireWaiters.clear();
    this.#custody.release();
    this.#host.signIn?.stop();
  }
}

/** The evidence of an exit, with the processes custody killed itself when there were any. */
function withFound(
  outcome: Result<RetirementEvidence, RetirementError>,
  found: readonly FoundProcess[],
): Result<RetirementEvidence, RetirementError> {
  if (!outcome.ok || outcome.value.kind !== "exited" || found.length === 0) return outcome;
  return ok({ ...outcome.value, found });
}

/**
 * The host of a client's worker: what the worker's entry wires `self` to.
 * It owns the worker's end of the link (`client/thread/link.ts`), the client's state
 * machine once started (`machine.ts`), and the transports of its server's
 * launches; it reads what the main thread sends, in order, and answers it.
 * A test drives it without a Worker: it is given the function that posts,
 * and handed each message.
 *
 * Lifecycle: the main thread sends `start` once; requests follow as text
 * frames (or posted, with long parameters); `retire` ends it, answered once
 * the start has been, and the main thread terminates the worker once the
 * retirement is confirmed.
 *
 * Who controls the child process: this worker spawns it and owns its three
 * pipes, reads and writes the wire, and decides the escalation of its
 * retirement (`retirement.ts`: stdin, SIGTERM, SIGKILL, one deadline). The
 * main thread sends the signals to its process group and runs the drain
 * check (reading `/proc`) when this worker asks (`client/custody/process_group.ts`),
 * on tickets of the worker's own (`request`, answered by `settled`), and
 * holds the exit guard that kills every live group when the harness process
 * ends (`client/custody/exit_guard.ts`). The split is forced: a worker run with
 * least privilege (`run` granted for its one command only) cannot signal a
 * process group (`Deno.kill` with a negative pid needs unrestricted `run`)
 * nor read `/proc`, and a worker's own exit hooks do not run when the
 * process ends. The pid crosses at once (`spawned`), before anything can
 * kill the child, and its exit (`exited`) so that no signal chases a pid
 * that may have been recycled.
 *
 * @module
 */

import type { JsonValue } from "../../codec/json.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import type { ClientError } from "../thread/outcomes.ts";
import { type Drain, noResource } from "../thread/evidence.ts";
import {
  decodeRequests,
  decodeToWorker,
  type LongCallMessage,
  type StartMessage,
  type WorkerRequest,
} from "../thread/to_worker.ts";
import type { AuthAnswer } from "../thread/auth.ts";
import { progressOf } from "../thread/progress.ts";
import { isRecord } from "../thread/guards.ts";
import {
  encodeChallengeAsk,
  encodeCredentialsAsk,
  encodeDrainAsk,
  encodeExited,
  encodeRetired,
  encodeServerRequestAsk,
  encodeSettled,
  encodeSignalAsk,
  encodeSpawned,
  encodeStarted,
  encodeState,
  encodeToolsChanged,
  encodeWithdrawn,
  type WorkerAsk,
} from "../thread/from_worker.ts";
import { type Post, ThreadEnd } from "../thread/link.ts";
import type { Clock } from "../transport/clock.ts";
import { WaitClock } from "./wait_clock.ts";
import { CommandTransport, type GroupControl } from "../transport/stdio/command_transport.ts";
import { HttpTransport } from "../transport/http/http_transport.ts";
import { HttpAuth } from "../transport/http/auth.ts";
import { ClientMachine } from "./machine.ts";
import { Outbox } from "./outbox.ts";
import type { Transport } from "../transport/transport.ts";
import { TaskCall } from "./_tasks.ts";
import { NoticeGate } from "./notices.ts";
import { Listens } from "./_listens.ts";
import { encodeNotice } from "../thread/notices.ts";
import { isServerAnswer, type ServerAnswer } from "../thread/asked.ts";
import type { ServerRequestContext } from "../thread/era.ts";

/** What a host may be given instead of its defaults. */
export type HostOptions = {
  /** The clock of every timer; a {@linkcode WaitClock} by default (see `wait_clock.ts`). */
  clock?: Clock;
  /**
   * Makes the transport of each launch of the server, given the start and
   * the group control that asks the main thread; by default, from the start
   * message, an HTTP session for a remote server or a child process.
   */
  transport?: (start: StartMessage, group: GroupControl) => Transport;
};

/** A client's worker, driven by what the main thread sends. */
export class WorkerHost {
  #end: ThreadEnd;
  #outbox: Outbox;
  #clock: Clock;
  #makeTransport: HostOptions["transport"];
  #machine: ClientMachine | undefined;
  #starting: Promise<void> | undefined;
  // The request id each ticket of the main thread's was sent as, for `cancel`.
  #tickets = new Map<number, number>();
  // Long calls: the ticket of each progress token (a request id), and each task call by ticket.
  #progress = new Map<number, number>();
  #tasks = new Map<number, TaskCall>();
  #name = "";
  // The worker's own requests of the main thread, by ticket.
  #asks = new Map<number, (value: unknown) => void>();
  #nextAsk = 0;
  // Whether a change of the server's tools is told already this turn.
  #toolsChangedTold = false;
  #notices: NoticeGate;
  #listens = new Listens((ticket) => this.#tickets.get(ticket));
  #group: GroupControl = {
    signal: (pid, signal) => {
      void this.#ask((ticket) => encodeSignalAsk(ticket, pid, signal));
      // At once: a retirement's clock is running.
      this.#outbox.flush();
    },
    drain: (pid, deadlineMs) =>
      this.#ask<Drain>((ticket) => encodeDrainAsk(ticket, pid, deadlineMs)),
  };
  // A remote server's credentials, from the main thread's sign-in; one for every launch.
  #auth = new HttpAuth({
    ask: (target) => this.#askNow<AuthAnswer>((ticket) => encodeCredentialsAsk(ticket, target)),
    refused: (refusal) => this.#askNow<AuthAnswer>((ticket) => encodeChallengeAsk(ticket, refusal)),
  });

  /** A host posting with `post`; nothing runs until the main thread's `start`. */
  constructor(post: Post, options: HostOptions = {}) {
    this.#clock = options.clock ?? new WaitClock();
    this.#makeTransport = options.transport;
    this.#end = new ThreadEnd(post, {
      text: (text) => this.#batch(text),
      message: (body) => this.#message(body),
      broken: (message) => {
        // The main thread learns of it as a crash, and loses this worker.
        throw new Error(`Cannot read what the main thread sent: ${message}`);
      },
    });
    this.#outbox = new Outbox(this.#end, this.#clock);
    const clock = this.#clock;
    this.#notices = new NoticeGate(() => clock.now());
  }

  /** Takes one message the main thread posted (what `onmessage` is given). */
  receive(data: unknown): void {
    this.#end.receive(data);
  }

  /** A frame of rendered requests, from the ring or posted. */
  #batch(text: string): void {
    const batch = decodeRequests(text);
    for (const request of batch.requests) this.#run(request);
    if (batch.fault !== undefined && batch.faultTicket !== undefined) {
      this.#refuse(batch.faultTicket, batch.fault);
    }
  }

  #message(body: unknown): void {
    const decoded = decodeToWorker(body);
    if (!decoded.ok) {
      // A request that does not decode is still answered, if its ticket can be read.
      const fields = body as { kind?: unknown; ticket?: unknown } | null;
      if (fields?.kind === "request" && Number.isSafeInteger(fields.ticket)) {
        this.#refuse(fields.ticket as number, decoded.error);
      }
      return;
    }
    const message = decoded.value;
    switch (message.kind) {
      case "start":
        this.#starting ??= this.#start(message);
        return;
      case "request":
        this.#run(message);
        return;
      case "long_call":
        this.#runLong(message);
        return;
      case "cancel": {
        const task = this.#tasks.get(message.ticket);
        if (task !== undefined) {
          this.#endLong(message.ticket);
          task.cancel();
          return;
        }
        const id = this.#tickets.get(message.ticket);
        if (id !== undefined) this.#machine?.cancel(id, message.timedOut);
        return;
      }
      case "malformed":
        this.#machine?.malformed(message.message, message.cause);
        return;
      case "retire":
        this.#retire(message.timeoutMs);
        return;
      case "reply": {
        const resolve = this.#asks.get(message.ticket);
        this.#asks.delete(message.ticket);
        resolve?.(message.value);
        return;
      }
      case "fresh_credentials":
        this.#auth.update(message);
        return;
    }
  }

  // ---- start and retire ----

  /** Starts the server and its session (`start.ts`), and tells the main thread how it went. */
  async #start(message: StartMessage): Promise<void> {
    this.#end.attach({ out: message.rings.answers, in: message.rings.requests });
    this.#name = message.name;
    const machine = new ClientMachine(() => this.#transport(message), {
      name: message.name,
      clock: this.#clock,
      connectTimeoutMs: message.connectTimeoutMs,
      retirementTimeoutMs: message.retirementTimeoutMs,
      era: message.era,
      ...(message.versions === null ? {} : { versions: message.versions }),
      onReport: (report) => {
        this.#outbox.flushStderr();
        this.#outbox.post(encodeState(report));
      },
      onToolsChanged: () => this.#toolsChanged(),
      onNotification: (method, params) => this.#notified(method, params),
      onRenewed: () => this.#outbox.post(encodeNotice({ kind: "session_renewed" })),
      ...(message.logLevel === undefined ? {} : { logLevel: message.logLevel }),
      ...(message.traceContext === undefined ? {} : { traceContext: message.traceContext }),
      served: this.#served(message),
    });
    this.#machine = machine;
    const outcome = await machine.connect();
    this.#outbox.flushStderr();
    this.#outbox.post(encodeStarted(outcome.ok ? ok(outcome.value as JsonValue) : outcome));
  }

  /**
   * What the server's requests are answered with: roots from the start,
   * elicitation and sampling by the main thread's handlers, asked at once.
   */
  #served(message: StartMessage): ServerRequestContext {
    return {
      served: message.served,
      ask: async (method, params, signal): Promise<ServerAnswer> => {
        let asked = -1;
        const withdraw = () => {
          this.#outbox.post(encodeWithdrawn(asked));
          this.#outbox.flush();
        };
        const answer = await this.#askNow<unknown>((ticket) => {
          asked = ticket;
          signal.addEventListener("abort", withdraw, { once: true });
          return encodeServerRequestAsk(ticket, method, params ?? null);
        });
        signal.removeEventListener("abort", withdraw);
        return isServerAnswer(answer) ? answer : {
          ok: false,
          error: { code: -32603, message: `The client could not answer ${method}` },
        };
      },
    };
  }

  /** Retires the server; answered once the start has been (its cleanup may be this retirement). */
  #retire(timeoutMs: number): void {
    const machine = this.#machine;
    if (machine === undefined) {
      this.#outbox.post(encodeRetired(ok(noResource())));
      return;
    }
    for (const task of this.#tasks.values()) task.stop();
    this.#tasks.clear();
    this.#progress.clear();
    void Promise.all([machine.retire({ timeoutMs }), this.#starting]).then(([outcome]) => {
      this.#outbox.flushStderr();
      this.#outbox.post(encodeRetired(outcome));
    });
  }

  /** The transport of one launch: the one given, or the start's own. */
  #transport(message: StartMessage): Transport {
    if (this.#makeTransport !== undefined) return this.#makeTransport(message, this.#group);
    if (message.remote !== null) {
      return new HttpTransport({
        name: message.name,
        url: message.remote.url,
        headers: message.remote.headers,
        clock: this.#clock,
        connectTimeoutMs: message.connectTimeoutMs,
        ...(message.remote.signIn === true ? { auth: this.#auth } : {}),
      });
    }
    const outbox = this.#outbox;
    const child: CommandTransport = new CommandTransport({
      name: message.name,
      command: message.command,
      args: message.args,
      env: message.env,
      cwd: message.cwd ?? undefined,
      forwardStderr: message.forwardStderr,
      clock: this.#clock,
      group: this.#group,
      onSpawn(pid) {
        // At once: the main thread must know the pid before anything can kill it.
        outbox.post(encodeSpawned(pid));
        outbox.flush();
      },
      onStderr: (chunk) => outbox.holdStderr(chunk),
      onExit(status) {
        outbox.flushStderr();
        outbox.post(encodeExited(child.pid ?? 0, status.code, status.signal));
      },
    });
    return child;
  }

  /** Tells the main thread the server's tools changed, once for all it said in one read. */
  #toolsChanged(): void {
    if (this.#toolsChangedTold) return;
    this.#toolsChangedTold = true;
    this.#outbox.post(encodeToolsChanged());
    queueMicrotask(() => this.#toolsChangedTold = false);
  }

  /** Asks the main thread, on a ticket of the worker's own; resolves with its answer. */
  #ask<T>(make: (ticket: number) => WorkerAsk): Promise<T> {
    const ticket = this.#nextAsk++;
    return new Promise((resolve) => {
      this.#asks.set(ticket, resolve as (value: unknown) => void);
      this.#outbox.post(make(ticket));
    });
  }

  /** Asks, and sends the ask at once: a request waits on it. */
  #askNow<T>(make: (ticket: number) => WorkerAsk): Promise<T> {
    const asked = this.#ask<T>(make);
    this.#outbox.flush();
    return asked;
  }

  // ---- requests ----

  #run(request: WorkerRequest): void {
    const { ticket, timeoutMs, method, params } = request;
    const machine = this.#machine;
    if (machine === undefined) {
      this.#settle(ticket, err(unavailable("not_connected", "The client was not started")));
      return;
    }
    // The main thread keeps the deadline and says `cancel` at it.
    const id = machine.forward(method, params, timeoutMs, (o) => this.#settle(ticket, o), {
      raw: (id, line) => this.#answer(ticket, id, line),
    });
    if (id === undefined || this.#tickets.has(ticket)) return;
    this.#tickets.set(ticket, id);
    this.#listens.sent(ticket, method, params);
  }

  #settle(ticket: number, outcome: Result<JsonValue, ClientError>): void {
    if (this.#progress.size > 0) this.#progress.delete(this.#tickets.get(ticket) ?? -1);
    this.#tickets.delete(ticket);
    this.#listens.ended(ticket);
    this.#outbox.post(encodeSettled(ticket, outcome));
  }

  #answer(ticket: number, id: number, line: Uint8Array): void {
    if (this.#progress.size > 0) this.#progress.delete(id);
    this.#tickets.delete(ticket);
    this.#listens.ended(ticket);
    this.#outbox.answer(ticket, id, line);
  }

  // ---- long calls ----

  /** A call that reports progress, runs as a task, or both (`client/thread/to_worker.ts`). */
  #runLong(call: LongCallMessage): void {
    const { ticket, timeoutMs } = call;
    const machine = this.#machine;
    if (machine === undefined) {
      this.#settle(ticket, err(unavailable("not_connected", "The client was not started")));
      return;
    }
    if (!call.task) {
      const id = machine.forward(
        "tools/call",
        call.params,
        timeoutMs,
        (o) => this.#settle(ticket, o),
        {
          raw: (id, line) => this.#answer(ticket, id, line),
          long: { extra: {}, progress: call.progress },
        },
      );
      if (id === undefined) return;
      this.#tickets.set(ticket, id);
      if (call.progress) this.#progress.set(id, ticket);
      return;
    }
    const task = new TaskCall({
      name: this.#name,
      era: machine.era,
      clock: this.#clock,
      // Its legs are the call's, under its deadline kept on the main thread;
      // tasks/cancel is sent when no one waits any more, under one of its own.
      send: (method, params, settle, long) => {
        const extra = long === undefined ? {} : { long };
        return method === "tasks/cancel"
          ? machine.send(method, params, timeoutMs, settle, extra)
          : machine.forward(method, params, timeoutMs, settle, extra);
      },
      cancel: (id) => machine.cancel(id),
      report: (progress) => this.#outbox.progress(ticket, progress),
      settle: (outcome) => {
        this.#endLong(ticket);
        this.#settle(ticket, outcome);
      },
    }, { params: call.params, progress: call.progress, ttlMs: call.ttlMs });
    this.#tasks.set(ticket, task);
    task.start();
    // The creating request's id stays the token for the task's whole life.
    if (call.progress && !task.done && task.createId !== undefined) {
      this.#progress.set(task.createId, ticket);
    }
  }

  #endLong(ticket: number): void {
    const task = this.#tasks.get(ticket);
    if (task === undefined) return;
    this.#tasks.delete(ticket);
    if (task.createId !== undefined) this.#progress.delete(task.createId);
  }

  /** A notification: progress for a long call, the status of a task, or a notice (`notices.ts`). */
  #notified(method: string, params: unknown): void {
    const acknowledged = this.#listens.acknowledgment(method, params);
    if (acknowledged !== undefined) {
      if (acknowledged !== null) this.#outbox.post(encodeNotice(acknowledged));
      return;
    }
    const notice = this.#notices.take(method, params);
    if (notice !== undefined) {
      if (notice?.kind === "resource_updated") {
        const ticket = this.#listens.updateTicket(method, params);
        if (ticket !== undefined) notice.ticket = ticket;
      }
      if (notice !== null) this.#outbox.post(encodeNotice(notice));
      return;
    }
    if (method === "notifications/progress") {
      if (this.#progress.size === 0 || !isRecord(params)) return;
      const token = params.progressToken;
      const ticket = typeof token === "number" ? this.#progress.get(token) : undefined;
      const progress = ticket === undefined ? undefined : progressOf(params);
      if (ticket !== undefined && progress !== undefined) this.#outbox.progress(ticket, progress);
      return;
    }
    if (method !== "notifications/tasks/status" && method !== "notifications/tasks") return;
    if (!isRecord(params)) return;
    for (const task of this.#tasks.values()) {
      if (task.taskId === params.taskId) task.notified(params);
    }
  }

  /** Settles a request the worker could not read, so its caller does not wait for the deadline. */
  #refuse(ticket: number, message: string): void {
    this.#settle(ticket, err(unavailable("worker_lost", message)));
  }
}

function unavailable(cause: "not_connected" | "worker_lost", message: string): ClientError {
  return { kind: "unavailable", cause, message, stderrTail: "" };
}

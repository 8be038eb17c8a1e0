/**
 * The entry of a client's Web Worker: it owns one server's child process
 * and its state machine, and answers the main thread.
 *
 * Lifecycle: the main thread sends `start` once; requests follow as string
 * batches; `retire` ends it, and the main thread terminates the worker once
 * the retirement is confirmed.
 *
 * Who controls the child process: this worker spawns it and owns its three
 * pipes, reads and writes the wire, and decides the escalation of its
 * retirement (`retirement.ts`: stdin, SIGTERM, SIGKILL, one deadline). The
 * main thread sends the signals to its process group and runs the drain
 * check (reading `/proc`) when this worker asks (`custody/process_group.ts`),
 * and holds the exit guard that kills every live group when the harness
 * process ends (`custody/exit_guard.ts`). The split is forced: a worker run
 * with least privilege (`run` granted for its one command only) cannot
 * signal a process group (`Deno.kill` with a negative pid needs unrestricted
 * `run`) nor read `/proc`, and a worker's own exit hooks do not run when the
 * process ends. The pid crosses at once (`spawned`), before anything can
 * kill the child, and its exit (`exited`) so that no signal chases a pid that
 * may have been recycled.
 *
 * @module
 */

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

import type { JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { joinBytes } from "../codec/_bytes.ts";
import { decodeUtf8 } from "../codec/_utf8.ts";
import { LineSplitter } from "../codec/framing.ts";
import { STDERR_TAIL_BYTES } from "../spec/limits.ts";
import type { TimerHandle } from "./clock.ts";
import { WaitClock } from "./wait_clock.ts";
import { RingReader, RingWriter } from "../thread/ring.ts";
import { InOrder } from "../thread/order.ts";
import { CommandTransport, type GroupControl } from "./command_transport.ts";
import { HttpTransport } from "./http_transport.ts";
import { ClientMachine } from "./machine.ts";
import type { ClientError } from "../thread/outcomes.ts";
import type { Drain } from "./transport.ts";
import { type Answers, type FromWorker, renderAnswers } from "../thread/from_worker.ts";
import {
  decodeRequests,
  decodeToWorker,
  type StartMessage,
  type WorkerRequest,
} from "../thread/to_worker.ts";

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

let machine: ClientMachine | undefined;
let started = false;
// The rings shared with the main thread (`ring.ts`), from the start on.
let answerRing: RingWriter | undefined;
let sentOrder = 0;
let requestRing: RingReader | undefined;
let outbox: FromWorker[] = [];
// The responses handed on since the last other event, so that order is kept:
// their lines are copied into `scratch` as they come (a line may be a view
// into a read's chunk) and leave in a copy of their own, or a line that is a
// buffer of its own leaves whole while it is the only one.
let answers: AnswerBatch | undefined;
type AnswerBatch = {
  event: Answers;
  size: number;
  whole: Uint8Array | undefined;
};
let scratch = new Uint8Array(ANSWER_BUFFER_BYTES);
let flushQueued = false;
let stderrHeld: Uint8Array[] = [];
let stderrHeldBytes = 0;
let stderrTimer: TimerHandle | undefined;
// Every timer of the worker: see wait_clock.ts for why not setTimeout.
const clock = new WaitClock();
const tickets = new Map<number, number>();
const drains = new Map<number, (drained: Drain) => void>();
let nextDrain = 0;

function post(event: FromWorker): void {
  sealAnswers();
  outbox.push(event);
  if (!flushQueued) {
    flushQueued = true;
    queueMicrotask(flush);
  }
}

function flush(): void {
  flushQueued = false;
  sealAnswers();
  if (outbox.length === 0) return;
  const batch = outbox;
  outbox = [];
  const only = batch.length === 1 ? batch[0] : undefined;
  // Each send carries its place in order: the main thread handles the ring's
  // frames and the posted messages in it, whichever way they came. A place
  // is taken only by what was sent, so a send that throws leaves no gap.
  const order = sentOrder;
  if (only?.kind === "answers" && typeof only.lines === "string") {
    // The common message, answers as text alone, crosses the ring as one
    // string, or is posted as one when the ring is full.
    const text = `${order}\n${renderAnswers(only.tickets, only.ids, only.lines)}`;
    if (answerRing?.write(text) !== true) self.postMessage(text);
    sentOrder = order + 1;
    return;
  }
  const transfer: ArrayBuffer[] = [];
  for (const event of batch) {
    if (event.kind === "answers" && typeof event.lines !== "string") {
      transfer.push(event.lines.buffer as ArrayBuffer);
    }
  }
  // Without buffers to transfer the runtime takes its faster path.
  if (transfer.length === 0) self.postMessage({ order, events: batch });
  else self.postMessage({ order, events: batch }, transfer);
  sentOrder = order + 1;
}

/** Ends the batch of answers being gathered: its bytes are final. */
function sealAnswers(): void {
  const batch = answers;
  answers = undefined;
  if (batch === undefined) return;
  batch.event.lines = batch.whole ?? textOrBytes(scratch.subarray(0, batch.size));
  // A buffer grown for one large answer is not kept for the small ones.
  if (scratch.length > ANSWER_BUFFER_BYTES * 16) scratch = new Uint8Array(ANSWER_BUFFER_BYTES);
}

/** Sends held stderr ahead of whatever is posted next. */
function flushStderr(): void {
  if (stderrTimer !== undefined) clock.clearTimer(stderrTimer);
  stderrTimer = undefined;
  if (stderrHeldBytes === 0) return;
  const bytes = joinBytes(stderrHeld, stderrHeldBytes);
  stderrHeld = [];
  stderrHeldBytes = 0;
  post({ kind: "stderr", bytes });
}

function holdStderr(chunk: Uint8Array): void {
  stderrHeld.push(chunk.slice());
  stderrHeldBytes += chunk.length;
  while (stderrHeldBytes - (stderrHeld[0]?.length ?? 0) >= STDERR_TAIL_BYTES) {
    stderrHeldBytes -= stderrHeld.shift()?.length ?? 0;
  }
  stderrTimer ??= clock.setTimer(STDERR_FLUSH_MS, flushStderr);
}

const group: GroupControl = {
  signal(pid, signal) {
    post({ kind: "signal", pid, signal });
    flush();
  },
  drain(pid, deadlineMs) {
    const seq = nextDrain++;
    return new Promise((resolve) => {
      drains.set(seq, resolve);
      post({ kind: "drain", seq, pid, deadlineMs });
    });
  },
};

/** The transport of a remote server: its HTTP session, owned by this worker. */
function remoteTransport(message: StartMessage): HttpTransport | undefined {
  if (message.remote === null) return undefined;
  return new HttpTransport({
    name: message.name,
    url: message.remote.url,
    headers: message.remote.headers,
    clock,
  });
}

/** The transport of a stdio server: its child process, owned by this worker. */
function childTransport(message: StartMessage): CommandTransport {
  const child: CommandTransport = new CommandTransport({
    name: message.name,
    command: message.command,
    args: message.args,
    env: message.env,
    cwd: message.cwd ?? undefined,
    forwardStderr: message.forwardStderr,
    clock,
    group,
    onSpawn(pid) {
      // At once: the main thread must know the pid before anything can kill it.
      post({ kind: "spawned", pid });
      flush();
    },
    onStderr: holdStderr,
    onExit(status) {
      flushStderr();
      post({ kind: "exited", pid: child.pid ?? 0, code: status.code, signal: status.signal });
    },
  });
  return child;
}

let reportedDeath = false;
let starting: Promise<void> | undefined;

/** Starts the server and its session (`start.ts`), and tells the main thread how it went. */
async function start(message: StartMessage): Promise<void> {
  if (started) return;
  started = true;
  answerRing = new RingWriter(message.rings.answers);
  requestRing = new RingReader(message.rings.requests, onBatch, (broken) => {
    // The main thread learns of it as a crash, and loses this worker.
    throw new Error(`The main thread's request ring broke: it held ${broken}`);
  });
  requestRing.listen();
  const client = new ClientMachine(() => remoteTransport(message) ?? childTransport(message), {
    name: message.name,
    clock,
    connectTimeoutMs: message.connectTimeoutMs,
    retirementTimeoutMs: message.retirementTimeoutMs,
    era: message.era,
    ...(message.versions === null ? {} : { versions: message.versions }),
    onReport(report) {
      // A death during the start is told by the start's outcome.
      if (report.death === null || reportedDeath) return;
      if (report.state !== "dead" && report.state !== "retiring" && report.state !== "retired") {
        return;
      }
      reportedDeath = true;
      flushStderr();
      post({ kind: "died", error: report.death });
    },
  });
  machine = client;
  const outcome = await client.connect();
  flushStderr();
  post({ kind: "started", outcome: outcome.ok ? ok(outcome.value as JsonValue) : outcome });
}

function settle(ticket: number, outcome: Result<JsonValue, ClientError>): void {
  tickets.delete(ticket);
  post({ kind: "settled", ticket, outcome });
}

function answer(ticket: number, id: number, line: Uint8Array): void {
  tickets.delete(ticket);
  let batch = answers;
  if (batch === undefined) {
    const event: Answers = { kind: "answers", tickets: [], ids: [], lines: EMPTY };
    post(event);
    batch = { event, size: 0, whole: undefined };
    answers = batch;
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
    append(batch, whole, false);
  }
  append(batch, line, batch.event.tickets.length > 0);
  batch.event.tickets.push(ticket);
  batch.event.ids.push(id);
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

/** Copies a line into the batch's buffer, after a newline when it is not the first. */
function append(batch: AnswerBatch, line: Uint8Array, separated: boolean): void {
  const needed = batch.size + line.length + (separated ? 1 : 0);
  if (needed > scratch.length) {
    const grown = new Uint8Array(Math.max(needed, scratch.length * 2));
    grown.set(scratch.subarray(0, batch.size));
    scratch = grown;
  }
  if (separated) scratch[batch.size++] = NEWLINE;
  scratch.set(line, batch.size);
  batch.size += line.length;
}

/** Settles a request the worker could not read, so its caller does not wait for the deadline. */
function refuse(ticket: number, message: string): void {
  settle(ticket, err({ kind: "unavailable", cause: "worker_lost", message, stderrTail: "" }));
}

function run(request: WorkerRequest): void {
  const { ticket, timeoutMs, method, params } = request;
  const client = machine;
  if (client === undefined) {
    settle(
      ticket,
      err({
        kind: "unavailable",
        cause: "not_connected",
        message: "The client was not started",
        stderrTail: "",
      }),
    );
    return;
  }
  // The main thread keeps the deadline and says `cancel` at it.
  const id = client.send(method, params, timeoutMs, (outcome) => settle(ticket, outcome), {
    raw: (id, line) => answer(ticket, id, line),
    timed: false,
  });
  if (id !== undefined && !tickets.has(ticket)) tickets.set(ticket, id);
}

/** Runs a batch of rendered requests, from the ring or posted. */
function runBatch(text: string): void {
  const batch = decodeRequests(text);
  for (const request of batch.requests) run(request);
  if (batch.fault !== undefined && batch.faultTicket !== undefined) {
    refuse(batch.faultTicket, batch.fault);
  }
}

// Everything the main thread sends carries its place in order (`order.ts`).
const received = new InOrder();

/** A batch of requests as sent: its order, a newline, the batch. */
function onBatch(frame: string): void {
  const cut = frame.indexOf("\n");
  const order = cut > 0 ? Number(frame.slice(0, cut)) : NaN;
  if (!Number.isSafeInteger(order) || order < 0) {
    throw new Error(
      `Cannot read a batch from the main thread: ${JSON.stringify(frame.slice(0, 40))}`,
    );
  }
  if (!received.take(order, () => runBatch(frame.slice(cut + 1)))) {
    throw new Error(`Cannot read a batch from the main thread: it is out of order (${order})`);
  }
}

self.onmessage = (event: MessageEvent<unknown>) => {
  // What the ring holds was most likely sent before this message.
  requestRing?.drain();
  const data = event.data;
  if (typeof data === "string") {
    onBatch(data);
    return;
  }
  const order = (data as { order?: unknown } | null)?.order;
  if (typeof order !== "number" || !Number.isSafeInteger(order) || order < 0) {
    throw new Error("Cannot read a message from the main thread: it has no order");
  }
  if (!received.take(order, () => handle(data))) {
    throw new Error(`Cannot read a message from the main thread: it is out of order (${order})`);
  }
};

function handle(data: unknown): void {
  const decoded = decodeToWorker(data);
  if (!decoded.ok) {
    // A request that does not decode is still answered, if its ticket can be read.
    const ticket = (data as { kind?: unknown; ticket?: unknown } | null)?.ticket;
    if ((data as { kind?: unknown } | null)?.kind === "request" && Number.isSafeInteger(ticket)) {
      refuse(ticket as number, decoded.error);
    }
    return;
  }
  const message = decoded.value;
  switch (message.kind) {
    case "start":
      starting = start(message);
      return;
    case "request":
      run(message);
      return;
    case "cancel": {
      const id = tickets.get(message.ticket);
      if (id !== undefined) machine?.cancel(id, message.timedOut);
      return;
    }
    case "malformed":
      machine?.malformed(message.message, message.cause);
      return;
    case "retire": {
      const client = machine;
      if (client === undefined) {
        post({ kind: "retired", outcome: ok({ kind: "no_resource" }) });
        return;
      }
      // The start is answered first: its cleanup may be this very retirement.
      void Promise.all([client.retire({ timeoutMs: message.timeoutMs }), starting]).then(
        ([outcome]) => {
          flushStderr();
          post({ kind: "retired", outcome });
        },
      );
      return;
    }
    case "drained": {
      const resolve = drains.get(message.seq);
      drains.delete(message.seq);
      resolve?.(message.drained);
      return;
    }
  }
}

/**
 * The link between the main thread and one client's worker, both ends of
 * it: {@linkcode ThreadEnd} is what either end does (text frames through a
 * ring of shared memory, `ring.ts`, posted instead when one does not fit;
 * other messages posted; everything sent carries its place in order, and
 * everything received is handled in that order, `order.ts`), and
 * {@linkcode WorkerLink} is the main thread's end of a `Worker`, decoding
 * what the worker sends (`from_worker.ts`). The worker's end is its host
 * (`client/worker/host.ts`).
 *
 * Who closes what: `WorkerLink.end` terminates the worker; a worker that
 * crashes, sends a message that cannot be received, or breaks protocol is
 * lost, once, and terminated at once.
 *
 * @module
 */

import type { StartRings, ToWorker } from "./to_worker.ts";
import { decodeAnswers, decodeFromWorker, type FromWorker } from "./from_worker.ts";
import { type RingMemory, ringMemory, RingReader, RingWriter } from "./ring.ts";
import { InOrder } from "./order.ts";

/**
 * How an end posts what does not cross a ring (`postMessage` of a worker or
 * of its scope), with the buffers to transfer when there are any: without,
 * the runtime takes its faster path.
 */
export type Post = (data: unknown, transfer?: Transferable[]) => void;

/** What an end hands on, in the order it was sent. */
export type EndHandlers = {
  /** A text frame. */
  text(text: string): void;
  /** The body of a posted message. */
  message(body: unknown): void;
  /** The other end broke the link: a frame or message out of order, or a ring broken. */
  broken(message: string): void;
};

/** The rings an end writes to and reads from. */
export type EndRings = { out: RingMemory; in: RingMemory };

/**
 * One end of the link. A text frame is sent as its place in order, a
 * newline, and the text; a posted message as `{ order, body }`. The receiver
 * reads its ring before each posted message it handles (what the ring holds
 * was most likely sent first), and hands everything on in order, holding
 * what came early.
 */
export class ThreadEnd {
  #post: Post;
  #handlers: EndHandlers;
  #out: RingWriter | undefined;
  #in: RingReader | undefined;
  #sent = 0;
  #received = new InOrder();
  #closed = false;

  constructor(post: Post, handlers: EndHandlers) {
    this.#post = post;
    this.#handlers = handlers;
  }

  /** Whether the end was closed: nothing is sent or handed on any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Starts writing frames to `rings.out` and reading them from `rings.in`. */
  attach(rings: EndRings): void {
    if (this.#closed) return;
    this.#out = new RingWriter(rings.out);
    this.#in = new RingReader(
      rings.in,
      (frame) => this.#frame(frame),
      (message) => this.#broken(`its ring held ${message}`),
    );
    this.#in.listen();
  }

  /** Sends a text frame: through the ring, or posted when it does not fit. */
  text(text: string): void {
    if (this.#closed) return;
    const order = this.#sent;
    const frame = `${order}\n${text}`;
    if (this.#out?.write(frame) !== true) this.#post(frame);
    // Taken only once sent: a post that throws leaves no gap in the order.
    this.#sent = order + 1;
  }

  /** Posts one message, transferring the buffers given. */
  message(body: unknown, transfer: Transferable[] = []): void {
    if (this.#closed) return;
    const order = this.#sent;
    if (transfer.length === 0) this.#post({ order, body });
    else this.#post({ order, body }, transfer);
    this.#sent = order + 1;
  }

  /** Takes one posted message (what `onmessage` is given) and what the ring holds before it. */
  receive(data: unknown): void {
    this.#in?.drain();
    if (this.#closed) return;
    if (typeof data === "string") {
      this.#frame(data);
      return;
    }
    const sent = data as { order?: unknown; body?: unknown } | null;
    const order = sent?.order;
    const body = sent?.body;
    this.#take(order, () => this.#handlers.message(body));
  }

  /** Stops sending and handing on; the rings are closed for the other end too. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#out?.close();
    this.#in?.close();
  }

  #frame(frame: string): void {
    if (this.#closed) return;
    const cut = frame.indexOf("\n");
    const order = cut > 0 ? Number(frame.slice(0, cut)) : NaN;
    this.#take(order, () => this.#handlers.text(frame.slice(cut + 1)));
  }

  #take(order: unknown, handle: () => void): void {
    const taken = typeof order === "number" &&
      this.#received.take(order, () => {
        if (!this.#closed) handle();
      });
    if (!taken) this.#broken("a message out of order, or with no order");
  }

  #broken(message: string): void {
    if (this.#closed) return;
    this.#handlers.broken(message);
  }
}

/** What a link reports. */
export type LinkHandlers = {
  /** One event from the worker, in order. */
  event(event: FromWorker): void;
  /** The worker is lost, with why; called at most once. */
  lost(message: string): void;
};

/** The main thread's end of one worker. */
export class WorkerLink {
  #worker: Worker;
  #name: string;
  #handlers: LinkHandlers;
  #rings: StartRings = { requests: ringMemory(), answers: ringMemory() };
  #end: ThreadEnd;
  #lost = false;

  constructor(worker: Worker, name: string, handlers: LinkHandlers) {
    this.#worker = worker;
    this.#name = name;
    this.#handlers = handlers;
    const post: Post = (data, transfer) => worker.postMessage(data, transfer ?? []);
    this.#end = new ThreadEnd(post, {
      text: (text) => this.#onAnswers(text),
      message: (events) => this.#onEvents(events),
      broken: (message) => this.lose(`The worker of "${name}" broke protocol: ${message}`),
    });
    this.#end.attach({ out: this.#rings.requests, in: this.#rings.answers });
    worker.onmessage = (event) => this.#end.receive(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.lose(`The worker of "${name}" crashed: ${event.message}`);
    };
    worker.onmessageerror = () => {
      this.lose(`The worker of "${name}" sent a message that could not be received`);
    };
  }

  /** The shared memory of the two rings, for the worker's start message. */
  get rings(): StartRings {
    return this.#rings;
  }

  /** Whether the worker was lost or ended: nothing is posted any more. */
  get closed(): boolean {
    return this.#end.closed;
  }

  /** Sends a batch of rendered requests: through the ring, or posted when it does not fit. */
  batch(text: string): void {
    this.#end.text(text);
  }

  /** Posts one message, transferring the buffers given. */
  post(message: ToWorker, transfer: ArrayBuffer[] = []): void {
    this.#end.message(message, transfer);
  }

  /** Terminates the worker and reports it lost; false when it was already closed. */
  lose(message: string): boolean {
    if (this.#end.closed || this.#lost) return false;
    this.#lost = true;
    this.#end.close();
    this.#worker.terminate();
    this.#handlers.lost(message);
    return true;
  }

  /** Terminates the worker, its work done. */
  end(): void {
    if (this.#end.closed) return;
    this.#end.close();
    this.#worker.terminate();
  }

  #onAnswers(text: string): void {
    const decoded = decodeAnswers(text);
    if (!decoded.ok) {
      this.lose(`The worker of "${this.#name}" broke protocol: ${decoded.error}`);
      return;
    }
    this.#handlers.event(decoded.value);
  }

  #onEvents(events: unknown): void {
    const decoded = decodeFromWorker(events);
    if (!decoded.ok) {
      this.lose(`The worker of "${this.#name}" broke protocol: ${decoded.error}`);
      return;
    }
    for (const event of decoded.value) this.#handlers.event(event);
  }
}

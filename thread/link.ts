// The main thread's end of one client's worker. It posts
// what the client sends, decodes every message the worker sends
// (`from_worker.ts`) and hands each event on; a crash, a message that cannot
// be received or one that breaks protocol loses the worker, once. Who closes
// what: `end` terminates the worker; a lost worker is terminated at once.
//
// Batches of requests and of answers cross two rings of shared memory
// (`thread/ring.ts`), everything else `postMessage`; a batch that does not
// fit its ring is posted instead. What the main thread sends carries its
// place in order, and the worker handles it in that order whichever way it
// came; so does what the worker sends, here.

import { decodeAnswers, type FromWorker } from "./from_worker.ts";
import type { StartRings, ToWorker } from "./to_worker.ts";
import { ringMemory, RingReader, RingWriter } from "./ring.ts";
import { InOrder } from "./order.ts";
import { decodeFromWorker } from "./from_worker.ts";

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
  #closed = false;
  #rings: StartRings = { requests: ringMemory(), answers: ringMemory() };
  // Every batch and message sent carries its place (see worker/entry.ts),
  // and so does everything received: the next one due, and those early.
  #order = 0;
  #received = new InOrder();
  #requests = new RingWriter(this.#rings.requests);
  #answers: RingReader;

  constructor(worker: Worker, name: string, handlers: LinkHandlers) {
    this.#worker = worker;
    this.#name = name;
    this.#handlers = handlers;
    this.#answers = new RingReader(
      this.#rings.answers,
      (text) => {
        if (!this.#closed) this.#onMessage(text);
      },
      (message) =>
        this.lose(`The worker of "${name}" broke protocol: its answer ring held ${message}`),
    );
    this.#answers.listen();
    worker.onmessage = (event) => {
      this.#answers.drain();
      if (!this.#closed) this.#onMessage(event.data);
    };
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
    return this.#closed;
  }

  /** Sends a batch of rendered requests: through the ring, or posted when it does not fit. */
  batch(text: string): void {
    if (this.#closed) return;
    const order = this.#order;
    const frame = `${order}\n${text}`;
    if (!this.#requests.write(frame)) this.#worker.postMessage(frame);
    // Taken only once sent: a post that throws leaves no gap in the order.
    this.#order = order + 1;
  }

  /** Posts one control message, transferring the buffers given. */
  post(message: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (this.#closed) return;
    const order = this.#order;
    this.#worker.postMessage({ ...message, order }, transfer);
    this.#order = order + 1;
  }

  /** Terminates the worker and reports it lost; false when it was already closed. */
  lose(message: string): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#closeRings();
    this.#worker.terminate();
    this.#handlers.lost(message);
    return true;
  }

  /** Terminates the worker, its work done. */
  end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeRings();
    this.#worker.terminate();
  }

  #closeRings(): void {
    this.#requests.close();
    this.#answers.close();
  }

  /** One frame or message from the worker: handled in its order, early ones held. */
  #onMessage(data: unknown): void {
    let order: number;
    let handle: () => void;
    if (typeof data === "string") {
      const cut = data.indexOf("\n");
      order = cut > 0 ? Number(data.slice(0, cut)) : NaN;
      handle = () => this.#onAnswers(data.slice(cut + 1));
    } else {
      const sent = data as { order?: unknown; events?: unknown } | null;
      order = typeof sent?.order === "number" ? sent.order : NaN;
      handle = () => this.#onEvents(sent?.events);
    }
    const taken = this.#received.take(order, () => {
      if (!this.#closed) handle();
    });
    if (!taken) this.lose(`The worker of "${this.#name}" broke protocol: a message out of order`);
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

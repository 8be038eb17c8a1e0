// Private to client/: the main thread's end of one client's worker. It posts
// what the client sends, decodes every message the worker sends
// (`_settlements.ts`) and hands each event on; a crash, a message that cannot
// be received or one that breaks protocol loses the worker, once. Who closes
// what: `end` terminates the worker; a lost worker is terminated at once.

import { decodeAnswers, type FromWorker, type ToWorker } from "../worker/messages.ts";
import { decodeFromWorker } from "./_settlements.ts";

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

  constructor(worker: Worker, name: string, handlers: LinkHandlers) {
    this.#worker = worker;
    this.#name = name;
    this.#handlers = handlers;
    worker.onmessage = (event) => this.#onMessage(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.lose(`The worker of "${name}" crashed: ${event.message}`);
    };
    worker.onmessageerror = () => {
      this.lose(`The worker of "${name}" sent a message that could not be received`);
    };
  }

  /** Whether the worker was lost or ended: nothing is posted any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Posts a batch of rendered requests. */
  batch(text: string): void {
    if (!this.#closed) this.#worker.postMessage(text);
  }

  /** Posts one control message, transferring the buffers given. */
  post(message: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (!this.#closed) this.#worker.postMessage(message, transfer);
  }

  /** Terminates the worker and reports it lost; false when it was already closed. */
  lose(message: string): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#worker.terminate();
    this.#handlers.lost(message);
    return true;
  }

  /** Terminates the worker, its work done. */
  end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#worker.terminate();
  }

  #onMessage(data: unknown): void {
    const decoded = typeof data === "string" ? decodeAnswers(data) : decodeFromWorker(data);
    if (!decoded.ok) {
      this.lose(`The worker of "${this.#name}" broke protocol: ${decoded.error}`);
      return;
    }
    if (!Array.isArray(decoded.value)) this.#handlers.event(decoded.value);
    else for (const event of decoded.value) this.#handlers.event(event);
  }
}

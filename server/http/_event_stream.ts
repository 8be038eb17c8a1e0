// Private to server/http/: one event stream of JSON-RPC messages, with a
// bounded backlog. The stream is the response body; whoever made it closes
// it (after a request's answer, at a session's end, at the server's close),
// and the client may cancel it by going away, which runs `onGone` once. A
// send past MAX_STREAM_BACKLOG_BYTES of unread bytes ends the stream as if
// the client had gone: a reader that slow loses the stream, not the server
// its memory.

import type { JsonObject } from "../../codec/json.ts";
import { MAX_STREAM_BACKLOG_BYTES } from "./limits.ts";
import { messageText } from "./_message_text.ts";

const encoder = new TextEncoder();

/**
 * One `message` event carrying `message`, as the bytes on the wire; a
 * comment in its place for a message JSON cannot say (`messageText`).
 */
export function eventBytes(message: JsonObject): Uint8Array {
  const text = messageText(message);
  return encoder.encode(
    text === undefined
      ? ": a message that could not be written as JSON was left out\n\n"
      : `event: message\ndata: ${text}\n\n`,
  );
}

/** An event stream of messages that ends on `close`, or when its client goes. */
export class EventStream {
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #open = true;
  #onGone: () => void;

  constructor(onGone: () => void) {
    this.#onGone = onGone;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#gone(),
    }, { highWaterMark: MAX_STREAM_BACKLOG_BYTES, size: (chunk) => chunk.byteLength });
  }

  /** Whether messages can still be sent. */
  get open(): boolean {
    return this.#open;
  }

  /** Sends one message; false when the stream has ended (or ends now, past its backlog). */
  send(message: JsonObject): boolean {
    const controller = this.#controller;
    if (!this.#open || controller === undefined) return false;
    const bytes = eventBytes(message);
    if ((controller.desiredSize ?? 0) < bytes.byteLength) {
      this.close();
      this.#onGone();
      return false;
    }
    controller.enqueue(bytes);
    return true;
  }

  /** Ends the stream after what was sent. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      this.#controller?.close();
    } catch {
      // Already cancelled by the client: nothing to end.
    }
  }

  #gone(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#onGone();
  }
}

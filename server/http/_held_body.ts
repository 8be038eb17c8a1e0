// Private to server/http/: the body of a JSON answer held open until the
// answer is known, for a client that accepts no event stream. Its headers go
// at once and its bytes once the answer comes, so that a client going away
// cancels the body: that is how the endpoint sees a JSON client disconnect.
// Neither of Deno's own ways serves a library: reading `request.signal` makes
// Deno 2.9.6 print a warning, and `ServeHandlerInfo.completed` settles only
// once the response is over, even for a client that went away mid-request
// (both measured). Whoever made the body ends it, with the answer or with a
// cancellation; the client going away runs `onGone` once.

const encoder = new TextEncoder();

/** A response body that carries one JSON text, once it is known. */
export class HeldBody {
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
      cancel: () => {
        if (!this.#open) return;
        this.#open = false;
        this.#onGone();
      },
    });
  }

  /** Sends `text` as the whole body and ends it; nothing once it has ended. */
  end(text: string): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      if (text !== "") this.#controller?.enqueue(encoder.encode(text));
      this.#controller?.close();
    } catch {
      // Already cancelled by the client: nothing to end.
    }
  }
}

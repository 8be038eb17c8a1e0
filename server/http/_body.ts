// Private to server/http/: reading POST bodies within their bounds: each at
// most MAX_HTTP_BODY_BYTES (413), all those being read at once at most
// MAX_HTTP_BUFFERED_BODY_BYTES (503), each whole within the body deadline
// (408), and none past the server's close (503). A refusal that leaves the
// body unread says `Connection: close`, since the rest of the body would be
// read as the next request.
//
// Lifecycle: the endpoint owns one reader for every connection. Each read
// counts its body's bytes (its declared Content-Length at once, a chunked
// body's as they come) from its start until it has been decoded, then lets
// them go, whatever the outcome; its timer and its listener on the close end
// with it.

import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR } from "../../codec/jsonrpc.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import { plain, rpcError } from "./_response.ts";
import { MAX_HTTP_BODY_BYTES, MAX_HTTP_BUFFERED_BODY_BYTES } from "./limits.ts";

const CLOSE = { connection: "close" };

/** Reads bodies, bounding each and all of them together, within a deadline. */
export class BodyReader {
  readonly #timeoutMs: number;
  readonly #closed: AbortSignal;
  #buffered = 0;

  /** Reads whole within `timeoutMs`, and not past `closed`. */
  constructor(timeoutMs: number, closed: AbortSignal) {
    this.#timeoutMs = timeoutMs;
    this.#closed = closed;
  }

  /** The body of `request` as text, or the answer that refuses it. */
  async read(request: Request): Promise<Result<string, Response>> {
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > MAX_HTTP_BODY_BYTES) return err(tooLarge());
    let counted = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
    if (this.#buffered + counted > MAX_HTTP_BUFFERED_BODY_BYTES) return err(this.#busy());
    this.#buffered += counted;
    const body = request.body;
    let stopped: "late" | "closing" | undefined;
    const reader = body?.getReader();
    const stop = (why: "late" | "closing"): void => {
      stopped ??= why;
      void reader?.cancel().catch(() => {});
    };
    const timer = reader === undefined
      ? undefined
      : setTimeout(() => stop("late"), this.#timeoutMs);
    const onClose = (): void => stop("closing");
    this.#closed.addEventListener("abort", onClose, { once: true });
    if (this.#closed.aborted) onClose();
    try {
      const chunks: Uint8Array[] = [];
      let size = 0;
      while (reader !== undefined && stopped === undefined) {
        const read = await reader.read();
        if (read.done || stopped !== undefined) break;
        size += read.value.byteLength;
        if (size > MAX_HTTP_BODY_BYTES) {
          void reader.cancel().catch(() => {});
          return err(tooLarge());
        }
        if (size > counted) {
          if (this.#buffered + size - counted > MAX_HTTP_BUFFERED_BODY_BYTES) {
            void reader.cancel().catch(() => {});
            return err(this.#busy());
          }
          this.#buffered += size - counted;
          counted = size;
        }
        chunks.push(read.value);
      }
      if (stopped !== undefined) return err(this.#stopped(stopped));
      return decode(chunks, size);
    } catch (error) {
      if (stopped !== undefined) return err(this.#stopped(stopped));
      return err(
        plain(
          400,
          `Bad request: the body could not be read (${
            error instanceof Error ? error.message : String(error)
          }); send a body as long as its Content-Length says`,
          CLOSE,
        ),
      );
    } finally {
      clearTimeout(timer);
      this.#closed.removeEventListener("abort", onClose);
      this.#buffered -= counted;
    }
  }

  #busy(): Response {
    return rpcError(
      503,
      null,
      INTERNAL_ERROR,
      `Server busy: the bodies being read hold ${this.#buffered} bytes of the ` +
        `${MAX_HTTP_BUFFERED_BODY_BYTES} they may (MAX_HTTP_BUFFERED_BODY_BYTES); send it again shortly`,
      { ...CLOSE, "retry-after": "1" },
    );
  }

  #stopped(why: "late" | "closing"): Response {
    if (why === "closing") {
      return rpcError(
        503,
        null,
        INTERNAL_ERROR,
        "Service unavailable: the server closed while the body was being read; try again",
        CLOSE,
      );
    }
    return rpcError(
      408,
      null,
      INVALID_REQUEST,
      `Request timeout: the body was not whole within ${this.#timeoutMs} ms of its headers; ` +
        "send the whole body, as long as its Content-Length says, at once",
      CLOSE,
    );
  }
}

function tooLarge(): Response {
  return rpcError(
    413,
    null,
    INVALID_REQUEST,
    `Payload too large: a body may hold ${MAX_HTTP_BODY_BYTES} bytes; send a smaller message`,
    CLOSE,
  );
}

function decode(chunks: readonly Uint8Array[], size: number): Result<string, Response> {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return ok(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return err(rpcError(400, null, PARSE_ERROR, "Parse error: the body is not UTF-8"));
  }
}

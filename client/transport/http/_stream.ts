// Private to client/transport/http/: following one request's event stream to its answer.
// Each message event is handed on as it comes; the machine says, at once,
// whether it was the answer. A legacy stream that drops before its answer is
// resumed (a GET with `Last-Event-ID`) when the server gave event ids, after
// the delay it asked for; a modern one is not resumable (2026-07-28): its end
// says the request was lost, for the transport to re-issue or fail.

import { SseDecoder } from "../../../codec/sse.ts";
import type { Clock } from "../clock.ts";
import { readEvents } from "./_read.ts";

/** How long a resumption waits when the server named no `retry`, in ms: 1 s. */
export const DEFAULT_RESUME_DELAY_MS = 1_000;
/** The longest `retry` a server may ask a resumption to wait, in ms: 10 s. */
export const MAX_RESUME_DELAY_MS = 10_000;
/** The most times one request's dropped stream is resumed: 5. */
export const MAX_RESUMPTIONS = 5;

/** What following a stream needs of its transport. */
export type StreamIo = {
  /** Whether the stream is of the modern era (never resumed). */
  modern: boolean;
  /** One message event's data. */
  message(data: string): void;
  /** Whether the request still waits for its answer (told synchronously after `message`). */
  waiting(): boolean;
  /** Waits `ms` unless the request is given up first; true when it still waits. */
  sleep(ms: number): Promise<boolean>;
  /** The stream again, after `lastEventId`; `undefined` when the server would not give it. */
  resume(lastEventId: string): Promise<ReadableStream<Uint8Array> | null | undefined>;
};

/** How following a stream ended. */
export type Followed =
  /** Answered, or given up: nothing more to do. */
  | { kind: "done" }
  /** The stream broke its framing. */
  | { kind: "fault"; message: string }
  /** A modern stream that ended or broke before its answer: the request is lost. */
  | { kind: "lost"; how: string }
  /**
   * A legacy stream that ended without its answer, resumed as far as it could
   * be; `broke` says how its last read failed, when it did not simply end.
   */
  | { kind: "unanswered"; lastEventId: string; broke?: string };

/** Follows a request's event stream until its answer, or says how it ended without one. */
export async function followStream(
  first: ReadableStream<Uint8Array> | null,
  io: StreamIo,
): Promise<Followed> {
  let body = first;
  let lastEventId = "";
  let retryMs: number | undefined;
  let broke: string | undefined;
  for (let resumptions = 0;; resumptions++) {
    const events = new SseDecoder();
    const end = await readEvents(body, events, (event) => {
      if (event.type === "message" && event.data !== "") io.message(event.data);
      return io.waiting();
    });
    if (events.lastEventId !== "") lastEventId = events.lastEventId;
    retryMs = events.retryMs ?? retryMs;
    if (!io.waiting() || end.kind === "stopped") return { kind: "done" };
    if (end.kind === "fault") return { kind: "fault", message: end.fault.message };
    if (io.modern) {
      const how = end.kind === "broken" ? `broke: ${end.message}` : "ended before its answer";
      return { kind: "lost", how: `its event stream ${how}` };
    }
    broke = end.kind === "broken" ? end.message : undefined;
    if (lastEventId === "" || resumptions >= MAX_RESUMPTIONS) break;
    const delay = Math.min(retryMs ?? DEFAULT_RESUME_DELAY_MS, MAX_RESUME_DELAY_MS);
    if (!(await io.sleep(delay))) return { kind: "done" };
    const again = await io.resume(lastEventId);
    if (!io.waiting()) return { kind: "done" };
    if (again === undefined) break;
    body = again;
  }
  return broke === undefined
    ? { kind: "unanswered", lastEventId }
    : { kind: "unanswered", lastEventId, broke };
}

/** Waits `ms` on `clock` unless `signal` aborts first; resolves whether it waited it out. */
export function sleepUnless(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const wake = () => {
      clock.clearTimer(timer);
      resolve(false);
    };
    const timer = clock.setTimer(ms, () => {
      signal.removeEventListener("abort", wake);
      resolve(true);
    });
    signal.addEventListener("abort", wake, { once: true });
  });
}

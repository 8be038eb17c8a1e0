// Private to client/transport/http/: the notifications a remote server's transport posts
// (`notifications/initialized`, `notifications/cancelled` in the handshake
// era). Each goes under a short deadline of its own, a few at a time;
// whatever becomes of one (no answer, a refusal, a broken connection), the
// client goes on: the requests themselves say what is wrong with a server.

import type { Clock } from "../clock.ts";
import type { HeaderList, Sent } from "./_read.ts";

/** How long a notification's POST may take before it is given up, in ms: 5 s. */
export const NOTIFICATION_TIMEOUT_MS = 5_000;
/**
 * The most notifications whose POSTs are open at once: 8. One more is
 * dropped (a cancellation is a courtesy: the request's own stream is already
 * closed), so that a server that answers none cannot make the client hold a
 * socket per cancelled call.
 */
export const MAX_OPEN_NOTIFICATIONS = 8;

type Send = (
  url: URL,
  init: { method: string; headers: HeaderList; body: Uint8Array<ArrayBuffer>; signal: AbortSignal },
) => Promise<Sent>;

/** Posts notifications within their deadline and their bound. */
export class Notifier {
  #clock: Clock;
  #send: Send;
  #open = 0;

  constructor(clock: Clock, send: Send) {
    this.#clock = clock;
    this.#send = send;
  }

  /** Notifications whose POSTs are open now. */
  get open(): number {
    return this.#open;
  }

  /** Posts one, unless {@linkcode MAX_OPEN_NOTIFICATIONS} are open; never fails. */
  async post(url: URL, headers: HeaderList, body: Uint8Array<ArrayBuffer>, signal: AbortSignal) {
    if (this.#open >= MAX_OPEN_NOTIFICATIONS) return;
    this.#open++;
    const controller = new AbortController();
    const timer = this.#clock.setTimer(NOTIFICATION_TIMEOUT_MS, () => controller.abort());
    try {
      const sent = await this.#send(url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.any([signal, controller.signal]),
      });
      if (sent.kind === "answer") sent.response.body?.cancel().catch(() => {});
    } finally {
      this.#clock.clearTimer(timer);
      this.#open--;
    }
  }
}

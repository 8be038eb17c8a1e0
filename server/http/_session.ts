// Private to server/http/: the endpoint's record of one legacy-era session
// (its requests in flight, its GET stream), and what a POST was routed to.
// The endpoint owns each session and ends it on DELETE, on eviction, at the
// server's close, or at once when its initialize is not answered with a
// result (or its client went before the answer): `end()` aborts its signal
// and closes its GET stream.

import type { JsonObject } from "../../codec/json.ts";
import type { EventStream } from "./_event_stream.ts";
import type { ServerSession } from "./exchange.ts";

// A session of the legacy era, as the endpoint keeps it.
export class Session implements ServerSession {
  readonly id = crypto.randomUUID();
  protocolVersion: string;
  readonly #controller = new AbortController();
  readonly inFlight = new Map<string, AbortController>();
  stream: EventStream | undefined;

  constructor(version: string) {
    this.protocolVersion = version;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  send(message: JsonObject): boolean {
    return this.stream?.send(message) ?? false;
  }

  end(): void {
    this.#controller.abort();
    this.stream?.close();
    this.stream = undefined;
  }
}

// What a POST turned out to carry, once its headers and body were checked.
export type Routed = { session: Session | undefined; version: string; opens: boolean };

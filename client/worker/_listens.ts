// Private to client/worker/: the 2026-07-28 `subscriptions/listen` requests
// in flight, by the main thread's ticket, each with the resource URIs it
// named, and what their notifications become. The first
// `notifications/subscriptions/acknowledged` of a listen is told as whether
// the server agreed to every URI it named (no text of the server's crosses);
// a later one is not told. A resource's update names the listen it came on,
// by the subscription id in its `_meta` (the listen's request id), so that
// the main thread tells it to that subscription alone.

import { isJsonObject, type JsonValue, parseJson } from "../../codec/json.ts";
import { META_SUBSCRIPTION_ID } from "../../codec/protocol.ts";
import { decodeUtf8 } from "../../codec/_utf8.ts";
import type { Notice } from "../thread/notices.ts";

const LISTEN = "subscriptions/listen";
const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
const UPDATED = "notifications/resources/updated";

/** The listens of one worker; `idOf` gives the request id a ticket was sent as. */
export class Listens {
  // The URIs each listen named, until its acknowledgment (then `null`).
  #named = new Map<number, readonly string[] | null>();
  #idOf: (ticket: number) => number | undefined;

  /** The listens of a worker whose tickets' request ids `idOf` gives. */
  constructor(idOf: (ticket: number) => number | undefined) {
    this.#idOf = idOf;
  }

  /** A request of `ticket` was sent: kept when it is a listen. */
  sent(ticket: number, method: string, params: string | Uint8Array): void {
    if (method !== LISTEN) return;
    const text = typeof params === "string" ? params : decodeUtf8(params);
    const parsed = text === undefined ? undefined : parseJson(text);
    this.#named.set(ticket, parsed?.ok ? namedUris(parsed.value) : []);
  }

  /** The request of `ticket` ended. */
  ended(ticket: number): void {
    if (this.#named.size > 0) this.#named.delete(ticket);
  }

  /**
   * What a notification of a listen's becomes: the acknowledgment's notice
   * (`null` for a later one, or one of no listen in flight), the ticket an
   * update came on (`undefined` when it names none of them), or `undefined`
   * for any other method.
   */
  acknowledgment(method: string, params: unknown): Notice | null | undefined {
    if (method !== ACKNOWLEDGED) return undefined;
    const ticket = this.#ticketOf(params);
    if (ticket === undefined) return null;
    const named = this.#named.get(ticket);
    if (named === null || named === undefined) return null;
    this.#named.set(ticket, null);
    const agreed = namedUris(params as JsonValue);
    const honored = named.every((uri) => agreed.includes(uri));
    return { kind: "acknowledged", ticket, honored };
  }

  /** The ticket of the listen a resource's update came on, when it names one in flight. */
  updateTicket(method: string, params: unknown): number | undefined {
    return method === UPDATED && this.#named.size > 0 ? this.#ticketOf(params) : undefined;
  }

  #ticketOf(params: unknown): number | undefined {
    if (!isJsonObject(params as JsonValue)) return undefined;
    const meta = (params as { _meta?: unknown })._meta;
    if (!isJsonObject(meta as JsonValue)) return undefined;
    const id = (meta as Record<string, unknown>)[META_SUBSCRIPTION_ID];
    if (typeof id !== "number") return undefined;
    for (const ticket of this.#named.keys()) {
      if (this.#idOf(ticket) === id) return ticket;
    }
    return undefined;
  }
}

/** The `notifications.resourceSubscriptions` strings of a listen's params or its acknowledgment. */
function namedUris(value: JsonValue): readonly string[] {
  if (!isJsonObject(value) || !isJsonObject(value.notifications)) return [];
  const uris = value.notifications.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === "string") : [];
}

/**
 * What a client's worker asks of the main thread (`ask`, answered by
 * `reply` in `to_worker.ts`), and the withdrawal of a server's request it
 * handed over (`withdrawn`): each event with its encoder and its decoder,
 * routed with the worker's other events by `from_worker.ts`.
 *
 * @module
 */

import type { JsonValue } from "../../codec/json.ts";
import { type Fields, isCount, isDuration, isOneOf, isRecord, isString } from "./guards.ts";
import { GROUP_SIGNALS, type GroupSignal } from "./evidence.ts";
import { type AuthRefusal, decodeRefusal } from "./auth.ts";
import { ASKED_METHODS, type AskedMethod } from "./asked.ts";

/** What a worker asks the main thread to do for it, answered by `reply` (`to_worker.ts`). */
export const ASK_METHODS = [
  "signal",
  "drain",
  "credentials",
  "challenge",
  "server_request",
] as const;

/**
 * An ask of the worker's, on a ticket of its own: signal the server's
 * process group, or, after its exit, check that the group drained (killing
 * survivors) within `deadlineMs` (answered with whether the signal was sent,
 * or the drain's verdict); or, for a remote server that signs in, the
 * credentials of a request to `target` (its first, or each one of a DPoP-bound
 * token), or new credentials for a request the server refused (answered with
 * an `AuthAnswer`, `auth.ts`); or the answer to a server's request that a
 * handler of the main thread's gives (`server_request`, answered with a
 * `ServerAnswer`, `asked.ts`).
 */
export type WorkerAsk =
  | { kind: "ask"; ticket: number; method: "signal"; pid: number; signal: GroupSignal }
  | { kind: "ask"; ticket: number; method: "drain"; pid: number; deadlineMs: number }
  | { kind: "ask"; ticket: number; method: "credentials"; target: RequestTarget }
  | { kind: "ask"; ticket: number; method: "challenge"; refusal: AuthRefusal }
  | {
    kind: "ask";
    ticket: number;
    method: "server_request";
    request: AskedMethod;
    params: JsonValue | null;
  };

/** Encodes a server's request handed to the main thread's handler (`null`: no params). */
export function encodeServerRequestAsk(
  ticket: number,
  request: AskedMethod,
  params: JsonValue | null,
): WorkerAsk {
  return { kind: "ask", ticket, method: "server_request", request, params };
}

/** The HTTP method and URL of a request, as far as its credentials depend on them. */
export type RequestTarget = { method: string; url: string };

/** Encodes a request for the credentials of a request to `target`. */
export function encodeCredentialsAsk(ticket: number, target: RequestTarget): WorkerAsk {
  return { kind: "ask", ticket, method: "credentials", target };
}

/** Encodes a refusal handed to the main thread's sign-in. */
export function encodeChallengeAsk(ticket: number, refusal: AuthRefusal): WorkerAsk {
  return { kind: "ask", ticket, method: "challenge", refusal };
}

/** Encodes a request to signal the group led by `pid`. */
export function encodeSignalAsk(ticket: number, pid: number, signal: GroupSignal): WorkerAsk {
  return { kind: "ask", ticket, method: "signal", pid, signal };
}

/** Encodes a request to check that the group led by `pid` drained. */
export function encodeDrainAsk(ticket: number, pid: number, deadlineMs: number): WorkerAsk {
  return { kind: "ask", ticket, method: "drain", pid, deadlineMs };
}

/** Decodes an ask, or `undefined` for anything else. */
export function decodeAsk(data: Fields): WorkerAsk | undefined {
  const { ticket, method, pid } = data;
  if (!isCount(ticket) || !isOneOf(ASK_METHODS, method)) return undefined;
  if (method === "credentials") {
    const target = data.target;
    return isRecord(target) && isString(target.method) && isString(target.url)
      ? encodeCredentialsAsk(ticket, { method: target.method, url: target.url })
      : undefined;
  }
  if (method === "server_request") {
    // The params are the server's, checked by the handler's side.
    return isOneOf(ASKED_METHODS, data.request) && data.params !== undefined
      ? encodeServerRequestAsk(ticket, data.request, structuredClone(data.params) as JsonValue)
      : undefined;
  }
  if (method === "challenge") {
    const refusal = isRecord(data.refusal) ? decodeRefusal(data.refusal) : undefined;
    return refusal === undefined ? undefined : encodeChallengeAsk(ticket, refusal);
  }
  if (!isCount(pid) || pid === 0) return undefined;
  if (method === "signal") {
    return isOneOf(GROUP_SIGNALS, data.signal)
      ? encodeSignalAsk(ticket, pid, data.signal)
      : undefined;
  }
  return isDuration(data.deadlineMs) ? encodeDrainAsk(ticket, pid, data.deadlineMs) : undefined;
}

/**
 * The server cancelled the request it handed over on ask `ticket`
 * (`notifications/cancelled`): the main thread aborts its handler's signal,
 * and the worker sends nothing of whatever the handler answers.
 */
export type Withdrawn = { kind: "withdrawn"; ticket: number };

/** Encodes the withdrawal of the server's request of ask `ticket`. */
export function encodeWithdrawn(ticket: number): Withdrawn {
  return { kind: "withdrawn", ticket };
}

/** Decodes a withdrawal, or `undefined` for anything else. */
export function decodeWithdrawn(data: Fields): Withdrawn | undefined {
  return isCount(data.ticket) ? encodeWithdrawn(data.ticket) : undefined;
}

/**
 * Where a client is in its life, and the rules of that life that both
 * threads answer by. The one state machine runs in the worker
 * (`client/worker/machine.ts`) and reports each change ({@linkcode StateReport});
 * the main thread's handle is what the worker last reported, and answers
 * with the same functions where no worker can be asked (a client never
 * started, a worker lost).
 *
 * @module
 */

import type { ClientError } from "./outcomes.ts";
import type { StartError } from "./outcomes.ts";
import { decodeEvidence, noResource, type RetirementEvidence } from "./evidence.ts";
import { decodeClientError } from "./outcomes.ts";
import { type Fields, isOneOf } from "./guards.ts";

/**
 * Every {@linkcode ClientState}, in the order of a client's life: `parked`
 * (nothing spawned), `connecting`, `ready`, `failed` (its start), `dead`
 * (its server was lost), `retiring`, `retired`.
 */
export const CLIENT_STATES = [
  "parked",
  "connecting",
  "ready",
  "failed",
  "dead",
  "retiring",
  "retired",
] as const;

/** Where a client is in its life, on either side of the worker boundary. */
export type ClientState = (typeof CLIENT_STATES)[number];

/** What the state machine reports of a client's life, each time it changes. */
export type StateReport = {
  /** Where the client is. */
  state: ClientState;
  /** Why the client's calls are refused, latched at its death (`unavailable`); `null` while it lives. */
  death: ClientError | null;
  /** The retirement evidence, once confirmed. */
  evidence: RetirementEvidence | null;
};

/** The report of a client made and not started. */
export function parkedReport(): StateReport {
  return { state: "parked", death: null, evidence: null };
}

/**
 * The error a call gets from a client that is not ready: its latched death
 * (with the stderr tail as it is now), or, while it has none, that it is not
 * connected yet.
 */
export function unavailableOf(report: StateReport, name: string, stderrTail: string): ClientError {
  const death = report.death;
  if (death !== null && death.kind === "unavailable") return { ...death, stderrTail };
  return {
    kind: "unavailable",
    cause: "not_connected",
    message: `Client "${name}" is ${report.state}, not ready; connect it first`,
    stderrTail,
  };
}

/** What `connect` answers a client that was started before, or retired without a start. */
export function cannotConnect(name: string, state: ClientState, stderrTail: string): StartError {
  return {
    kind: "transport_failed",
    message: `Cannot connect client "${name}": it is ${state}`,
    stderrTail,
  };
}

/** The death a retirement latches: from then on every call says the client was retired. */
export function retiredDeath(name: string): ClientError {
  return {
    kind: "unavailable",
    cause: "shutdown",
    message: `Client "${name}" was retired`,
    stderrTail: "",
  };
}

/**
 * What a retirement answers at once, with nothing to stop: the evidence
 * already confirmed, or `no_resource` for a client never started, and the
 * report after it. `undefined` when there is a server to stop.
 */
export function retiredAtOnce(
  report: StateReport,
  name: string,
): (StateReport & { evidence: RetirementEvidence }) | undefined {
  const evidence = report.evidence;
  if (evidence !== null) return { ...report, state: "retired", evidence };
  if (report.state !== "parked") return undefined;
  return { state: "retired", death: retiredDeath(name), evidence: noResource() };
}

/** Decodes a state report that crossed the boundary. */
export function decodeStateReport(value: Fields): StateReport | undefined {
  const { state, death, evidence } = value;
  if (!isOneOf(CLIENT_STATES, state)) return undefined;
  const latched = death === null ? null : decodeClientError(death);
  const confirmed = evidence === null ? null : decodeEvidence(evidence);
  if (latched === undefined || confirmed === undefined) return undefined;
  return { state, death: latched, evidence: confirmed };
}

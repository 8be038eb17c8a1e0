/**
 * A run's report as a model is shown it: its returned value, its logs and
 * its calls' records together within `maxOutputBytes` of JSON, cut
 * structurally (`_cut.ts`) where they do not fit, the whole values kept in
 * `report.full`. Private to the runner.
 *
 * The logs are already bounded by the same cap while the program runs (past
 * it the run is killed for its output); what they leave is shared by the
 * returned value and the calls: the calls get what they need up to a
 * quarter of it, the value the rest, and the calls whatever the value
 * leaves. Among the calls, a record that fits its share is kept whole, and
 * the room it leaves goes to the others. A result's content blocks stay
 * content blocks: a cut list of blocks ends with a text block saying how
 * many were cut.
 *
 * @module
 */

import type { CallToolResult } from "../../codec/protocol.ts";
import { cutMarker, cutToBudget, jsonBytes, measureJson as measured } from "./_cut.ts";
import { CUT_KEY } from "./limits.ts";
import type { CallRecord, RunOutcome, RunReport } from "./run.ts";

// `{"outcome":{"kind":"returned","value":},"logs":,"calls":}`, with room to spare.
const ENVELOPE_BYTES = 64;
// A call record cut as far as it goes still names its server and tool.
const RECORD_FLOORS = { stringBytes: 64, keys: 16, depth: 4 };

/** The report within its budget; the same report when it fits as it is. */
export function withinBudget(report: RunReport): RunReport {
  const budget = report.limits.maxOutputBytes;
  const room = Math.max(0, budget - jsonBytes(report.logs) - ENVELOPE_BYTES);
  const returned = report.outcome.kind === "returned";
  const value = returned ? (report.outcome as { value: unknown }).value : undefined;
  const valueNeed = returned ? measured(value, room) : 0;
  const callsNeed = measured(report.calls, room);
  if (valueNeed + callsNeed <= room) return report;

  let callsBudget = Math.min(callsNeed, Math.floor(room / 4));
  const valueBudget = Math.min(valueNeed, room - callsBudget);
  callsBudget = room - valueBudget;
  const outcome: RunOutcome = returned
    ? { kind: "returned", value: shownValue(value, valueBudget) }
    : report.outcome;
  return {
    ...report,
    outcome,
    calls: shownCalls(report.calls, callsBudget),
    full: { outcome: report.outcome, calls: report.calls },
  };
}

function shownValue(value: unknown, budget: number): unknown {
  if (budget <= 0) {
    return cutMarker(`the returned value, ${jsonBytes(value)} bytes: the logs took the budget`);
  }
  return cutToBudget(value, budget).value;
}

/** The records within `budget`, each whole when it fits its share (see the module doc). */
function shownCalls(records: CallRecord[], budget: number): CallRecord[] {
  const sizes = records.map((record) => measured(record, budget));
  const order = records.map((_, index) => index).sort((a, b) =>
    (sizes[a] as number) - (sizes[b] as number)
  );
  const shown: CallRecord[] = [...records];
  let left = Math.max(0, budget - 2 - records.length);
  order.forEach((index, position) => {
    const share = Math.floor(left / (records.length - position));
    const size = sizes[index] as number;
    const record = records[index] as CallRecord;
    if (size <= share) {
      left -= size;
      return;
    }
    shown[index] = cutRecord(record, share);
    left -= Math.min(share, jsonBytes(shown[index]));
  });
  return shown;
}

/** One record within `budget`: its arguments get a third of what it leaves, its result the rest. */
function cutRecord(record: CallRecord, budget: number): CallRecord {
  const fixed = jsonBytes({ ...record, args: null, outcome: { ok: true, value: null } });
  const room = Math.max(0, budget - fixed);
  const argsBudget = Math.min(measured(record.args, room), Math.floor(room / 3));
  const args = cutToBudget(record.args, Math.max(argsBudget, 1), RECORD_FLOORS).value;
  const left = Math.max(1, room - jsonBytes(args));
  const outcome = record.outcome.ok
    ? { ok: true as const, value: cutResult(record.outcome.value, left) }
    : record.outcome;
  return { ...record, args, outcome };
}

/** A tool result within `budget`, its blocks still content blocks. */
function cutResult(result: CallToolResult, budget: number): CallToolResult {
  const cut = cutToBudget(result, budget, RECORD_FLOORS).value as Record<string, unknown>;
  if (!Array.isArray(cut.content)) {
    const what = typeof cut[CUT_KEY] === "string" ? cut[CUT_KEY] : "the result";
    return { content: [{ type: "text", text: `[${what} cut]` }], isError: result.isError };
  }
  const content = cut.content.map((block: unknown) => {
    const marker = (block as Record<string, unknown>)[CUT_KEY];
    if (typeof marker !== "string") return block;
    const rest = /^(\d+) more items?$/.exec(marker)?.[1];
    const what = rest === undefined
      ? marker
      : `${rest} more content block${rest === "1" ? "" : "s"}`;
    return { type: "text", text: `[${what} cut]` };
  });
  return { ...(cut as unknown as CallToolResult), content } as CallToolResult;
}

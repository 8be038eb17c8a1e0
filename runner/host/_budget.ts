/**
 * A run's report as a model is shown it: its outcome (whatever its kind: a
 * returned value, a thrown message and stack, a kill's words, a rejection's
 * diagnostics), its logs and its calls' records together within
 * `maxOutputBytes` of JSON, cut structurally (`_cut.ts`) where they do not
 * fit, the whole outcome, logs and calls kept in `report.full`. Private to
 * the runner.
 *
 * The three share the budget: each that needs no more than its share is
 * kept whole and leaves the rest to the others; the outcome's share weighs
 * twice the others'. Among the calls, a record that fits its share is kept
 * whole, and the room it leaves goes to the others; a record that does not
 * is cut in every part a server or a program wrote (its server and tool
 * names, its arguments, its result or its error), so a forged name or a
 * server's long error costs no more than its share. A result's content
 * blocks stay content blocks: a cut list of blocks ends with a text block
 * saying how many were cut. Logs are kept in order while they fit; the last
 * entry shown then says how many were cut.
 *
 * @module
 */

import type { CallToolResult } from "../../codec/protocol.ts";
import { cutMarker, cutText, cutToBudget, jsonBytes, measureJson as measured } from "./_cut.ts";
import { CUT_KEY } from "./limits.ts";
import type { CallRecord, RunOutcome, RunReport } from "./run.ts";

// `{"outcome":,"logs":,"calls":}`, with room to spare.
const ENVELOPE_BYTES = 48;
// A call record cut as far as it goes still says what it was.
const RECORD_FLOORS = { stringBytes: 64, keys: 16, depth: 4 };
// An outcome other than a returned value keeps its kind and fields.
const OUTCOME_FLOORS = { stringBytes: 64, keys: 16, depth: 8 };
// The most of a record's share its server and tool names may take.
const NAME_SHARE = 1 / 8;

/** The report within its budget; the same report when it fits as it is. */
export function withinBudget(report: RunReport): RunReport {
  const budget = report.limits.maxOutputBytes;
  const room = Math.max(0, budget - ENVELOPE_BYTES);
  const needs = [
    measured(report.outcome, room),
    measured(report.logs, room),
    measured(report.calls, room),
  ];
  if ((needs[0] as number) + (needs[1] as number) + (needs[2] as number) <= room) return report;
  const [outcomeShare, logsShare, callsShare] = shares(needs, [2, 1, 1], room);
  return {
    ...report,
    outcome: shownOutcome(report.outcome, outcomeShare as number),
    logs: shownLogs(report.logs, logsShare as number),
    calls: shownCalls(report.calls, callsShare as number),
    full: { outcome: report.outcome, logs: report.logs, calls: report.calls },
  };
}

/**
 * `room` shared by weight: a part that needs less than its share gets what
 * it needs, and what it leaves is shared again among the others.
 */
function shares(needs: number[], weights: number[], room: number): number[] {
  const out = needs.map(() => 0);
  const open = new Set(needs.keys());
  let left = room;
  while (open.size > 0) {
    let weight = 0;
    for (const index of open) weight += weights[index] as number;
    const satisfied = [...open].filter((index) =>
      (needs[index] as number) <= left * (weights[index] as number) / weight
    );
    if (satisfied.length === 0) {
      for (const index of open) {
        out[index] = Math.floor(left * (weights[index] as number) / weight);
      }
      break;
    }
    for (const index of satisfied) {
      out[index] = needs[index] as number;
      left -= needs[index] as number;
      open.delete(index);
    }
  }
  return out;
}

/** The outcome within `budget`: a returned value cut as a value, any other kind field by field. */
function shownOutcome(outcome: RunOutcome, budget: number): RunOutcome {
  if (jsonBytes(outcome) <= budget) return outcome;
  if (outcome.kind === "returned") {
    const room = budget - jsonBytes({ kind: "returned", value: null }) + 4;
    const value = room <= 0
      ? cutMarker(`the returned value, ${jsonBytes(outcome.value)} bytes: the budget is taken`)
      : cutToBudget(outcome.value, room).value;
    return { kind: "returned", value };
  }
  const cut = cutToBudget(outcome, budget, OUTCOME_FLOORS).value as Record<string, unknown>;
  if (cut.kind === outcome.kind) return cut as RunOutcome;
  // Past what the floors allow, its kind stays and each text says only its size.
  const bare: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(outcome)) {
    bare[key] = key === "kind" || typeof value === "number"
      ? value
      : typeof value === "string"
      ? cutText(value, 0)
      : [];
  }
  return bare as RunOutcome;
}

/** The logs within `budget`, in order; when some are cut, the last entry says how many. */
function shownLogs(logs: string[], budget: number): string[] {
  if (jsonBytes(logs) <= budget) return logs;
  const shown: string[] = [];
  // Room for the entry that says what was cut.
  let left = budget - 2 - jsonBytes(`[${logs.length} log entries cut]`) - 1;
  for (const entry of logs) {
    const bytes = jsonBytes(entry) + 1;
    if (bytes > left) break;
    shown.push(entry);
    left -= bytes;
  }
  const whole = shown.length;
  // One entry longer than the room still shows its head.
  const next = logs[whole];
  if (next !== undefined && left > 64) shown.push(cutText(next, left - 1));
  const rest = logs.length - whole;
  shown.push(`[${rest} log entr${rest === 1 ? "y" : "ies"} cut]`);
  return shown;
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
  if (jsonBytes(shown) <= budget) return shown;
  // More records than even their floors fit: the list keeps its first ones and a marker.
  return cutToBudget(shown, budget, RECORD_FLOORS).value as CallRecord[];
}

/**
 * One record within `budget`: its names a bounded part, its arguments a
 * third of what is left, its result or error the rest.
 */
function cutRecord(record: CallRecord, budget: number): CallRecord {
  const nameBytes = Math.max(32, Math.floor(budget * NAME_SHARE));
  const server = cutText(record.server, nameBytes);
  const tool = cutText(record.tool, nameBytes);
  const named: CallRecord = { ...record, server, tool };
  if (record.warnings !== undefined) {
    named.warnings = cutToBudget(record.warnings, nameBytes, RECORD_FLOORS).value as string[];
  }
  const fixed = jsonBytes({ ...named, args: null, outcome: { ok: true, value: null } });
  const room = Math.max(0, budget - fixed);
  const argsBudget = Math.min(measured(record.args, room), Math.floor(room / 3));
  const args = cutToBudget(record.args, Math.max(argsBudget, 1), RECORD_FLOORS).value;
  const left = Math.max(1, room - jsonBytes(args));
  const outcome = record.outcome.ok
    ? { ok: true as const, value: cutResult(record.outcome.value, left) }
    : { ok: false as const, error: cutError(record.outcome.error, left) };
  return { ...named, args, outcome };
}

/** A call's failure within `budget`, still with its kind and a message. */
function cutError(
  error: { kind: string; message: string },
  budget: number,
): { kind: string; message: string } {
  if (jsonBytes(error) <= budget) return error;
  const cut = cutToBudget(error, budget, RECORD_FLOORS).value as Record<string, unknown>;
  if (typeof cut.kind === "string" && typeof cut.message === "string") {
    return cut as { kind: string; message: string };
  }
  return { kind: cutText(error.kind, 64), message: cutText(error.message, 0) };
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

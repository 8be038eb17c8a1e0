/**
 * The tool calls of one run in a sandbox: what the report keeps of each
 * (bounded arguments, the outcome, the time), the calls still in flight, and
 * their end. Private to the runner.
 *
 * Lifecycle: {@linkcode CallLedger.start} runs each call through the
 * harness's `call` with the ledger's signal; {@linkcode CallLedger.end}
 * aborts that signal (the harness's client cancels the request and tells
 * the server), waits up to `RUN_GRACE_MS` for the calls to settle, records
 * those that did not as `call_abandoned`, and freezes the records: a late
 * outcome changes nothing.
 *
 * @module
 */

import { err, type Result } from "../../codec/result.ts";
import { reportValue } from "../../codec/report_value.ts";
import type {
  CallContext,
  CallFailure,
  CallFunction,
  CallRecord,
  CallResult,
  RunOptions,
} from "./run.ts";
import {
  MAX_CALL_ARGS_BYTES,
  MAX_REPORT_ARGS_BYTES,
  RUN_GRACE_MS,
  TRUNCATION_MARKER,
} from "./limits.ts";

const encoder = new TextEncoder();
const lenient = new TextDecoder();
const MARKER_BYTES = encoder.encode(TRUNCATION_MARKER).length;

function exactBigints(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** Every call of one run (see the module doc). */
export class CallLedger {
  readonly records: CallRecord[] = [];
  readonly #call: CallFunction;
  readonly #context: Omit<CallContext, "signal">;
  readonly #end = new AbortController();
  readonly #inflight = new Set<Promise<void>>();
  readonly #pending = new Set<number>();
  #argsBytes = 0;
  #closed = false;

  readonly #onProgress: RunOptions["onProgress"];

  /**
   * A ledger whose calls go through `call`, each told `context` (the run, its
   * hook); `onProgress` hears what each call reports, with its call id.
   */
  constructor(
    call: CallFunction,
    context: Omit<CallContext, "signal" | "resource" | "onProgress" | "asked"> = {},
    onProgress?: RunOptions["onProgress"],
  ) {
    this.#call = call;
    this.#context = context;
    this.#onProgress = onProgress;
  }

  /** Whether a call with this id is still in flight. */
  pending(id: number): boolean {
    return this.#pending.has(id);
  }

  /**
   * Records one call and runs it; `settled` gets its outcome unless the
   * ledger has ended by then.
   */
  start(
    call: {
      id: number;
      server: string;
      tool: string;
      args: unknown;
      resource?: true;
      /** What carries this one instead of the harness's call (a program's listing, say). */
      carry?: (context: CallContext) => Promise<Result<CallResult, CallFailure>>;
    },
    settled: (outcome: Result<CallResult, CallFailure>) => void,
  ): void {
    const record: CallRecord = {
      server: call.server,
      tool: call.tool,
      ...this.#keepArgs(call.args),
      outcome: err({ kind: "call_pending", message: "The call has not settled" }),
      durationMs: 0,
    };
    // The call's id is its record's place in the report.
    const callId = this.records.length;
    this.records.push(record);
    const hear = this.#onProgress;
    const options: CallContext = { ...this.#context, signal: this.#end.signal };
    if (call.resource === true) options.resource = true;
    if (hear !== undefined) {
      options.onProgress = (progress) => {
        if (!this.#closed) hear(callId, progress);
      };
    }
    options.asked = (kind) => {
      if (this.#closed) return;
      const asked = record.asked ??= { elicitations: 0, samplings: 0 };
      if (kind === "elicitation") asked.elicitations++;
      else asked.samplings++;
    };
    this.#pending.add(call.id);
    const started = performance.now();
    const done = (async () => {
      let outcome: Result<CallResult, CallFailure>;
      try {
        outcome = call.carry === undefined
          ? await this.#call(call.server, call.tool, call.args, options)
          : await call.carry(options);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        outcome = err({ kind: "call_failed", message: `The harness's call threw: ${reason}` });
      }
      // Past the grace the report is returned: it is not changed any more.
      if (this.#closed) return;
      record.outcome = outcome;
      if (outcome.ok && outcome.value.warnings !== undefined) {
        record.warnings = outcome.value.warnings;
      }
      record.durationMs = performance.now() - started;
      this.#pending.delete(call.id);
      settled(outcome);
    })();
    this.#inflight.add(done);
    done.finally(() => this.#inflight.delete(done));
  }

  /** Cancels what is in flight and waits for it, at most `RUN_GRACE_MS`. */
  async end(): Promise<void> {
    this.#end.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<false>((resolve) => timer = setTimeout(resolve, RUN_GRACE_MS, false));
    try {
      while (this.#inflight.size > 0) {
        const all = Promise.all(this.#inflight).then(() => true);
        if (!await Promise.race([all, grace])) break;
      }
    } finally {
      clearTimeout(timer);
    }
    this.#closed = true;
    for (const record of this.records) {
      if (record.outcome.ok || record.outcome.error.kind !== "call_pending") continue;
      record.outcome = err({
        kind: "call_abandoned",
        message: `The call did not settle within ${RUN_GRACE_MS} ms of the run's end`,
      });
    }
  }

  /** What the report keeps of one call's arguments: plain data, within both caps. */
  #keepArgs(value: unknown): Pick<CallRecord, "args" | "argsBytes" | "argsTruncated"> {
    const args = reportValue(value);
    const bytes = encoder.encode(JSON.stringify(args, exactBigints) ?? "undefined");
    const room = Math.min(MAX_CALL_ARGS_BYTES, MAX_REPORT_ARGS_BYTES - this.#argsBytes);
    if (bytes.length <= room) {
      this.#argsBytes += bytes.length;
      return { args, argsBytes: bytes.length, argsTruncated: false };
    }
    const keep = Math.max(0, room - MARKER_BYTES);
    const prefix = lenient.decode(bytes.subarray(0, keep)).replace(/\uFFFD$/, "");
    this.#argsBytes += keep + MARKER_BYTES;
    return { args: prefix + TRUNCATION_MARKER, argsBytes: bytes.length, argsTruncated: true };
  }
}

// Private to cli/: the `run` command. It reads a program (a file, or standard
// input for "-"), boots only the servers the program imports, runs it in the
// sandbox, prints its result, logs and calls (or, with --json, the whole
// report), and retires every server it booted.

import { joinBytes } from "../codec/_bytes.ts";
import { quote } from "../codec/quote.ts";
import { reportJson } from "../codec/report_value.ts";
import type { Harness, ServerReport } from "../harness/harness.ts";
import { DEFAULT_CALL_TIMEOUT_MS, type ServerSpec } from "../settings/mod.ts";
import {
  DEFAULT_RUN_TIMEOUT_MS,
  formatDiagnostics,
  importedSegments,
  MAX_PROGRAM_BYTES,
  type RunOutcome,
  type RunReport,
} from "../harness/mod.ts";
import { duration, oneLine, printable, table, tailLines } from "./_render.ts";
import type { Output } from "./_output.ts";
import type { Doing } from "./_with_harness.ts";
import {
  APPROVE_CALL_TIMEOUT_MS,
  APPROVE_RUN_TIMEOUT_MS,
  deniedWithoutTerminal,
  terminalApproval,
  TerminalLines,
} from "./_approve.ts";
import { ProgressLine } from "./_progress_line.ts";
import { stdinPump } from "./_terminal.ts";

/** The columns a diagnostic's message is wrapped at, after its `error: ` (never cut). */
export const DIAGNOSTIC_WIDTH = 93;

/** What `run` needs from the command line. */
export type RunCommand = {
  program: string;
  json: boolean;
  deadlineMs?: number;
  /** `--approve`: ask before each call not marked read-only (`_approve.ts`). */
  approve?: boolean;
  /**
   * Whether a person can be asked: standard input and standard error are a
   * terminal, and the program was not read from standard input (by default,
   * as the process finds them).
   */
  terminal?: boolean;
};

/** How `run` boots servers and retires them: the command line's own session. */
export type WithHarness = (
  specs: readonly ServerSpec[],
  body: (harness: Harness, signal: AbortSignal) => Promise<number>,
) => Promise<number>;

/** Exit statuses, as every command uses them. */
export type ExitCodes = { ok: number; failed: number; usage: number };

/** Reads the program: a file, or all of standard input for "-". */
export async function readProgram(path: string): Promise<{ source: string } | { error: string }> {
  let bytes: Uint8Array;
  try {
    if (path === "-") {
      bytes = await readCapped(Deno.stdin.readable);
    } else {
      const info = await Deno.stat(path);
      if (info.size > MAX_PROGRAM_BYTES) return { error: tooLarge(path) };
      bytes = await Deno.readFile(path);
    }
  } catch (error) {
    if (error instanceof RangeError) return { error: tooLarge(path) };
    const why = error instanceof Error ? error.message : String(error);
    return { error: `cannot read the program ${quote(path)}: ${oneLine(why)}` };
  }
  if (bytes.length > MAX_PROGRAM_BYTES) return { error: tooLarge(path) };
  try {
    return { source: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { error: `the program ${quote(path)} is not UTF-8 text` };
  }
}

function tooLarge(path: string): string {
  return `the program ${quote(path)} is larger than ${MAX_PROGRAM_BYTES} bytes`;
}

async function readCapped(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > MAX_PROGRAM_BYTES) throw new RangeError("too large");
    chunks.push(chunk);
  }
  return joinBytes(chunks, total);
}

/**
 * Runs the program against the servers it imports. Exit status: `ok` when it
 * returned, `failed` when a server failed to boot or the program was
 * rejected, threw or was stopped, `usage` when it imports a server the
 * catalog does not have.
 */
export async function runCommand(
  source: string,
  specs: readonly ServerSpec[],
  options: RunCommand & {
    codes: ExitCodes;
    withHarness: WithHarness;
    output: Output;
    doing: Doing;
    startMessage: (report: ServerReport & { state: "failed" }) => string;
  },
): Promise<number> {
  const { codes, json, output } = options;
  const wanted = importedSegments(source);
  const missing = wanted.filter((name) => !specs.some((spec) => spec.name === name));
  if (missing.length > 0) {
    const known = specs.length === 0 ? "none" : specs.map((spec) => spec.name).join(", ");
    output.error(
      `the program imports ${missing.map((name) => `./mcp/${name}.ts`).join(", ")}, ` +
        `but the catalog has no such server; its servers: ${known}`,
    );
    return codes.usage;
  }
  const approval = options.approve === true ? approvalPlan(options) : undefined;
  if (approval?.without !== undefined) {
    output.warn(
      `--approve has no terminal to ask on (${approval.without}): every call not marked ` +
        "read-only is denied",
    );
  }
  const chosen = specs.filter((spec) => wanted.includes(spec.name)).map((spec) =>
    // A person asked needs longer than the default deadline a program's call has.
    approval?.asks === true && spec.callTimeoutMs === undefined
      ? { ...spec, callTimeoutMs: APPROVE_CALL_TIMEOUT_MS }
      : spec
  );
  const timeoutMs = options.deadlineMs ??
    (approval?.asks === true ? APPROVE_RUN_TIMEOUT_MS : undefined);
  return await options.withHarness(chosen, async (harness, signal) => {
    const failed = [...harness.reports.values()].filter((report) => report.state === "failed");
    if (failed.length > 0) {
      if (json) print(output, { servers: servers(harness), report: null });
      for (const report of failed) {
        output.error(
          `server ${quote(report.name)} failed to ${report.failure.stage}: ` +
            `${options.startMessage(report)}; the program did not run`,
        );
        for (const line of tailLines(report.stderrTail)) output.detail(`  stderr: ${line}`);
      }
      return codes.failed;
    }
    options.doing.now = `running ${options.program === "-" ? "the program" : options.program}`;
    const asking = approval === undefined ? undefined : approval.asks
      ? terminalApproval({
        output,
        // The one reader of standard input, shared with a server's questions.
        lines: new TerminalLines(stdinPump().read),
        callTimeoutMs: (server) =>
          chosen.find((spec) => spec.name === server)?.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
        runTimeoutMs: timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS,
      })
      : deniedWithoutTerminal(approval.without ?? "");
    // Progress is asked for only where it is shown, the status line of a terminal; a call is
    // named by its place in the report.
    const shown = !json && !output.quiet && output.statusInPlace;
    const line = shown ? new ProgressLine(output) : undefined;
    let report: RunReport;
    try {
      report = await harness.run(source, {
        signal,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        // A program read from a file is named by it in its diagnostics.
        ...(options.program === "-" ? {} : { programName: options.program }),
        ...(asking === undefined ? {} : { approve: asking.approve }),
        ...(line === undefined
          ? {}
          : { onProgress: (id: number, progress) => line.report(`call ${id + 1}`, progress) }),
      });
    } finally {
      asking?.close();
      line?.end();
    }
    if (json) print(output, { servers: servers(harness), report });
    else show(report, output);
    return report.outcome.kind === "returned" ? codes.ok : codes.failed;
  });
}

// Whether `--approve` can ask a person, and if not, why not.
function approvalPlan(options: RunCommand): { asks: true; without?: never } | {
  asks: false;
  without: string;
} {
  if (options.program === "-") {
    return { asks: false, without: "standard input is the program" };
  }
  if (options.terminal ?? (Deno.stdin.isTerminal() && Deno.stderr.isTerminal())) {
    return { asks: true };
  }
  return {
    asks: false,
    without: Deno.stdin.isTerminal()
      ? "standard error is not a terminal"
      : "standard input is not a terminal",
  };
}

function servers(harness: Harness): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, report] of harness.reports) {
    out[name] = report.state === "ready" ? { state: "ready", tools: report.tools.length } : {
      state: "failed",
      stage: report.failure.stage,
      message: report.message,
      stderrTail: report.stderrTail,
    };
  }
  return out;
}

// A Ctrl-C typed on a terminal reaches the sandbox too (it is in the
// terminal's process group): a sandbox ended by SIGINT or SIGTERM was
// interrupted, whichever of the two processes heard it first.
function interrupted(outcome: RunOutcome): boolean {
  return outcome.kind === "killed" &&
    (outcome.reason === "aborted" ||
      outcome.reason === "channel" && /\(signal SIG(?:INT|TERM)\)/.test(outcome.message));
}

// Why the program was stopped, named for what happened.
function stopped(outcome: Extract<RunOutcome, { kind: "killed" }>, report: RunReport): string {
  if (interrupted(outcome)) return "the program was interrupted (Ctrl-C) and stopped";
  switch (outcome.reason) {
    case "timeout":
      return `the program ran past its deadline of ${
        duration(report.limits.timeoutMs)
      } and was stopped; give it longer with run --deadline (such as --deadline 2m)`;
    case "aborted":
      return "the program was interrupted (Ctrl-C) and stopped";
    case "calls":
      return `the program made more than ${report.limits.maxCalls} calls and was stopped`;
    default:
      return `the program was stopped (${outcome.reason}): ${oneLine(outcome.message)}`;
  }
}

// A call the run's end cancelled is said so, with why.
function callState(call: RunReport["calls"][number], report: RunReport): string {
  if (call.outcome.ok) return call.outcome.value.isError ? "isError" : "ok";
  const failure = call.outcome.error;
  const outcome = report.outcome;
  if (failure.kind === "call_timed_out" && /cancelled/.test(failure.message)) {
    if (interrupted(outcome)) return "cancelled by Ctrl-C";
    if (outcome.kind === "killed" && outcome.reason === "timeout") {
      return "cancelled at the run's deadline";
    }
    return "cancelled";
  }
  return failure.kind;
}

function show(report: RunReport, output: Output): void {
  const { outcome } = report;
  switch (outcome.kind) {
    case "returned":
      output.result(
        outcome.value === undefined
          ? "(no result: the program has no export default)"
          : printable(reportJson(outcome.value, 2)),
      );
      break;
    case "exited":
      output.error(`the program called Deno.exit(${outcome.code})`);
      break;
    case "threw":
      output.error(`the program threw ${oneLine(`${outcome.name}: ${outcome.message}`)}`);
      for (const line of outcome.stack.split("\n").slice(1, 6)) {
        if (line.trim() !== "") output.detail(`  ${oneLine(line.trim())}`);
      }
      break;
    case "killed":
      output.error(stopped(outcome, report));
      break;
    case "refused":
      output.error(oneLine(outcome.message));
      break;
    case "rejected":
      for (const diagnostic of outcome.diagnostics) {
        output.error(printable(formatDiagnostics([diagnostic], { width: DIAGNOSTIC_WIDTH })));
      }
      output.error("the program did not run; fix it and run it again");
      break;
  }
  if (report.logs.length > 0) {
    output.detail(`\nLogs\n${report.logs.map((line) => `  ${oneLine(line)}`).join("\n")}`);
  }
  if (report.calls.length > 0) {
    const rows = report.calls.map((call) => [
      `${oneLine(call.server, 40)}.${oneLine(call.tool, 60)}`,
      callState(call, report),
      `${call.durationMs.toFixed(1)} ms`,
      oneLine(reportJson(call.args), 80),
    ]);
    output.detail(`\nCalls\n${table(rows)}`);
  }
  if (report.limits.hit.length > 0) output.detail(`\nLimits hit: ${report.limits.hit.join(", ")}`);
}

function print(output: Output, value: unknown): void {
  output.result(reportJson(value, 2));
}

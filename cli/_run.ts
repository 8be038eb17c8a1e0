// Private to cli/: the `run` command. It reads a program (a file, or standard
// input for "-"), boots only the servers the program imports, runs it in the
// sandbox, prints its result, logs and calls (or, with --json, the whole
// report), and retires every server it booted.

import { joinBytes } from "../codec/_bytes.ts";
import { quote } from "../codec/quote.ts";
import { reportJson } from "../codec/report_value.ts";
import type { Harness, ServerReport } from "../harness/harness.ts";
import type { ServerSpec } from "../spec/mod.ts";
import {
  formatDiagnostics,
  importedSegments,
  MAX_PROGRAM_BYTES,
  type RunReport,
} from "../harness/mod.ts";
import { oneLine, printable, table, tailLines } from "./_render.ts";

/** The columns a diagnostic's message is wrapped at, after its `error: ` (never cut). */
export const DIAGNOSTIC_WIDTH = 93;

/** What `run` needs from the command line. */
export type RunCommand = { program: string; json: boolean };

/** How `run` boots servers and retires them: the command line's own session. */
export type WithHarness = (
  specs: readonly ServerSpec[],
  body: (harness: Harness) => Promise<number>,
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
    return { error: `cannot read the program ${quote(path)}: ${oneLine(why, 200)}` };
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
  options: {
    json: boolean;
    codes: ExitCodes;
    withHarness: WithHarness;
    /** The program's file as given, which its diagnostics name; none for standard input. */
    programName?: string | undefined;
  },
): Promise<number> {
  const { codes, json } = options;
  const wanted = importedSegments(source);
  const missing = wanted.filter((name) => !specs.some((spec) => spec.name === name));
  if (missing.length > 0) {
    const known = specs.length === 0 ? "none" : specs.map((spec) => spec.name).join(", ");
    console.error(
      `error: the program imports ${missing.map((name) => `./mcp/${name}.ts`).join(", ")}, ` +
        `but the catalog has no such server; its servers: ${known}`,
    );
    return codes.usage;
  }
  const chosen = specs.filter((spec) => wanted.includes(spec.name));
  return await options.withHarness(chosen, async (harness) => {
    const failed = [...harness.reports.values()].filter((report) => report.state === "failed");
    if (failed.length > 0) {
      if (json) print({ servers: servers(harness), report: null });
      for (const report of failed) showFailure(report);
      return codes.failed;
    }
    const report = await harness.run(
      source,
      options.programName === undefined ? {} : { programName: options.programName },
    );
    if (json) print({ servers: servers(harness), report });
    else show(report);
    return report.outcome.kind === "returned" ? codes.ok : codes.failed;
  });
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

function showFailure(report: ServerReport & { state: "failed" }): void {
  console.error(
    `error: server ${quote(report.name)} failed to ${report.failure.stage}: ` +
      `${oneLine(report.message, 300)}; the program did not run`,
  );
  for (const line of tailLines(report.stderrTail)) console.error(`  stderr: ${line}`);
}

function show(report: RunReport): void {
  const { outcome } = report;
  switch (outcome.kind) {
    case "returned":
      console.log(
        outcome.value === undefined
          ? "(no result: the program has no export default)"
          : printable(reportJson(outcome.value, 2)),
      );
      break;
    case "threw":
      console.error(`error: the program threw ${oneLine(`${outcome.name}: ${outcome.message}`)}`);
      for (const line of outcome.stack.split("\n").slice(1, 6)) {
        if (line.trim() !== "") console.error(`  ${oneLine(line.trim(), 200)}`);
      }
      break;
    case "killed":
      console.error(
        `error: the program was stopped (${outcome.reason}): ${oneLine(outcome.message)}`,
      );
      break;
    case "refused":
      console.error(`error: ${oneLine(outcome.message)}`);
      break;
    case "rejected":
      for (const diagnostic of outcome.diagnostics) {
        const text = formatDiagnostics([diagnostic], { width: DIAGNOSTIC_WIDTH });
        console.error(`error: ${printable(text)}`);
      }
      console.error("error: the program did not run; fix it and run it again");
      break;
  }
  if (report.logs.length > 0) {
    console.error(`\nLogs\n${report.logs.map((line) => `  ${oneLine(line, 400)}`).join("\n")}`);
  }
  if (report.calls.length > 0) {
    const rows = report.calls.map((call) => [
      `${oneLine(call.server, 40)}.${oneLine(call.tool, 60)}`,
      call.outcome.ok ? (call.outcome.value.isError ? "isError" : "ok") : call.outcome.error.kind,
      `${call.durationMs.toFixed(1)} ms`,
      oneLine(reportJson(call.args), 80),
    ]);
    console.error(`\nCalls\n${table(rows)}`);
  }
  if (report.limits.hit.length > 0) console.error(`\nLimits hit: ${report.limits.hit.join(", ")}`);
}

function print(value: unknown): void {
  console.log(reportJson(value, 2));
}

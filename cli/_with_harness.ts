// Private to cli/: one command's life with its servers. Boot (each server's
// line printed as it settles, and a line naming the servers still awaited
// after a few seconds), the command's body, and retirement, always. Ctrl-C
// (SIGINT, SIGTERM) at any point says what the command was doing, cancels
// the starts still under way (the boot's signal retires them at once), gives
// the body a moment to say what it was stopped in, retires every server and
// reports what was retired. A second Ctrl-C stops at once: the library's exit
// guard kills every server on the way out.

import { signInByDefault } from "./_sign_in_default.ts";
import { leftoverAdvice } from "./_leftovers.ts";
import {
  boot,
  BOOT_ABORT_RETIREMENT_MS,
  type BootOptions,
  type Harness,
  type ServerReport,
} from "../harness/mod.ts";
import type { RetirementReport } from "../client/census.ts";
import { DEFAULT_CONNECT_TIMEOUT_MS, type ServerSpec } from "../settings/mod.ts";
import { quote } from "../codec/quote.ts";
import { stringifyJson } from "../codec/json.ts";
import type { LogEntry } from "../client/logs.ts";
import type { ElicitHandler } from "../client/handlers.ts";
import type { LogLevel } from "../settings/mod.ts";
import { duration, oneLine, retirementRow, seconds, table } from "./_render.ts";
import type { Output } from "./_output.ts";
import { EXIT_INTERRUPTED } from "./exit_codes.ts";
import { NO_TOOL_FLAGS, type ToolFlags, warningText } from "./_governance.ts";
import type { Knob } from "./_source.ts";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** When the first line naming the servers still starting is printed, in milliseconds. */
export const WAITING_AFTER_MS = 3_000;
/** How often it is printed again while they are, in milliseconds. */
export const WAITING_EVERY_MS = 10_000;
/** How long the body is given after Ctrl-C to say what it was stopped in, in milliseconds. */
export const INTERRUPT_GRACE_MS = 1_000;

/** What the command is doing, for the line Ctrl-C prints; `interrupted` once it was. */
export type Doing = { now: string; interrupted?: boolean };

/** How a session shows itself. */
export type WithHarnessOptions = {
  /** Called once Ctrl-C is handled, just before the servers start. */
  onStart?: () => void;
  /** Called with each server's line as its boot settles. */
  onLine?: (line: string) => void;
  /** Shows the retirement; by default only servers without evidence are shown, on stderr. */
  onRetired?: (report: RetirementReport) => void;
  /** Where progress goes (the waiting line, Ctrl-C's lines). */
  output: Output;
  /** What set each server's connect deadline and what raises it, for the waiting line. */
  connectKnob?: (server: string) => Knob | undefined;
  /** The tools the flags named, so that a warning of a name no server lists names its flag. */
  toolFlags?: ToolFlags;
  /** `--log-level`: the level asked of every server, whose log lines then go to stderr. */
  logLevel?: LogLevel;
  /** Answers every server's elicitations (`_elicit.ts`); none are declared without it. */
  onElicit?: ElicitHandler;
  /**
   * What a command adds to the boot: the handlers of servers' questions (in
   * place of `onElicit`: `serve` sends them to its host), the pins, and
   * whether code mode starts with the servers (`run`).
   */
  boot?: Pick<BootOptions, "onElicit" | "onSample" | "pins" | "prepareRunner">;
  /**
   * Hears the boot as it starts, with the signal of Ctrl-C and a way to give
   * up the starts still under way: `serve` answers its host's `initialize`
   * before every server is up, and gives them up when the host leaves first.
   */
  onBooting?: (booting: Promise<Harness>, signal: AbortSignal, giveUp: () => void) => void;
};

/** The body of a command: the harness, and a signal aborted at Ctrl-C. */
export type Body = (harness: Harness, signal: AbortSignal) => Promise<number> | number;

/** What asks the servers for their logs: the level, and a line on stderr for each. */
function logsOf(
  options: WithHarnessOptions,
): { logLevel?: LogLevel; onLog?: (e: LogEntry) => void } {
  const level = options.logLevel;
  if (level === undefined) return {};
  return { logLevel: level, onLog: (entry) => options.output.detail(logLine(entry)) };
}

/** One log message of a server's as a line: its server, level and logger, its data quoted. */
export function logLine(entry: LogEntry): string {
  const data = typeof entry.data === "string" ? entry.data : stringifyJson(entry.data);
  const text = typeof data === "string" ? data : data.ok ? data.value : "(unrepresentable)";
  const logger = entry.logger === undefined ? "" : ` ${quote(entry.logger, 60)}`;
  const dropped = entry.dropped === undefined ? "" : ` (${entry.dropped} dropped before it)`;
  return `log ${quote(entry.server, 60)} ${entry.level}${logger}: ${quote(text, 500)}${
    entry.cut ? " (cut)" : ""
  }${dropped}`;
}

/** The columns of the boot table, sized for the names known before boot. */
export class BootLines {
  readonly #width: number;
  readonly #output: Output | undefined;
  readonly #stream: "out" | "err";

  constructor(specs: readonly ServerSpec[], output?: Output, stream: "out" | "err" = "err") {
    this.#width = Math.max(6, ...specs.map((spec) => [...spec.name].length));
    this.#output = output;
    this.#stream = stream;
  }

  /** The header line. */
  header(): string {
    return this.#line(["server", "state", "tools", "era", "protocol", "boot", "server info"]);
  }

  /** One server's line: state, tools, protocol era, boot time, what it said it is. */
  row(report: ServerReport, cancelled = false): string {
    if (report.state === "failed") {
      const state = cancelled ? "cancelled" : "FAILED";
      return this.#line([report.name, state, "-", "-", "-", seconds(report.elapsedMs), ""]);
    }
    const info = report.info.serverInfo;
    return this.#line([
      report.name,
      "ready",
      String(report.tools.length),
      report.info.era,
      oneLine(report.info.protocolVersion, 20),
      seconds(report.elapsedMs),
      oneLine(`${info.name} ${info.version}`, 60),
    ]);
  }

  #line(cells: string[]): string {
    const widths = [this.#width, 9, 5, 6, 10, 8];
    const line = table([cells.map((cell, index) => {
      const width = widths[index];
      return width === undefined ? cell : cell.padEnd(width);
    })]);
    const output = this.#output;
    if (output === undefined) return line;
    return line.replace(
      /^(\s+\S+\s+)(ready|FAILED|cancelled|state)\b/,
      (_, head, state) =>
        head + output.paint(
          state,
          state === "ready"
            ? "ok"
            : state === "FAILED"
            ? "bad"
            : state === "state"
            ? "head"
            : "dim",
          this.#stream,
        ),
    );
  }
}

/**
 * Boots `specs`, runs `body`, and always retires. Returns the body's status,
 * {@linkcode EXIT_INTERRUPTED} after Ctrl-C, and 1 when a retirement lacked
 * evidence or left a process group undrained.
 */
export async function withHarness(
  specs: readonly ServerSpec[],
  doing: Doing,
  body: Body,
  options: WithHarnessOptions,
): Promise<number> {
  const { output } = options;
  const stop = Promise.withResolvers<"interrupted">();
  const cancel = new AbortController();
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) {
      output.error("interrupted again: stopping now; every server is killed on the way out");
      Deno.exit(EXIT_INTERRUPTED);
    }
    interrupted = true;
    doing.interrupted = true;
    output.detail(
      doing.now === "retiring every server"
        ? "interrupted while retiring every server (Ctrl-C again to stop at once)"
        : `interrupted while ${doing.now}; ${
          starting.size > 0 ? "cancelling the starts and " : ""
        }retiring every server (Ctrl-C again to stop at once)`,
    );
    cancel.abort();
    stop.resolve("interrupted");
  };
  const starting = new Set(specs.map((spec) => spec.name));
  const waiting = waitingLine(specs, starting, options);
  for (const signal of SIGNALS) Deno.addSignalListener(signal, onSignal);
  try {
    const lines = new BootLines(specs, output);
    options.onStart?.();
    doing.now = `starting ${specs.length === 1 ? "1 server" : `${specs.length} servers`}`;
    let harness: Harness;
    // Ctrl-C, or the command itself, gives up the starts still under way.
    const givenUp = new AbortController();
    try {
      const booting = boot(signInByDefault(specs), {
        ...(options.onElicit === undefined ? {} : { onElicit: options.onElicit }),
        ...options.boot,
        signal: AbortSignal.any([cancel.signal, givenUp.signal]),
        ...logsOf(options),
        onServer: (report) => {
          starting.delete(report.name);
          // A start given up (Ctrl-C, or the command's own giving up) is cancelled, not failed.
          options.onLine?.(lines.row(report, interrupted || givenUp.signal.aborted));
          // A name in a list that the server does not list, said once, at its first start.
          if (report.state !== "ready" || report.generation !== undefined) return;
          for (const warning of report.warnings) {
            output.warn(warningText(report.name, warning, options.toolFlags ?? NO_TOOL_FLAGS));
          }
        },
      });
      options.onBooting?.(booting, cancel.signal, () => givenUp.abort());
      harness = await booting;
    } finally {
      waiting.stop();
    }
    let status = 1;
    try {
      if (!interrupted) {
        doing.now = "running the command";
        const running = Promise.resolve(body(harness, cancel.signal));
        const outcome = await Promise.race([running, stop.promise]);
        if (outcome === "interrupted") await settleWithin(running, INTERRUPT_GRACE_MS);
        status = outcome === "interrupted" ? EXIT_INTERRUPTED : outcome;
      }
    } finally {
      doing.now = "retiring every server";
      const retired = await harness.retire(
        interrupted ? { timeoutMs: BOOT_ABORT_RETIREMENT_MS } : {},
      );
      if (interrupted) {
        showRetired(retired, output);
        status = EXIT_INTERRUPTED;
      } else {
        (options.onRetired ?? ((report) => showUnretired(report, output, specs)))(retired);
        if (!retiredCleanly(retired)) status = 1;
      }
    }
    return interrupted ? EXIT_INTERRUPTED : status;
  } finally {
    for (const signal of SIGNALS) Deno.removeSignalListener(signal, onSignal);
  }
}

// The body's own end, or `ms`, whichever comes first; no timer is left behind.
async function settleWithin(running: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    running.catch(() => undefined),
    new Promise((resolve) => timer = setTimeout(resolve, ms)),
  ]);
  clearTimeout(timer);
}

// After WAITING_AFTER_MS, and every WAITING_EVERY_MS after it, the servers
// whose start has not settled, with their deadline and what raises it.
function waitingLine(
  specs: readonly ServerSpec[],
  starting: ReadonlySet<string>,
  options: WithHarnessOptions,
): { stop: () => void } {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadlines = new Map(
    specs.map((spec) => [spec.name, spec.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS]),
  );
  const say = () => {
    const elapsed = performance.now() - started;
    const names = [...starting];
    const late = names.filter((name) => (deadlines.get(name) ?? 0) <= elapsed);
    const waiting = names.filter((name) => !late.includes(name));
    const list = (group: string[]) => group.map((name) => quote(name)).join(", ");
    if (waiting.length > 0) {
      const limits = [...new Set(waiting.map((name) => duration(deadlines.get(name) ?? 0)))];
      const knob = options.connectKnob?.(waiting[0] as string) ??
        { setBy: "--connect-timeout", raise: "--connect-timeout" };
      const setBy = knob.setBy === "the default"
        ? `the default (raise it with ${knob.raise})`
        : `set by ${knob.setBy}`;
      options.output.progress(
        `waiting for ${list(waiting)} to start (${duration(Math.round(elapsed / 1000) * 1000)} ` +
          `so far; ${waiting.length === 1 ? "its" : "their"} deadline: ${limits.join(", ")}, ` +
          `${setBy}; Ctrl-C cancels)`,
      );
    }
    if (late.length > 0) {
      options.output.progress(
        `stopping ${list(late)}, past ${late.length === 1 ? "its" : "their"} start deadline`,
      );
    }
    timer = setTimeout(say, WAITING_EVERY_MS);
  };
  timer = setTimeout(say, WAITING_AFTER_MS);
  return { stop: () => clearTimeout(timer) };
}

/** Whether every server retired with evidence and a drained (or unknowable) group. */
export function retiredCleanly(report: RetirementReport): boolean {
  return [...report.clients.values()].every((outcome) =>
    outcome.ok &&
    (outcome.value.kind !== "exited" || outcome.value.drained !== false)
  );
}

function showRetired(report: RetirementReport, output: Output): void {
  const rows = [...report.clients].map(([name, outcome]) => retirementRow(name, outcome));
  output.detail(`retired:\n${table(rows)}`);
}

function showUnretired(
  report: RetirementReport,
  output: Output,
  specs: readonly ServerSpec[],
): void {
  for (const [name, outcome] of report.clients) {
    if (!outcome.ok) {
      output.error(
        `server ${quote(name)} was not confirmed retired: ${
          oneLine(outcome.error.message, Infinity)
        }; ${leftoverAdvice(specs.find((spec) => spec.name === name))}`,
      );
    } else if (outcome.value.kind === "exited" && outcome.value.drained === false) {
      output.error(
        `server ${quote(name)} exited but its process group ${outcome.value.pid} ` +
          "still has members; kill them before starting it again",
      );
    }
  }
}

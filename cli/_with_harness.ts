// Private to cli/: one command's life with its servers. Boot (each server's
// line printed as it settles), the command's body, and retirement, always;
// Ctrl-C (SIGINT, SIGTERM) at any point says what the command was doing,
// retires every server and reports what was retired. A second Ctrl-C stops
// at once: the library's exit guard kills every server on the way out.

import { boot, type Harness, type ServerReport } from "../harness/harness.ts";
import type { RetirementReport } from "../client/census.ts";
import type { ServerSpec } from "../spec/mod.ts";
import { quote } from "../codec/quote.ts";
import { oneLine, retirementRow, seconds, table } from "./_render.ts";

import { EXIT_INTERRUPTED } from "./exit_codes.ts";
import { signInByDefault } from "./_sign_in_default.ts";
import { leftoverAdvice } from "./_leftovers.ts";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

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
};

/** The columns of the boot table, sized for the names known before boot. */
export class BootLines {
  readonly #width: number;

  constructor(specs: readonly ServerSpec[]) {
    this.#width = Math.max(6, ...specs.map((spec) => [...spec.name].length));
  }

  /** The header line. */
  header(): string {
    return this.#line(["server", "state", "tools", "era", "protocol", "boot", "server info"]);
  }

  /** One server's line: state, tools, protocol era, boot time, what it said it is. */
  row(report: ServerReport): string {
    if (report.state === "failed") {
      return this.#line([report.name, "FAILED", "-", "-", "-", seconds(report.elapsedMs), ""]);
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
    const widths = [this.#width, 6, 5, 6, 10, 8];
    return table([cells.map((cell, index) => {
      const width = widths[index];
      return width === undefined ? cell : cell.padEnd(width);
    })]);
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
  body: (harness: Harness) => Promise<number> | number,
  options: WithHarnessOptions = {},
): Promise<number> {
  const stop = Promise.withResolvers<"interrupted">();
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) {
      console.error(
        "error: interrupted again: stopping now; every server is killed on the way out",
      );
      Deno.exit(EXIT_INTERRUPTED);
    }
    interrupted = true;
    doing.interrupted = true;
    console.error(
      `interrupted while ${doing.now}; retiring every server (Ctrl-C again to stop at once)`,
    );
    stop.resolve("interrupted");
  };
  for (const signal of SIGNALS) Deno.addSignalListener(signal, onSignal);
  try {
    const lines = new BootLines(specs);
    options.onStart?.();
    doing.now = `starting ${specs.length === 1 ? "1 server" : `${specs.length} servers`}`;
    const harness = await boot(signInByDefault(specs), {
      onServer: (report) => options.onLine?.(lines.row(report)),
    });
    let status = 1;
    try {
      if (!interrupted) {
        const outcome = await Promise.race([Promise.resolve(body(harness)), stop.promise]);
        status = outcome === "interrupted" ? EXIT_INTERRUPTED : outcome;
      }
    } finally {
      doing.now = "retiring every server";
      const retired = await harness.retire();
      if (interrupted) {
        showRetired(retired);
        status = EXIT_INTERRUPTED;
      } else {
        (options.onRetired ?? ((report) => showUnretired(report, specs)))(retired);
        if (!retiredCleanly(retired)) status = 1;
      }
    }
    return interrupted ? EXIT_INTERRUPTED : status;
  } finally {
    for (const signal of SIGNALS) Deno.removeSignalListener(signal, onSignal);
  }
}

/** Whether every server retired with evidence and a drained (or unknowable) group. */
export function retiredCleanly(report: RetirementReport): boolean {
  return [...report.clients.values()].every((outcome) =>
    outcome.ok &&
    (outcome.value.kind !== "exited" || outcome.value.drained !== false)
  );
}

function showRetired(report: RetirementReport): void {
  const rows = [...report.clients].map(([name, outcome]) => retirementRow(name, outcome));
  console.error(`retired:\n${table(rows)}`);
}

function showUnretired(report: RetirementReport, specs: readonly ServerSpec[]): void {
  for (const [name, outcome] of report.clients) {
    if (!outcome.ok) {
      console.error(
        `error: server ${quote(name)} was not confirmed retired: ${
          oneLine(outcome.error.message)
        }; ${leftoverAdvice(specs.find((spec) => spec.name === name))}`,
      );
    } else if (outcome.value.kind === "exited" && outcome.value.drained === false) {
      console.error(
        `error: server ${quote(name)} exited but its process group ${outcome.value.pid} ` +
          "still has members; kill them before starting it again",
      );
    }
  }
}

// Private to cli/: what each command does once its servers are known. Text
// goes to a person (results on stdout, progress and errors on stderr); with
// --json, one JSON document on stdout carries the same data.

import { stringifyJson } from "../codec/json.ts";
import { toJson } from "../codec/interchange.ts";
import { quote } from "../codec/quote.ts";
import type { Harness, ServerReport } from "../harness/harness.ts";
import type { RetirementReport } from "../client/census.ts";
import type { CliCommand } from "./_args.ts";
import {
  BootLines,
  type Doing,
  retiredCleanly,
  withHarness,
  type WithHarnessOptions,
} from "./_with_harness.ts";
import { notes, type Source } from "./_source.ts";
import {
  oneLine,
  printable,
  printableLine,
  retirementRow,
  seconds,
  table,
  tailLines,
} from "./_render.ts";

import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

type FailedReport = ServerReport & { state: "failed" };
type Command<Name extends CliCommand["command"]> = Extract<CliCommand, { command: Name }>;

/**
 * Says why a command failed: one line on stderr and, with --json, the
 * document `{ "ok": false, "error": { kind, message } }` on stdout, so that a
 * program reading stdout always gets one document. Returns `status`.
 */
export function fail(
  json: boolean,
  error: { kind: string; message: string },
  status: number,
): number {
  console.error(`error: ${error.message}`);
  if (json) printJson({ ok: false, error });
  return status;
}

/** Prints one JSON document on stdout. */
export function printJson(value: unknown): void {
  const json = toJson(value);
  const text = json.ok ? stringifyJson(json.value) : undefined;
  console.log(text?.ok ? text.value : JSON.stringify({ error: "unrepresentable output" }));
}

function failureLines(report: FailedReport): string[] {
  const advice = hint(report);
  const lines = [
    `error: server ${quote(report.name)} failed to ${report.failure.stage}: ` +
    `${oneLine(report.message, 300)}${advice === "" ? "" : `; ${advice}`}${stopping(report)}`,
  ];
  for (const line of tailLines(report.stderrTail)) lines.push(`  stderr: ${line}`);
  return lines;
}

// What to check, said once: a message that already says it gets no hint.
function hint(report: FailedReport): string {
  switch (report.failure.stage) {
    case "start":
      if (report.stderrTail !== "") return "its stderr follows";
      if (/\bcheck\b/.test(report.message)) return "";
      return remote(report) ? "check its url and headers" : "check its command, args and cwd";
    case "list":
      return "it started but its tools/list failed; check the server";
    case "generate":
      return "its tools cannot become a module; check the server's tool list";
    case "run":
      return "it died after it was ready";
  }
}

// A remote server's failed start says so in the evidence of its cleanup.
function remote(report: FailedReport): boolean {
  if (report.failure.stage !== "start") return false;
  const error = report.failure.error;
  return "cleanup" in error && error.cleanup?.kind === "remote";
}

// A failed start is retired before it is reported, so its boot time includes
// the stopping: say so when stopping took more than closing stdin.
function stopping(report: FailedReport): string {
  if (report.failure.stage !== "start") return "";
  const error = report.failure.error;
  const cleanup = "cleanup" in error ? error.cleanup : undefined;
  if (cleanup === undefined || cleanup.kind !== "exited") return "";
  if (cleanup.escalation === "none" || cleanup.escalation === "stdin_closed") return "";
  return ` (its ${seconds(report.elapsedMs)} include stopping it, which took a ${
    cleanup.escalation === "sigkill" ? "SIGKILL" : "SIGTERM"
  })`;
}

function reportJson(report: ServerReport): Record<string, unknown> {
  if (report.state === "ready") {
    return {
      name: report.name,
      state: "ready",
      tools: report.tools.length,
      protocol: report.info.protocolVersion,
      bootMs: Math.round(report.elapsedMs),
      serverInfo: report.info.serverInfo,
      module: report.generated.moduleName,
    };
  }
  return {
    name: report.name,
    state: "failed",
    stage: report.failure.stage,
    kind: report.failure.error.kind,
    message: report.message,
    bootMs: Math.round(report.elapsedMs),
    stderr: tailLines(report.stderrTail),
  };
}

function retirementJson(report: RetirementReport): Record<string, unknown>[] {
  return [...report.clients].map(([name, outcome]) =>
    outcome.ok
      ? { name, ...outcome.value }
      : { name, state: outcome.error.kind, message: outcome.error.message }
  );
}

function catalogJson(source: Source): Record<string, unknown> {
  const catalog = source.catalog;
  return {
    catalog: source.origin,
    skipped: catalog?.skipped.map(({ key, reason, message }) => ({ key, reason, message })) ?? [],
    renamed: catalog?.renamed ?? [],
    warnings: catalog?.warnings ?? [],
  };
}

/** The --json error of a command whose server failed at boot. */
export function failedJson(harness: Harness): Record<string, unknown> {
  const failed = [...harness.reports.values()].filter((report) => report.state === "failed");
  return {
    kind: "server_failed",
    message: failed.map((report) => `${report.name}: ${report.message}`).join("; "),
    servers: failed.map(reportJson),
  };
}

/** Prints each server that failed at boot, with its stderr; returns how many. */
export function showFailures(harness: Harness): number {
  let failed = 0;
  for (const report of harness.reports.values()) {
    if (report.state === "failed") {
      failed++;
      for (const line of failureLines(report)) console.error(line);
    }
  }
  return failed;
}

/**
 * The progress of a command other than check, on stderr: which catalog it
 * read (and what it skipped) as the servers start, then each server's line.
 */
export function progress(command: { json: boolean }, source: Source): WithHarnessOptions {
  if (command.json) return {};
  return {
    onStart: () => {
      if (source.catalog === undefined) return;
      const count = source.catalog.servers.length;
      console.error(
        `Catalog ${printable(source.origin)}: ${count} server${count === 1 ? "" : "s"}`,
      );
      for (const line of notes(source)) console.error(line);
    },
    onLine: (line) => console.error(line),
  };
}

/** `check`: boot every server, a line each as it settles, then the retirement. */
export async function check(
  source: Source,
  command: Command<"check">,
  doing: Doing,
): Promise<number> {
  const { specs } = source;
  const count = `${specs.length} server${specs.length === 1 ? "" : "s"}`;
  if (!command.json) {
    console.log(`Catalog ${printable(source.origin)}: ${count}`);
    for (const line of notes(source)) console.log(line);
  }
  if (specs.length === 0) {
    if (command.json) printJson({ ...catalogJson(source), servers: [], ready: 0, ok: false });
    console.error(
      `error: nothing to check: ${printable(source.origin)} yields no server; ` +
        'add [mcp.<name>] tables (TOML) or "mcpServers" entries (JSON)',
    );
    return EXIT_USAGE;
  }
  const lines = new BootLines(specs);
  let ready = 0;
  let servers: Record<string, unknown>[] = [];
  return await withHarness(specs, doing, (harness) => {
    const details: string[] = [];
    servers = [...harness.reports.values()].map(reportJson);
    for (const report of harness.reports.values()) {
      if (report.state === "ready") ready++;
      else details.push(...failureLines(report));
    }
    if (!command.json && details.length > 0) console.log(`\n${details.join("\n")}`);
    return ready === specs.length ? EXIT_OK : EXIT_FAILED;
  }, {
    ...(command.json ? {} : {
      onStart: () => console.log(`\nBoot\n${lines.header()}`),
      onLine: (line: string) => console.log(line),
    }),
    onRetired: (retired) => {
      const clean = retiredCleanly(retired);
      if (command.json) {
        printJson({
          ...catalogJson(source),
          servers,
          retirement: retirementJson(retired),
          ready,
          ok: ready === specs.length && clean,
        });
        return;
      }
      const rows = [...retired.clients].map(([name, outcome]) => retirementRow(name, outcome));
      console.log(`\nRetirement\n${table(rows)}`);
      console.log(
        `\n${ready} of ${count} ready; ` +
          (clean
            ? `every server retired with evidence (${evidenceWords(retired)})`
            : "NOT every server was confirmed retired: check for leftover processes"),
      );
    },
  });
}

/** What the evidence of a clean retirement shows: exits, ended remote sessions, or both. */
function evidenceWords(report: RetirementReport): string {
  const kinds = new Set([...report.clients.values()].map((o) => o.ok ? o.value.kind : ""));
  const words = [];
  if (kinds.has("exited") || kinds.has("no_resource")) words.push("that it exited");
  if (kinds.has("remote")) words.push("what was done with its remote session");
  return words.join(", or ") || "that it exited";
}

/** `tools [server]`: each tool's wire name, generated name, description and input schema. */
export async function tools(
  source: Source,
  command: Command<"tools">,
  doing: Doing,
): Promise<number> {
  const specs = command.server === undefined
    ? source.specs
    : pick(source, command.server, command.json);
  if (specs === undefined) return EXIT_USAGE;
  return await withHarness(specs, doing, (harness) => {
    const failed = showFailures(harness);
    const servers = [];
    for (const report of harness.reports.values()) {
      if (report.state !== "ready") continue;
      const functions = new Map([...report.generated.manifest].map(([id, wire]) => [wire, id]));
      servers.push({
        name: report.name,
        module: report.generated.moduleName,
        tools: report.tools.map((tool) => ({
          name: tool.name,
          function: functions.get(tool.name) ?? null,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema,
        })),
      });
    }
    if (command.json) {
      printJson({
        servers,
        failed: [...harness.reports.values()].filter((r) => r.state === "failed").map(reportJson),
      });
    } else {
      for (const server of servers) {
        console.log(`${server.name} (${server.module}, ${server.tools.length} tools)`);
        for (const tool of server.tools) {
          const generated = tool.function === null
            ? "not in the module"
            : tool.function === tool.name
            ? tool.function
            : `function ${tool.function}`;
          console.log(`  ${printableLine(tool.name)}  (${printableLine(generated)})`);
          if (tool.description !== "") console.log(`    ${oneLine(tool.description, 300)}`);
          const schema = stringifyJson(tool.inputSchema);
          console.log(`    input: ${schema.ok ? oneLine(schema.value, 2_000) : "(not JSON)"}`);
        }
      }
    }
    return failed > 0 ? EXIT_FAILED : EXIT_OK;
  }, progress(command, source));
}

/** `surface`: what the model reads. */
export async function surface(
  source: Source,
  command: Command<"surface">,
  doing: Doing,
): Promise<number> {
  return await withHarness(source.specs, doing, (harness) => {
    const failed = showFailures(harness);
    if (command.json) {
      printJson({
        surface: harness.surface,
        failed: [...harness.reports.values()].filter((r) => r.state === "failed").map(reportJson),
      });
    } else {
      console.log(harness.surface.trimEnd());
    }
    return failed > 0 ? EXIT_FAILED : EXIT_OK;
  }, progress(command, source));
}

/** `module <server>`: one server's generated module. */
export async function moduleOf(
  source: Source,
  command: Command<"module">,
  doing: Doing,
): Promise<number> {
  const specs = pick(source, command.server, command.json);
  if (specs === undefined) return EXIT_USAGE;
  return await withHarness(specs, doing, (harness) => {
    const generated = harness.modules.get(command.server);
    if (generated === undefined) {
      showFailures(harness);
      if (command.json) printJson({ ok: false, error: failedJson(harness) });
      return EXIT_FAILED;
    }
    if (command.json) {
      printJson({ server: command.server, module: generated.moduleName, source: generated.source });
    } else {
      console.log(generated.source.trimEnd());
    }
    return EXIT_OK;
  }, progress(command, source));
}

/** The spec of one server of the source; `undefined` (after saying why) when there is none. */
export function pick(source: Source, server: string, json: boolean): Source["specs"] | undefined {
  const spec = source.specs.find((candidate) => candidate.name === server);
  if (spec === undefined) {
    const known = source.specs.length === 0
      ? "it lists none"
      : `its servers: ${source.specs.map((s) => s.name).join(", ")}`;
    fail(json, {
      kind: "unknown_server",
      message: `no server ${quote(server)} in ${printable(source.origin)}; ${known}`,
    }, EXIT_USAGE);
    return undefined;
  }
  return [spec];
}

// Private to cli/: what each command does once its servers are known. Text
// goes to a person (results on stdout, progress and errors on stderr); with
// --json, one JSON document on stdout carries the same data.

import { leftoversAdvice } from "./_leftovers.ts";
import { stringifyJson } from "../codec/json.ts";
import { toJson } from "../codec/interchange.ts";
import { quote } from "../codec/quote.ts";
import { closestNames } from "../codegen/names.ts";
import { suggestName } from "../catalog/names.ts";
import type { Harness, ServerReport } from "../harness/harness.ts";
import type { RetirementReport } from "../client/census.ts";
import type { CliCommand } from "./_args.ts";
import type { LogLevel } from "../settings/mod.ts";
import {
  BootLines,
  type Doing,
  retiredCleanly,
  withHarness,
  type WithHarnessOptions,
} from "./_with_harness.ts";
import { notes, type Source } from "./_source.ts";
import type { Output } from "./_output.ts";
import { printable, printableLine, retirementRow, table, tailLines } from "./_render.ts";
import { startMessage } from "./_messages.ts";
import { leftOutWords } from "./_governance.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { cliElicitation } from "./_elicit.ts";
import { terminalKeys } from "./_terminal.ts";

type FailedReport = ServerReport & { state: "failed" };
type Command<Name extends CliCommand["command"]> = Extract<CliCommand, { command: Name }>;

/** What every command handler is given besides its command. */
export type Context = { source: Source; output: Output; doing: Doing };

/**
 * Says why a command failed: one message on stderr and, with --json, the
 * document `{ "ok": false, "error": { kind, message } }` on stdout, so that a
 * program reading stdout always gets one document. Returns `status`.
 */
export function fail(
  output: Output,
  json: boolean,
  error: { kind: string; message: string },
  status: number,
): number {
  output.error(error.message);
  if (json) printJson(output, { ok: false, error });
  return status;
}

/** Prints one JSON document on stdout. */
export function printJson(output: Output, value: unknown): void {
  const json = toJson(value);
  const text = json.ok ? stringifyJson(json.value) : undefined;
  output.result(text?.ok ? text.value : JSON.stringify({ error: "unrepresentable output" }));
}

/** The lines that say why a server failed at boot: the message, then its stderr. */
export function failureLines(report: FailedReport, source: Source): string[] {
  const lines = [
    `server ${quote(report.name)} failed to ${report.failure.stage}: ${
      startMessage(report, source.knobs.get(report.name))
    }`,
  ];
  for (const line of tailLines(report.stderrTail)) lines.push(`  stderr: ${line}`);
  return lines;
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
    disabled: catalog?.disabled ?? [],
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
export function showFailures(harness: Harness, context: Context): number {
  let failed = 0;
  for (const report of harness.reports.values()) {
    if (report.state !== "failed") continue;
    failed++;
    const [first = "", ...rest] = failureLines(report, context.source);
    context.output.error(first);
    for (const line of rest) context.output.detail(line);
  }
  return failed;
}

/** The catalog line and its notes, before anything boots. */
export function catalogLines(source: Source): string[] {
  if (source.catalog === undefined) return [];
  const count = source.catalog.servers.length;
  const disabled = source.catalog.disabled.length;
  return [
    `Catalog ${printable(source.origin)}: ${count} server${count === 1 ? "" : "s"}${
      disabled === 0 ? "" : `, ${disabled} disabled`
    }`,
  ];
}

/** Prints the catalog's notes on stderr: skipped entries and warnings are kept by --quiet. */
export function showNotes(source: Source, output: Output): void {
  for (const { label, text } of notes(source)) {
    if (label === "note") output.progress(`note: ${text}`);
    else output.warn(text, label);
  }
}

/**
 * The progress of a command other than check, on stderr: which catalog it
 * read (and what it skipped) as the servers start, then each server's line.
 */
export function progress(
  command: { json: boolean; logLevel?: LogLevel },
  context: Context,
): WithHarnessOptions {
  const { source, output } = context;
  const options: WithHarnessOptions = {
    output,
    connectKnob: (server) => source.knobs.get(server)?.connect,
    toolFlags: source.toolFlags,
    ...(command.logLevel === undefined ? {} : { logLevel: command.logLevel }),
    onElicit: cliElicitation(output, terminalKeys),
  };
  if (command.json) return options;
  return {
    ...options,
    onStart: () => {
      for (const line of catalogLines(source)) output.progress(line);
      showNotes(source, output);
    },
    onLine: (line) => output.progress(line),
  };
}

/** `check`: boot every server, a line each as it settles, then the retirement. */
export async function check(command: Command<"check">, context: Context): Promise<number> {
  const { source, output } = context;
  const { specs } = source;
  const count = `${specs.length} server${specs.length === 1 ? "" : "s"}`;
  if (!command.json) {
    for (const line of catalogLines(source)) output.result(line);
    showNotes(source, output);
  }
  if (specs.length === 0) {
    const skipped = source.catalog?.skipped.length ?? 0;
    const disabled = source.catalog?.disabled.length ?? 0;
    // Servers the user turned off are a choice, not a failure: nothing to check is then fine.
    const allOff = skipped === 0 && disabled > 0;
    if (command.json) {
      printJson(output, { ...catalogJson(source), servers: [], ready: 0, ok: allOff });
    }
    if (allOff) {
      if (!command.json) {
        output.result(
          `nothing to check: every entry of ${printable(source.origin)} is disabled (${disabled})`,
        );
      }
      return EXIT_OK;
    }
    output.error(
      skipped > 0
        ? `nothing to check: every entry of ${printable(source.origin)} was skipped (${skipped}, ` +
          "each said above with what to change)"
        : `nothing to check: ${printable(source.origin)} yields no server; ` +
          'add [mcp.<name>] tables (TOML) or "mcpServers" entries (JSON)',
    );
    return EXIT_USAGE;
  }
  const lines = new BootLines(specs, output, "out");
  let ready = 0;
  let servers: Record<string, unknown>[] = [];
  return await withHarness(specs, context.doing, (harness) => {
    const details: string[] = [];
    servers = [...harness.reports.values()].map(reportJson);
    for (const report of harness.reports.values()) {
      if (report.state === "ready") ready++;
      else {
        const [first = "", ...rest] = failureLines(report, source);
        details.push(`${output.paint("error:", "error", "out")} ${first}`, ...rest);
      }
    }
    if (!command.json && details.length > 0) output.resultMessage(`\n${details.join("\n")}`);
    return ready === specs.length ? EXIT_OK : EXIT_FAILED;
  }, {
    output,
    connectKnob: (server) => source.knobs.get(server)?.connect,
    toolFlags: source.toolFlags,
    // Declared as every other command does, so that the tools counted are those they list.
    onElicit: cliElicitation(output, terminalKeys),
    ...(command.json ? {} : {
      onStart: () => output.result(`\n${output.paint("Boot", "head", "out")}\n${lines.header()}`),
      onLine: (line: string) => output.result(line),
    }),
    onRetired: (retired) => {
      const clean = retiredCleanly(retired);
      if (command.json) {
        printJson(output, {
          ...catalogJson(source),
          servers,
          retirement: retirementJson(retired),
          ready,
          ok: ready === specs.length && clean,
        });
        return;
      }
      const rows = [...retired.clients].map(([name, outcome]) => retirementRow(name, outcome));
      output.result(`\n${output.paint("Retirement", "head", "out")}\n${table(rows)}`);
      output.result(
        `\n${ready} of ${count} ready; ` +
          (clean
            ? `every server retired with evidence (${evidenceWords(retired)})`
            : `NOT every server was confirmed retired: ${leftoversAdvice(retired, specs)}`),
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

/** `tools [server...]`: each tool's wire name, generated name, and its signature with its types. */
export async function tools(command: Command<"tools">, context: Context): Promise<number> {
  const { source, output } = context;
  const picked = pickAll(context, command.names, command.json);
  if (picked === undefined) return EXIT_USAGE;
  return await withHarness(picked.specs, context.doing, (harness) => {
    const failed = showFailures(harness, context);
    const servers = [];
    for (const report of harness.reports.values()) {
      if (report.state !== "ready") continue;
      const functions = new Map([...report.generated.manifest].map(([id, wire]) => [wire, id]));
      // A tool the lists leave out is not the model's: it is counted, not listed.
      const leftOut = report.tools.filter((tool) => report.withheld.get(tool.name) === "disabled");
      servers.push({
        name: report.name,
        module: report.generated.moduleName,
        // Every field of the listing, and the function the module gives it.
        tools: report.tools.filter((tool) => !leftOut.includes(tool)).map((tool) => ({
          ...tool,
          function: functions.get(tool.name) ?? null,
        })),
        leftOut: leftOut.map((tool) => tool.name),
      });
    }
    if (command.json) {
      printJson(output, {
        servers,
        failed: [...harness.reports.values()].filter((r) => r.state === "failed").map(reportJson),
      });
      return failed > 0 ? EXIT_FAILED : EXIT_OK;
    }
    for (const server of servers) {
      const listed = source.catalog?.servers.find((spec) => spec.name === server.name);
      const leftOut = server.leftOut.length === 0
        ? ""
        : `; ${server.leftOut.length} left out by ${
          leftOutWords(
            server.name,
            source.toolFlags,
            listed?.enabledTools !== undefined || listed?.disabledTools !== undefined,
          )
        }`;
      const count = server.tools.length;
      output.result(output.paint(
        `${server.name} (${server.module}, ${count} tool${count === 1 ? "" : "s"}${leftOut})`,
        "head",
        "out",
      ));
      for (const tool of server.tools) {
        const generated = tool.function === null
          ? "not in the module"
          : tool.function === tool.name
          ? tool.function
          : `function ${tool.function}`;
        output.result(`  ${printableLine(tool.name)}  (${printableLine(generated)})`);
        const block = tool.function === null ? undefined : harness.describe(server.name, tool.name);
        if (block?.ok) {
          for (const line of signature(block.value)) output.result(`    ${printable(line)}`);
          continue;
        }
        // No block to show: the listing's own words, and its schema as JSON.
        const description = tool.description ?? "";
        for (const line of description.split("\n")) {
          if (line.trim() !== "") output.result(`    ${printableLine(line)}`);
        }
        const schema = stringifyJson(tool.inputSchema);
        output.result(`    input: ${schema.ok ? printableLine(schema.value) : "(not JSON)"}`);
      }
    }
    return failed > 0 ? EXIT_FAILED : EXIT_OK;
  }, progress(command, context));
}

// A tool's block of its module as a person reads it in a list: its doc
// comment, types and signature, without the import line and the body that
// only route the call.
function signature(block: string): string[] {
  const lines = block.trimEnd().split("\n").filter((line) => !line.startsWith("// import {"));
  const body = lines.findLastIndex((line) => /^\s+return invoke\(/.test(line));
  if (body > 0 && lines[body + 1] === "}") {
    lines.splice(body, 2);
    lines[body - 1] = (lines[body - 1] as string).replace(/ \{$/, ";");
  }
  return lines;
}

/** `surface [server...]`: what the model reads, of every server or of those named. */
export async function surface(command: Command<"surface">, context: Context): Promise<number> {
  const { output } = context;
  const picked = pickAll(context, command.names, command.json);
  if (picked === undefined) return EXIT_USAGE;
  return await withHarness(picked.specs, context.doing, (harness) => {
    const failed = showFailures(harness, context);
    if (command.json) {
      printJson(output, {
        surface: harness.surface,
        failed: [...harness.reports.values()].filter((r) => r.state === "failed").map(reportJson),
      });
    } else {
      output.result(harness.surface.trimEnd());
    }
    return failed > 0 ? EXIT_FAILED : EXIT_OK;
  }, progress(command, context));
}

/** `module <server>`: one server's generated module. */
export async function moduleOf(command: Command<"module">, context: Context): Promise<number> {
  const { output } = context;
  const picked = pick(context, command.server, command.json);
  if (picked === undefined) return EXIT_USAGE;
  return await withHarness(picked.specs, context.doing, (harness) => {
    const generated = harness.modules.get(picked.name);
    if (generated === undefined) {
      showFailures(harness, context);
      if (command.json) printJson(output, { ok: false, error: failedJson(harness) });
      return EXIT_FAILED;
    }
    if (command.json) {
      printJson(output, {
        server: picked.name,
        module: generated.moduleName,
        source: generated.source,
      });
    } else {
      output.result(generated.source.trimEnd());
    }
    return EXIT_OK;
  }, progress(command, context));
}

/**
 * The spec of one server of the source, named by its server name or by the
 * name the file wrote (`"GitHub"`); `undefined` (after saying why) when there
 * is none, or when the file's entry of that name was skipped or is disabled.
 */
export function pick(
  context: Context,
  server: string,
  json: boolean,
): { name: string; specs: Source["specs"] } | undefined {
  const picked = pickAll(context, [server], json);
  return picked === undefined
    ? undefined
    : { name: picked.names[0] as string, specs: picked.specs };
}

/**
 * The specs of the servers `servers` name, each once, in the catalog's
 * order; every server when none is named. `undefined` (after saying why, of
 * the first name that names none) when one names none.
 */
export function pickAll(
  context: Context,
  servers: readonly string[],
  json: boolean,
): { names: string[]; specs: Source["specs"] } | undefined {
  const { source, output } = context;
  if (servers.length === 0) return { names: source.specs.map((s) => s.name), specs: source.specs };
  const names: string[] = [];
  for (const server of servers) {
    const name = source.aliases.get(server) ?? server;
    if (source.specs.some((candidate) => candidate.name === name)) {
      names.push(name);
      continue;
    }
    fail(
      output,
      json,
      { kind: "unknown_server", message: unknownServer(source, server) },
      EXIT_USAGE,
    );
    return undefined;
  }
  return { names, specs: source.specs.filter((spec) => names.includes(spec.name)) };
}

// Why `server` names no server of the source: skipped, or not there, with
// the nearest names and every name it has.
function unknownServer(source: Source, server: string): string {
  const name = source.aliases.get(server) ?? server;
  // An entry left out has no alias; its key is known by the name it would have had too.
  const names = (key: string) =>
    key === server || (source.aliases.get(key) ?? suggestName(key)) === name;
  const skipped = source.catalog?.skipped.find((entry) => names(entry.key));
  if (skipped !== undefined) return `server ${quote(server)} was skipped: ${skipped.message}`;
  const disabled = source.catalog?.disabled.find((entry) => names(entry.key));
  if (disabled !== undefined) return `${disabled.message}; enable it to use it`;
  const leftOut = (source.catalog?.skipped.length ?? 0) + (source.catalog?.disabled.length ?? 0);
  const known = source.specs.length === 0
    ? leftOut === 0
      ? "it lists none"
      : `it has none to start: each of its ${leftOut} entries was skipped or is disabled ` +
        "(check says why)"
    : `its servers: ${
      source.specs.map((s) => {
        const key = [...source.aliases].find(([, alias]) => alias === s.name)?.[0];
        return key === undefined ? s.name : `${s.name} (${quote(key)})`;
      }).join(", ")
    }`;
  const close = closestNames(server, [
    ...source.specs.map((s) => s.name),
    ...source.aliases.keys(),
  ]);
  const head = `no server ${quote(server)} in ${printable(source.origin)}`;
  return close.length === 0
    ? `${head}; ${known}`
    : `${head}; did you mean ${close.join(" or ")}? (${known})`;
}

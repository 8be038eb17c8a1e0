/**
 * The command line of `@loom/mcp`: boot the servers of a catalog, see what a
 * model would read, call a tool, check that every server starts and retires.
 *
 * ```sh
 * deno run -A jsr:@loom/mcp/cli check
 * deno run -A jsr:@loom/mcp/cli --catalog harness.toml surface
 * deno run -A jsr:@loom/mcp/cli module memory
 * deno run -A jsr:@loom/mcp/cli call memory read_graph '{}'
 * deno run -A jsr:@loom/mcp/cli run program.ts
 * ```
 *
 * The catalog is `--catalog <path>` (or the first argument), else `loom.toml`
 * in the current folder, else `.mcp.json`. Every command retires every server
 * it booted before it returns, with evidence that each one exited.
 *
 * Unlike the library modules, this is a program: it prints. Results go to
 * stdout (the surface, a module, a tool's output, the check's report);
 * errors go to stderr, one line each, saying what to do. Exit status:
 * {@linkcode EXIT_OK}, {@linkcode EXIT_FAILED}, {@linkcode EXIT_USAGE}.
 *
 * @module
 */

import { isJsonObject, parseJson, stringifyJson } from "../codec/json.ts";
import { quote } from "../codec/quote.ts";
import type { CallToolResult } from "../codec/protocol.ts";
import { loadCatalog } from "../catalog/mod.ts";
import { boot, type Harness, type ServerReport } from "../client/harness.ts";
import type { RetirementReport } from "../client/census.ts";
import type { ServerSpec } from "../client/spec.ts";
import { type CliCommand, parseArgs, USAGE } from "./_args.ts";
import { readProgram, runCommand } from "./_run.ts";
import { oneLine, printable, retirementRow, seconds, table, tailLines } from "./_render.ts";

type FailedReport = ServerReport & { state: "failed" };

/** Exit status when everything worked. */
export const EXIT_OK = 0;
/** Exit status when a server failed to start, list or retire, or a call failed. */
export const EXIT_FAILED = 1;
/** Exit status for a usage mistake or a catalog that cannot be used. */
export const EXIT_USAGE = 2;

/** The catalog file looked for in the current folder when none is given. */
export const DEFAULT_CATALOG = "loom.toml";
/** The catalog looked for when {@linkcode DEFAULT_CATALOG} does not exist. */
export const FALLBACK_CATALOG = ".mcp.json";

/**
 * Runs the command line with `args` (as `Deno.args`) and returns the exit
 * status. Never throws for a server's failure or a usage mistake; prints
 * results to stdout and errors to stderr.
 *
 * @example Check a catalog
 * ```ts ignore
 * import { main } from "@loom/mcp/cli";
 * const status = await main(["--catalog", "loom.toml", "check"]);
 * console.log(status === 0 ? "every server works" : "see above");
 * ```
 */
export async function main(args: string[]): Promise<number> {
  const parsed = parseArgs(args);
  if (!parsed.ok) {
    console.error(`error: ${parsed.error}`);
    return EXIT_USAGE;
  }
  const command = parsed.value;
  if (command.command === "help") {
    console.log(USAGE.trimEnd());
    return EXIT_OK;
  }
  // The program is read first: a missing program is a usage mistake, found before any boot.
  let program = "";
  if (command.command === "run") {
    const read = await readProgram(command.program);
    if ("error" in read) {
      console.error(`error: ${read.error}`);
      return EXIT_USAGE;
    }
    program = read.source;
  }
  const path = command.catalog ?? await defaultCatalog();
  if (path === undefined) {
    console.error(
      `error: no catalog given and neither ${DEFAULT_CATALOG} nor ${FALLBACK_CATALOG} is in ` +
        `${Deno.cwd()}; pass --catalog <path>`,
    );
    return EXIT_USAGE;
  }
  const catalog = await loadCatalog(path);
  if (!catalog.ok) {
    console.error(`error: ${oneLine(catalog.error.message, 400)}`);
    return EXIT_USAGE;
  }
  switch (command.command) {
    case "check":
      return await check(path, catalog.value);
    case "surface":
      return await surface(catalog.value);
    case "module":
      return await moduleOf(path, catalog.value, command.server);
    case "call":
      return await call(path, catalog.value, command);
    case "run":
      return await runCommand(program, catalog.value, {
        json: command.json,
        codes: { ok: EXIT_OK, failed: EXIT_FAILED, usage: EXIT_USAGE },
        withHarness: (specs, body) => withHarness(specs, body),
      });
  }
}

async function defaultCatalog(): Promise<string | undefined> {
  for (const name of [DEFAULT_CATALOG, FALLBACK_CATALOG]) {
    try {
      await Deno.lstat(name);
      return name;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return name; // loadCatalog says why
    }
  }
  return undefined;
}

type Session = {
  /** Called as each server's boot ends (for progress output). */
  onServer?: (report: ServerReport) => void;
  /** Shows the retirement; by default only servers without evidence are shown, on stderr. */
  onRetired?: (report: RetirementReport) => void;
};

/**
 * Boots, runs `body`, and always retires. A retirement without evidence, or
 * one whose process group was not drained, fails the command.
 */
async function withHarness(
  specs: readonly ServerSpec[],
  body: (harness: Harness) => Promise<number> | number,
  session: Session = {},
): Promise<number> {
  const harness = await boot(
    specs,
    session.onServer === undefined ? {} : {
      onServer: session.onServer,
    },
  );
  let status = EXIT_FAILED;
  try {
    status = await body(harness);
  } finally {
    const retired = await harness.retire();
    (session.onRetired ?? showUnretired)(retired);
    if (!retiredCleanly(retired)) status = EXIT_FAILED;
  }
  return status;
}

function retiredCleanly(report: RetirementReport): boolean {
  return [...report.clients.values()].every((outcome) =>
    outcome.ok && (outcome.value.kind === "no_resource" || outcome.value.drained !== false)
  );
}

function showUnretired(report: RetirementReport): void {
  for (const [name, outcome] of report.clients) {
    if (!outcome.ok) {
      console.error(
        `error: server ${quote(name)} was not confirmed retired: ${
          oneLine(outcome.error.message)
        }; ` +
          "check for a leftover process before starting it again",
      );
    } else if (outcome.value.kind === "exited" && outcome.value.drained === false) {
      console.error(
        `error: server ${quote(name)} exited but its process group ${outcome.value.pid} still ` +
          "has members; kill them before starting it again",
      );
    }
  }
}

function failureLines(report: FailedReport): string[] {
  const lines = [
    `error: server ${quote(report.name)} failed to ${report.failure.stage}: ` +
    `${oneLine(report.message, 300)}; ${hint(report)}`,
  ];
  for (const line of tailLines(report.stderrTail)) lines.push(`  stderr: ${line}`);
  return lines;
}

function hint(report: FailedReport): string {
  switch (report.failure.stage) {
    case "start":
      return report.stderrTail === ""
        ? "check its command, args and cwd in the catalog"
        : "its stderr follows; fix the server or its catalog entry";
    case "list":
      return "it started but its tools/list failed; check the server";
    case "generate":
      return "its tools cannot become a module; check the server's tool list";
  }
}

function showFailures(harness: Harness): number {
  let failed = 0;
  for (const report of harness.reports.values()) {
    if (report.state === "failed") {
      failed++;
      for (const line of failureLines(report)) console.error(line);
    }
  }
  return failed;
}

async function check(path: string, specs: readonly ServerSpec[]): Promise<number> {
  const count = `${specs.length} server${specs.length === 1 ? "" : "s"}`;
  console.log(`Catalog ${printable(path)}: ${count}`);
  if (specs.length === 0) {
    console.log("Nothing to check: add [mcp.<name>] tables to the catalog");
    return EXIT_OK;
  }
  let ready = 0;
  return await withHarness(specs, (harness) => {
    const rows: string[][] = [["server", "state", "tools", "protocol", "boot", "server info"]];
    const details: string[] = [];
    for (const report of harness.reports.values()) {
      if (report.state === "ready") {
        ready++;
        const info = report.info.serverInfo;
        rows.push([
          report.name,
          "ready",
          String(report.tools.length),
          oneLine(report.info.protocolVersion, 20),
          seconds(report.elapsedMs),
          oneLine(`${info.name} ${info.version}`, 60),
        ]);
      } else {
        rows.push([report.name, "FAILED", "-", "-", seconds(report.elapsedMs), ""]);
        details.push(...failureLines(report));
      }
    }
    console.log(`\nBoot\n${table(rows)}`);
    if (details.length > 0) console.log(`\n${details.join("\n")}`);
    return ready === specs.length ? EXIT_OK : EXIT_FAILED;
  }, {
    onRetired: (retired) => {
      const rows = [...retired.clients].map(([name, outcome]) => retirementRow(name, outcome));
      console.log(`\nRetirement\n${table(rows)}`);
      const clean = retiredCleanly(retired);
      console.log(
        `\n${ready} of ${count} ready; ` +
          (clean
            ? "every server retired with evidence that it exited"
            : "NOT every server was confirmed retired: check for leftover processes"),
      );
    },
  });
}

async function surface(specs: readonly ServerSpec[]): Promise<number> {
  return await withHarness(specs, (harness) => {
    const failed = showFailures(harness);
    console.log(harness.surface.trimEnd());
    return failed > 0 ? EXIT_FAILED : EXIT_OK;
  });
}

function pick(
  path: string,
  specs: readonly ServerSpec[],
  server: string,
): ServerSpec | undefined {
  const spec = specs.find((candidate) => candidate.name === server);
  if (spec === undefined) {
    const known = specs.length === 0
      ? "it lists none"
      : `its servers: ${specs.map((s) => s.name).join(", ")}`;
    console.error(`error: no server ${quote(server)} in ${printable(path)}; ${known}`);
  }
  return spec;
}

async function moduleOf(
  path: string,
  specs: readonly ServerSpec[],
  server: string,
): Promise<number> {
  const spec = pick(path, specs, server);
  if (spec === undefined) return EXIT_USAGE;
  return await withHarness([spec], (harness) => {
    const generated = harness.modules.get(server);
    if (generated === undefined) {
      showFailures(harness);
      return EXIT_FAILED;
    }
    console.log(generated.source.trimEnd());
    return EXIT_OK;
  });
}

async function call(
  path: string,
  specs: readonly ServerSpec[],
  command: CliCommand & { command: "call" },
): Promise<number> {
  const args = parseJson(command.args);
  if (!args.ok || !isJsonObject(args.value)) {
    const why = args.ok
      ? "are not a JSON object"
      : `are not JSON (${oneLine(args.error.message.replace(/^Cannot parse JSON /, ""), 120)})`;
    console.error(
      `error: the arguments ${quote(oneLine(command.args, 60))} ${why}; ` +
        `pass one quoted JSON object, as in '{"text": "hi"}'`,
    );
    return EXIT_USAGE;
  }
  const spec = pick(path, specs, command.server);
  if (spec === undefined) return EXIT_USAGE;
  return await withHarness([spec], async (harness) => {
    if (showFailures(harness) > 0) return EXIT_FAILED;
    const result = await harness.call(command.server, command.tool, args.value);
    if (!result.ok) {
      const error = result.error;
      if (error.kind === "unknown_tool") {
        const report = harness.reports.get(command.server);
        const tools = report?.state === "ready"
          ? report.tools.map((tool) => tool.name).sort().join(", ")
          : "";
        const guess = error.suggestions.length === 0
          ? ""
          : ` (did you mean ${error.suggestions.join(" or ")}?)`;
        console.error(
          `error: server ${quote(command.server)} has no tool ${quote(command.tool)}${guess}; ` +
            `its tools: ${oneLine(tools === "" ? "none" : tools, 600)}`,
        );
        return EXIT_USAGE;
      }
      if (error.kind === "task_required") {
        console.error(`error: ${oneLine(error.message, 400)}; it is left out of the surface too`);
        return EXIT_USAGE;
      }
      const tail = "stderrTail" in error ? tailLines(error.stderrTail, 1)[0] : undefined;
      console.error(
        `error: ${oneLine(error.message, 400)}` +
          (tail === undefined ? "" : `; the server's stderr ends with: ${tail}`),
      );
      return EXIT_FAILED;
    }
    console.log(renderResult(result.value));
    if (result.value.isError === true) {
      console.error(
        `error: tool ${quote(command.tool)} of ${quote(command.server)} reported a failure ` +
          "(isError); its output is above",
      );
      return EXIT_FAILED;
    }
    return EXIT_OK;
  });
}

/** A tool's result for a person: its text blocks, other blocks named, structured output as JSON. */
function renderResult(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content) {
    switch (block.type) {
      case "text":
        parts.push(printable(block.text));
        break;
      case "image":
      case "audio":
        parts.push(
          `[${block.type} ${oneLine(block.mimeType, 60)}, ${block.data.length} base64 characters]`,
        );
        break;
      case "resource_link":
        parts.push(`[resource link ${oneLine(block.uri, 200)}]`);
        break;
      case "resource":
        parts.push(`[resource ${oneLine(block.resource.uri, 200)}]`);
        break;
      case "other":
        parts.push(`[${oneLine(block.originalType, 60)} block]`);
        break;
    }
  }
  if (result.structuredContent !== undefined) {
    const json = stringifyJson(result.structuredContent);
    // Servers often send the same JSON as text too: show it once.
    if (
      json.ok &&
      !result.content.some((block) => block.type === "text" && sameJson(block.text, json.value))
    ) {
      parts.push(`structured: ${printable(json.value)}`);
    }
  }
  return parts.length === 0 ? "(no content)" : parts.join("\n");
}

function sameJson(text: string, json: string): boolean {
  const parsed = parseJson(text);
  if (!parsed.ok) return false;
  const again = stringifyJson(parsed.value);
  return again.ok && again.value === json;
}

if (import.meta.main) Deno.exit(await main(Deno.args));

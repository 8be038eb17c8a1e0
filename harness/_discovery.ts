// Private to harness/: what the model reads and how it finds the rest, made
// from the servers' boot reports: the surface within its budget (every
// block when they fit, the index when not), the search over every ready
// server's tools, and each tool's block.
//
// A ToolIndex is a value built from the reports as they are: when a server's
// listing changes (its report replaced), building a new one from the same
// map is the whole refresh of the surface, the search and describe; the
// harness holds the current one, and every caller (the harness's own
// methods, a program's requests) reads through it.

import type { Generated } from "../codegen/generate.ts";
import { closestNames } from "../codegen/names.ts";
import { sanitizeLine } from "../codegen/text.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { ServerInfo } from "../client/errors.ts";
import { type SearchOptions, searchProblem, type ToolMatch } from "../runner/host/discovery.ts";
import { DEFAULT_SEARCH_LIMIT } from "../runner/host/limits.ts";
import { resolveTool } from "./_call.ts";
import type { Exposure } from "./_listing.ts";
import { toolBlock } from "./_describe.ts";
import { type IndexedServer, renderMixed } from "./_index.ts";
import { type SearchEntry, ToolSearch } from "./_search.ts";
import { renderSurface } from "./_surface.ts";
import type { DescribeDenial, ServerReport } from "./types.ts";

type Ready = ServerReport & { state: "ready" };

/**
 * What the surface line of a tool seen to ask says, at its end: a fixed
 * note of the harness's, never server text (the specification gives a tool
 * no way to declare it asks, so only what was seen here can say it).
 */
const ASKS_NOTE = "[may ask the user]";
/** The line `describe` adds to the block of a tool seen to ask, after its import. */
const ASKS_LINE = "// May ask the user: during a call in this harness it asked a question " +
  "(elicitation) or for a model's completion (sampling); a call waits for the answer.";

/**
 * `generated` with the surface lines of the tools of `asking` (wire names)
 * marked: the note ends the line, inside its summary's comment or in one of
 * its own, so the signature before it reads as it did.
 */
function marked(report: Ready, asking: ReadonlySet<string> | undefined): Generated {
  const { generated } = report;
  if (asking === undefined || asking.size === 0) return generated;
  const byWire = new Map(report.tools.map((tool) => [tool.name, tool]));
  const lines = generated.surface.split("\n").map((line) => {
    const name = /^([A-Za-z_$][\w$]*)\(args: /.exec(line)?.[1];
    const wire = name === undefined ? undefined : generated.manifest.get(name);
    if (wire === undefined || !asking.has(wire)) return line;
    const tool = byWire.get(wire);
    const summary = sanitizeLine(tool?.description ?? tool?.title ?? "");
    return summary.length > 0 ? `${line} ${ASKS_NOTE}` : `${line}  // ${ASKS_NOTE}`;
  });
  return { ...generated, surface: lines.join("\n") };
}

const encoder = new TextEncoder();

/** What a server says it is, in its own words: its instructions, else its serverInfo. */
function aboutOf(info: ServerInfo): string {
  if (typeof info.instructions === "string" && info.instructions.trim() !== "") {
    return info.instructions;
  }
  const { name, title, version } = info.serverInfo;
  const named = title !== undefined && title.trim() !== "" ? title : name;
  return version === "" ? named : `${named} ${version}`;
}

/** Each tool's line of a surface block, by its function's name. */
function surfaceLines(generated: Generated): Map<string, string> {
  const lines = new Map<string, string>();
  for (const line of generated.surface.split("\n")) {
    const name = /^([A-Za-z_$][\w$]*)\(args: /.exec(line)?.[1];
    if (name !== undefined && generated.manifest.has(name)) lines.set(name, line);
  }
  return lines;
}

function paramsOf(schema: unknown): string[] {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return [];
  const properties = (schema as { properties?: unknown }).properties;
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return [];
  return Object.keys(properties);
}

/** One ready server's tools, in its listing's order, as the index and the search take them. */
function indexed(report: Ready): { server: IndexedServer; entries: SearchEntry[] } {
  const { generated, tools, name: server } = report;
  const names = new Map([...generated.manifest].map(([name, wire]) => [wire, name]));
  const lines = surfaceLines(generated);
  const about = aboutOf(report.info);
  const entries: SearchEntry[] = [];
  for (const tool of tools) {
    const name = names.get(tool.name);
    if (name === undefined) continue; // left out: not callable
    entries.push({
      server,
      tool: tool.name,
      name,
      line: lines.get(name) ?? "",
      title: tool.title ?? "",
      description: tool.description ?? "",
      params: paramsOf(tool.inputSchema),
      about: `${server} ${about}`,
    });
  }
  return { server: { name: server, about, names: entries.map((entry) => entry.name) }, entries };
}

/** The surface, the search and the blocks of one set of boot reports (see the module comment). */
export class ToolIndex {
  /** What the model reads, within the budget. */
  readonly surface: string;
  /** Whether the surface is the index rather than every block. */
  readonly indexed: boolean;
  /** The servers the surface shows whole, in catalog order: every ready one unless indexed. */
  readonly whole: readonly string[];
  readonly #reports: ReadonlyMap<string, ServerReport>;
  readonly #exposures: ReadonlyMap<string, Exposure> | undefined;
  readonly #entries: readonly SearchEntry[];
  readonly #asking: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  // Built at the first search: a harness that never searches never pays for it.
  #search: ToolSearch | undefined;

  /**
   * Builds the index of `reports` (in catalog order) for a surface of
   * `budget` bytes; `exposures`, when given, name the tools a server's
   * lists or pins withhold, so that describing one says why it is absent;
   * `asking`, the tools (wire names, by server) seen to ask, which the
   * surface and their blocks say may ask the user.
   */
  constructor(
    reports: ReadonlyMap<string, ServerReport>,
    budget: number,
    exposures?: ReadonlyMap<string, Exposure>,
    asking?: ReadonlyMap<string, ReadonlySet<string>>,
  ) {
    this.#reports = reports;
    this.#exposures = exposures;
    this.#asking = asking;
    const ready = [...reports.values()].filter((report): report is Ready =>
      report.state === "ready"
    ).map((report) => ({ ...report, generated: marked(report, asking?.get(report.name)) }));
    const modules = new Map(ready.map((report) => [report.name, report.generated]));
    const whole = renderSurface(modules);
    const parts = ready.map(indexed);
    this.#entries = parts.flatMap((part) => part.entries);
    this.indexed = encoder.encode(whole).length > budget;
    if (this.indexed) {
      const mixed = renderMixed(
        ready.map((report, i) => ({ server: parts[i]!.server, block: report.generated.surface })),
        budget,
      );
      this.surface = mixed.surface;
      this.whole = mixed.whole;
    } else {
      this.surface = whole;
      this.whole = ready.map((report) => report.name);
    }
  }

  /** The size of the search index as MiniSearch serializes it, in UTF-16 code units. */
  indexSize(): number {
    return this.#engine().indexSize();
  }

  #engine(): ToolSearch {
    this.#search ??= new ToolSearch(this.#entries);
    return this.#search;
  }

  /** The best-matching tools across every ready server; throws for a bad query or limit. */
  search(query: string, options: SearchOptions = {}): ToolMatch[] {
    const limit = options?.limit;
    const problem = searchProblem(query, limit);
    if (problem !== undefined) {
      if (typeof query !== "string") throw new TypeError(problem);
      throw new RangeError(problem);
    }
    return this.#engine().search(query, limit ?? DEFAULT_SEARCH_LIMIT).map(({ entry, score }) => ({
      server: entry.server,
      tool: entry.tool,
      name: entry.name,
      line: entry.line,
      score,
    }));
  }

  /** One tool's whole block, named by wire or function name, or why there is none. */
  describe(server: string, tool: string): Result<string, DescribeDenial> {
    const report = this.#reports.get(server);
    if (report === undefined) {
      const close = closestNames(String(server), this.#reports.keys());
      return err({
        kind: "unknown_server",
        server,
        message: `Cannot describe a tool of ${quote(String(server))}: no such server in the ` +
          `catalog` + (close.length === 0 ? "" : `; did you mean ${close.join(", ")}?`),
      });
    }
    if (report.state === "failed") {
      return err({
        kind: "server_failed",
        server,
        cause: report.failure,
        message: `Cannot describe a tool of ${
          quote(server)
        }: it failed at boot (${report.message})`,
      });
    }
    const exposure = this.#exposures?.get(server) ??
      { generated: report.generated, withheld: report.withheld, functions: new Map() };
    const wire = resolveTool(exposure, server, String(tool));
    if (!wire.ok) {
      // The same refusal a call meets, said of a description.
      const error = wire.error as DescribeDenial;
      return err({ ...error, message: error.message.replace(/^Cannot call /, "Cannot describe ") });
    }
    const name = [...report.generated.manifest].find(([, each]) => each === wire.value)?.[0];
    const block = name === undefined ? undefined : toolBlock(report.generated, name);
    if (block === undefined) {
      // generate() makes a part for every function it names; this cannot be reached.
      throw new TypeError(`Tool ${quote(wire.value)} of ${quote(server)} has no block`);
    }
    if (this.#asking?.get(server)?.has(wire.value) !== true) return ok(block);
    const cut = block.indexOf("\n") + 1;
    return ok(`${block.slice(0, cut)}${ASKS_LINE}\n${block.slice(cut)}`);
  }
}

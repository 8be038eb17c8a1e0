/**
 * The generator: one server's tool listing becomes a TypeScript module source
 * (`mcp/<segment>.ts`) and the surface a model reads. Values, never files.
 *
 * Server text reaches the source only three ways: sanitized inside doc
 * comments, escaped inside string literals, or as identifiers of the generator's
 * alphabet ({@linkcode nameTools}). The
 * {@linkcode backstop} then re-lexes the source to prove it.
 *
 * @module
 */

import { isJsonObject } from "../codec/json.ts";
import { quote } from "../codec/quote.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { backstop } from "./backstop.ts";
import { moduleSegment, nameTools, sha256Hex } from "./names.ts";
import { type OutputPlan, plan, planOutput } from "./schema.ts";
import { type AliasTable, nameAliases } from "./_aliases.ts";
import {
  type Entry,
  joinModule,
  type ModuleParts,
  type Omission,
  plannedTypes,
  renderModule,
} from "./_module.ts";
import { renderSurface } from "./_surface.ts";

/** The most tools one server may list; past it the server is refused. */
export const MAX_TOOLS = 256;

/** The largest surface of one server, in UTF-8 bytes after truncation. */
export const MAX_SURFACE_BYTES = 64 * 1024;

/**
 * The largest module source of one server, in UTF-8 bytes. Past it, the tools
 * with the largest signatures take any JSON object and return `JsonValue`
 * until the module fits.
 */
export const MAX_MODULE_BYTES = 512 * 1024;

/** The specifier generated modules import by default. */
export const DEFAULT_CAP_SPECIFIER = "@loom/mcp/cap";

/** Why a listed tool is left out of the module and the surface. */
export type OmissionReason = "task_required";

/** The words the module and surface use for each {@linkcode OmissionReason}. */
export const OMISSION_REASONS: Readonly<Record<OmissionReason, string>> = {
  task_required: "it requires task-augmented calls, which the server does not offer",
};

/** Options of {@linkcode generate}. */
export type GenerateOptions = {
  /** The specifier of the cap seam; default {@linkcode DEFAULT_CAP_SPECIFIER}. */
  capSpecifier?: string;
  /** Lowercase hex digest of a string; default SHA-256 ({@linkcode sha256Hex}). */
  digest?: (s: string) => string;
  /**
   * The server runs task-augmented tool calls (its `tasks` capability, or
   * the tasks extension): a tool whose `taskSupport` is `"required"` is then
   * a function like any other, its client calling it as a task; without
   * it (the default) such a tool is left out.
   */
  tasks?: boolean;
  /**
   * The server declares `resources`: the module gets a `read_resource(uri)`
   * beside its tools, so that a program can follow a `resource_link` a tool
   * returned (default `false`).
   */
  resources?: boolean;
};

/** One server's generated module and surface. */
export type Generated = {
  /** The module's path in a build root: `mcp/<segment>.ts`. */
  moduleName: string;
  /** The module segment: the server name, checked by `moduleSegment`. */
  segment: string;
  /** The TypeScript source of the module. */
  source: string;
  /** The block of the model's surface for this server. */
  surface: string;
  /** Each exported identifier mapped to the wire name of its tool, in module order. */
  manifest: ReadonlyMap<string, string>;
  /** Each exported type alias, in module order, mapped to the name its schema gave it ("" for a root). */
  types: ReadonlyMap<string, string>;
  /** The wire name of each listed tool left out of the module and the surface, with why. */
  omitted: ReadonlyMap<string, OmissionReason>;
};

/** Why a server's listing cannot become a module. */
export type GenerateError =
  | { kind: "too_many_tools"; count: number; limit: number; message: string }
  | {
    kind: "tool_name_collision";
    identifier: string;
    first: string;
    second: string;
    message: string;
  }
  | { kind: "surface_too_large"; bytes: number; limit: number; message: string }
  | { kind: "sanitizer_breach"; offset: number; message: string };

/**
 * Generates the module and surface of one server from its tool listing.
 * Refuses the whole server past {@linkcode MAX_TOOLS}, on an identifier
 * collision (naming both originals), on a surface past
 * {@linkcode MAX_SURFACE_BYTES}, and when the backstop finds anything outside
 * comments and string literals that the generator did not write. A tool the
 * client cannot call (one that requires task-augmented calls) is left out of
 * both (unless `options.tasks` says the server runs tasks), and named with
 * the reason in {@linkcode Generated.omitted} and in a
 * comment line at the end of each.
 *
 * A `server` that is not a valid module segment is caller misuse (the
 * catalog checks names with `moduleSegment`) and throws `TypeError`.
 *
 * @example Generate a module for one tool
 * ```ts
 * import { generate } from "@loom/mcp/codegen";
 * const result = generate("files", [{
 *   name: "read_file",
 *   description: "Reads a file.",
 *   inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
 * }]);
 * if (result.ok) console.log(result.value.surface.split("\n")[1]);
 * // read_file(args: { path: string }): Promise<ToolResult>  // Reads a file.
 * ```
 */
export function generate(
  server: string,
  tools: readonly ToolDescriptor[],
  options: GenerateOptions = {},
): Result<Generated, GenerateError> {
  const segment = moduleSegment(server);
  if (!segment.ok) throw new TypeError(segment.error.message);
  if (!Array.isArray(tools)) throw new TypeError("Cannot generate module: tools is not an array");
  const capSpecifier = options.capSpecifier ?? DEFAULT_CAP_SPECIFIER;
  if (typeof capSpecifier !== "string" || capSpecifier.length === 0) {
    throw new TypeError("Cannot generate module: capSpecifier is not a non-empty string");
  }
  const digest = options.digest ?? sha256Hex;
  const where = `Cannot generate module for server "${server}"`;
  if (tools.length > MAX_TOOLS) {
    return err({
      kind: "too_many_tools",
      count: tools.length,
      limit: MAX_TOOLS,
      message: `${where}: it lists ${tools.length} tools, more than ${MAX_TOOLS}`,
    });
  }
  const callable: ToolDescriptor[] = [];
  const omitted = new Map<string, OmissionReason>();
  for (const tool of tools) {
    const reason = omissionOf(tool, options.tasks === true);
    if (reason === undefined) callable.push(tool);
    else omitted.set(tool.name, reason);
  }
  const named = nameTools(callable.map((tool) => tool.name), digest);
  if (!named.ok) {
    const { identifier, first, second } = named.error;
    return err({
      kind: "tool_name_collision",
      identifier,
      first,
      second,
      message: `${where}: tools ${quote(first)} and ${quote(second)} both become ` +
        `"${identifier}"; rename one of them on the server`,
    });
  }
  const entries: Entry[] = callable.map((tool) => ({
    identifier: named.value.get(tool.name) as string,
    tool,
    plan: plan(tool.inputSchema),
    result: resultPlan(tool),
  })).sort((a, b) => a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0);
  const omissions: Omission[] = [...omitted].map(([name, reason]) => ({
    name,
    reason: OMISSION_REASONS[reason],
  }));
  const functions = new Set(entries.map((entry) => entry.identifier));
  const resources = options.resources === true;
  const { table, source } = fitModule(
    server,
    entries,
    omissions,
    capSpecifier,
    functions,
    digest,
    resources,
  );
  const minted = new Set([...functions, ...table.aliases.map((alias) => alias.identifier)]);
  const checked = backstop(source, minted);
  if (!checked.ok) {
    return err({
      kind: "sanitizer_breach",
      offset: checked.error.offset,
      message: `${where}: the generated source failed the backstop: ${checked.error.message}`,
    });
  }
  const surface = renderSurface(server, entries, omissions, table, resources);
  const bytes = utf8Bytes(surface);
  if (bytes > MAX_SURFACE_BYTES) {
    return err({
      kind: "surface_too_large",
      bytes,
      limit: MAX_SURFACE_BYTES,
      message: `${where}: its surface is ${bytes} bytes, more than ${MAX_SURFACE_BYTES}; ` +
        "the server lists too many tools or parameters",
    });
  }
  const manifest = new Map(entries.map((entry) => [entry.identifier, entry.tool.name]));
  return ok({
    moduleName: `mcp/${server}.ts`,
    segment: server,
    source,
    surface,
    manifest,
    types: new Map(
      table.aliases.map((alias) => [alias.identifier, alias.definition.name] as const).sort((
        a,
        b,
      ) => a[0] < b[0] ? -1 : 1),
    ),
    omitted,
  });
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

const TOO_LARGE = `its types would take the module past ${MAX_MODULE_BYTES} bytes`;

// Renders the module; while it is past MAX_MODULE_BYTES, the typed tools with
// the largest functions take the whole value instead, largest first. Every
// round demotes at least one tool, so it ends.
function fitModule(
  server: string,
  entries: Entry[],
  omissions: readonly Omission[],
  capSpecifier: string,
  functions: ReadonlySet<string>,
  digest: (s: string) => string,
  resources: boolean,
): { table: AliasTable; source: string } {
  for (;;) {
    const table = nameAliases(plannedTypes(entries), functions, digest);
    const parts: ModuleParts = renderModule(
      server,
      entries,
      omissions,
      capSpecifier,
      table,
      resources,
    );
    const source = joinModule(parts);
    let excess = utf8Bytes(source) - MAX_MODULE_BYTES;
    if (excess <= 0) return { table, source };
    const typed = entries
      .map((_, i) => ({ i, bytes: utf8Bytes(parts.functions[i] ?? "") }))
      .filter(({ i }) => isTyped(entries[i] as Entry))
      .sort((a, b) => b.bytes - a.bytes || a.i - b.i);
    if (typed.length === 0) return { table, source };
    for (const { i, bytes } of typed) {
      const entry = entries[i] as Entry;
      entries[i] = {
        ...entry,
        plan: { kind: "whole_value", reason: TOO_LARGE },
        result: entry.result.kind === "none"
          ? entry.result
          : { kind: "untyped", reason: TOO_LARGE },
      };
      excess -= bytes;
      if (excess <= 0) break;
    }
  }
}

function isTyped(entry: Entry): boolean {
  return entry.plan.kind === "typed" || entry.result.kind === "typed";
}

function omissionOf(tool: ToolDescriptor, tasks: boolean): OmissionReason | undefined {
  const execution = tool.execution;
  if (!tasks && isJsonObject(execution) && execution.taskSupport === "required") {
    return "task_required";
  }
  return undefined;
}

function resultPlan(tool: ToolDescriptor): OutputPlan {
  return planOutput(tool.outputSchema);
}

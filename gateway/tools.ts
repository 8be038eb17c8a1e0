/**
 * The three tools a gateway offers its host, and how each answer reads:
 * `search_tools`, `describe_tool` and `run_program`. Code mode only: the
 * host's model never sees one tool per server tool, it writes a program
 * against the servers' modules.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../codec/json.ts";
import { reportJson, reportValue } from "../codec/report_value.ts";
import { formatDiagnostics, type RunReport, type ToolMatch } from "../harness/mod.ts";
import { MAX_SEARCH_LIMIT, MAX_SEARCH_QUERY_CHARS } from "../runner/host/limits.ts";
import { MAX_SESSION_RUNS } from "./limits.ts";

/** The names of the gateway's tools, in the order `tools/list` gives them. */
export const GATEWAY_TOOLS = ["describe_tool", "run_program", "search_tools"] as const;

/** One of {@linkcode GATEWAY_TOOLS}. */
export type GatewayTool = typeof GATEWAY_TOOLS[number];

/** A tool result as the gateway answers it (the wire shape of `tools/call`). */
export type GatewayResult = {
  content: { type: "text"; text: string }[];
  structuredContent?: JsonObject;
  isError?: true;
};

const SEARCH_DESCRIPTION =
  "Finds the tools of the connected MCP servers that match what you need, best first. " +
  "Each hit names its server, its tool, the function a program imports from " +
  '"./mcp/<server>.ts", and its signature line. Use it before run_program when the ' +
  "run_program description shows only an index of the servers.";

const DESCRIBE_DESCRIPTION =
  "Shows one tool's whole block of its server's module: how to import it, the types it " +
  "names, its function signature with every parameter, and its full description.";

const RUN_PREFACE = "Type-checks and runs a TypeScript program against the MCP servers " +
  "below, and returns its export default value, its console output and the calls it made. " +
  "A program the type check refuses is not run: the result lists its diagnostics; fix them " +
  "and run it again. What the program may import:\n\n";

/**
 * The descriptors of the three tools, `run_program`'s carrying `surface`
 * (the program convention and the budgeted blocks of the servers).
 */
export function gatewayDescriptors(surface: string): JsonObject[] {
  return [
    {
      name: "describe_tool",
      description: DESCRIBE_DESCRIPTION,
      inputSchema: {
        type: "object",
        properties: {
          server: { type: "string", description: "The server's name." },
          tool: { type: "string", description: "The tool's name or its function's name." },
        },
        required: ["server", "tool"],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: "run_program",
      description: RUN_PREFACE + surface,
      inputSchema: {
        type: "object",
        properties: {
          code: {
            type: "string",
            description: "The whole program: imports, then its work, then export default.",
          },
        },
        required: ["code"],
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    {
      name: "search_tools",
      description: SEARCH_DESCRIPTION,
      inputSchema: {
        type: "object",
        properties: {
          query: {
            type: "string",
            description: `What you need, in words (at most ${MAX_SEARCH_QUERY_CHARS} characters).`,
          },
          limit: {
            type: "integer",
            minimum: 1,
            maximum: MAX_SEARCH_LIMIT,
            description: "How many hits at most.",
          },
        },
        required: ["query"],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ];
}

/** A failed tool call: one text block saying what happened, `isError` set. */
export function errorResult(text: string, structuredContent?: JsonObject): GatewayResult {
  return structuredContent === undefined
    ? { content: [{ type: "text", text }], isError: true }
    : { content: [{ type: "text", text }], structuredContent, isError: true };
}

/** The answer to a `run_program` past `MAX_SESSION_RUNS`: started nothing, saying to wait. */
export function tooManyRuns(): GatewayResult {
  return errorResult(
    `Cannot run the program: ${MAX_SESSION_RUNS} runs are under way in this session ` +
      "(MAX_SESSION_RUNS); wait for one to end, then run it again",
  );
}

/** The answer of `search_tools`: one line per hit, and the hits as data. */
export function searchResult(query: string, matches: readonly ToolMatch[]): GatewayResult {
  const hits = matches.map(({ server, tool, name, line }) => ({ server, tool, name, line }));
  const text = hits.length === 0
    ? `No tool matches ${JSON.stringify(query)}; try other words`
    : hits.map((hit) =>
      `${hit.server}.${hit.tool} (import { ${hit.name} } from "./mcp/${hit.server}.ts")\n  ${hit.line}`
    ).join("\n");
  return { content: [{ type: "text", text }], structuredContent: { matches: hits } };
}

/**
 * The answer of `run_program`, from its report: the returned value (as
 * text, and as `structuredContent.value`), the console output, and each call
 * (server, tool, ok, duration). A program refused, thrown, stopped or not
 * run is an `isError` result saying what happened.
 */
export function runResult(report: RunReport): GatewayResult {
  const calls = report.calls.map((call) => ({
    server: call.server,
    tool: call.tool,
    ok: call.outcome.ok && call.outcome.value.isError !== true,
    durationMs: Math.round(call.durationMs * 10) / 10,
    ...(call.outcome.ok ? {} : { error: call.outcome.error.kind }),
  }));
  const logs = report.logs;
  const tail = trailer(logs, calls);
  const outcome = report.outcome;
  const data = (extra: JsonObject): JsonObject => ({ ...extra, logs, calls } as JsonObject);
  switch (outcome.kind) {
    case "returned": {
      const text = outcome.value === undefined
        ? "(no value: the program has no export default)"
        : reportJson(outcome.value, 2);
      return {
        content: [{ type: "text", text: text + tail }],
        structuredContent: data(
          outcome.value === undefined ? {} : { value: reportValue(outcome.value) as JsonValue },
        ),
      };
    }
    case "rejected":
      return errorResult(
        `The program did not run: the type check refused it.\n\n` +
          `${formatDiagnostics(outcome.diagnostics)}\n\nFix it and run it again.`,
        { diagnostics: reportValue(outcome.diagnostics) as JsonValue },
      );
    case "threw":
      return errorResult(
        `The program threw ${outcome.name}: ${outcome.message}\n${outcome.stack}${tail}`,
        data({ threw: { name: outcome.name, message: outcome.message } }),
      );
    case "exited":
      return errorResult(
        `The program called Deno.exit(${outcome.code}) before it returned a value${tail}`,
        data({ exited: outcome.code }),
      );
    case "killed":
      return errorResult(
        `${killedText(outcome.reason, outcome.message, report)}${tail}`,
        data({ killed: outcome.reason }),
      );
    case "refused":
      return errorResult(outcome.message);
  }
}

function killedText(reason: string, message: string, report: RunReport): string {
  switch (reason) {
    case "timeout":
      return `The program ran past its deadline of ${report.limits.timeoutMs} ms and was ` +
        "stopped; do less in one program, or ask for a longer --deadline";
    case "calls":
      return `The program made more than ${report.limits.maxCalls} calls and was stopped`;
    case "aborted":
      return "The program was cancelled and stopped";
    default:
      return `The program was stopped (${reason}): ${message}`;
  }
}

function trailer(
  logs: readonly string[],
  calls: readonly { server: string; tool: string; ok: boolean; durationMs: number }[],
): string {
  let text = "";
  if (logs.length > 0) text += `\n\nConsole output:\n${logs.join("\n")}`;
  if (calls.length > 0) {
    text += `\n\nCalls:\n${
      calls.map((call) =>
        `${call.server}.${call.tool} ${call.ok ? "ok" : "failed"} ${call.durationMs} ms`
      ).join("\n")
    }`;
  }
  return text;
}

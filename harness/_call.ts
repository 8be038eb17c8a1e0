// Private to harness/: where a call goes. A call names a server of the
// catalog and one of its tools, by wire name or by function name; it is
// refused as a value (a CallDenial) before it leaves when the server is
// unknown or failed at boot, the tool unknown or out of reach, or its
// arguments not a JSON object; otherwise it goes to the server's client.

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import type { CallToolResult } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { toJson } from "../codec/interchange.ts";
import { quote } from "../codec/quote.ts";
import type { Generated } from "../codegen/generate.ts";
import { closestNames } from "../codegen/names.ts";
import type { Census } from "../client/census.ts";
import type { ClientError } from "../client/errors.ts";
import type { CallOptions } from "../client/client.ts";
import type { CallDenial, Harness, ServerReport } from "./types.ts";

/**
 * The harness's `call`: routes each call to the client of its server, or
 * refuses it (see the module doc).
 */
export function routeCalls(
  census: Census,
  reports: ReadonlyMap<string, ServerReport>,
): Harness["call"] {
  return async function call(
    server: string,
    tool: string,
    args: unknown,
    callOptions: CallOptions = {},
  ): Promise<Result<CallToolResult, CallDenial | ClientError>> {
    const report = reports.get(server);
    if (report === undefined) {
      return err({
        kind: "unknown_server",
        server,
        message: `Cannot call ${quote(server)}: no such server in the catalog; known servers: ` +
          (reports.size === 0 ? "none" : [...reports.keys()].join(", ")),
      });
    }
    if (report.state === "failed") {
      return err({
        kind: "server_failed",
        server,
        cause: report.failure,
        message: `Cannot call server ${quote(server)}: it failed at boot (${report.message})`,
      });
    }
    const named = resolveTool(report.generated, server, String(tool));
    if (!named.ok) return named;
    const wire = named.value;
    const json = toJson(args);
    if (!json.ok) {
      return err({
        kind: "invalid_arguments",
        server,
        tool: wire,
        path: json.error.path,
        message: `Cannot call tool ${quote(wire)} of ${quote(server)}: ${json.error.message}`,
      });
    }
    if (!isJsonObject(json.value)) {
      return err({
        kind: "invalid_arguments",
        server,
        tool: wire,
        path: "$",
        message: `Cannot call tool ${quote(wire)} of ${quote(server)}: the arguments must be an ` +
          `object, not ${kindOf(json.value)}`,
      });
    }
    const client = census.clients.get(server);
    if (client === undefined) {
      // The census is built from the same specs; this cannot be reached.
      throw new TypeError(`Server ${quote(server)} is missing from the census`);
    }
    return await client.callTool(wire, json.value as JsonObject, callOptions);
  };
}

/**
 * The wire name of a tool named by its wire name or its function's
 * identifier (the two never disagree, since generate() refuses a listing
 * where they could), or why there is none.
 */
export function resolveTool(
  generated: Generated,
  server: string,
  tool: string,
): Result<string, CallDenial> {
  if (generated.omitted.has(tool)) {
    return err({
      kind: "task_required",
      server,
      tool,
      message: `Cannot call tool ${quote(tool)} of ${quote(server)}: it requires ` +
        "task-augmented calls, which this client does not make",
    });
  }
  const wires = new Set(generated.manifest.values());
  if (wires.has(tool)) return ok(tool);
  const wire = generated.manifest.get(tool);
  if (wire !== undefined) return ok(wire);
  const close = closestNames(tool, [...generated.manifest.keys()]);
  return err({
    kind: "unknown_tool",
    server,
    tool,
    suggestions: close,
    message: `Cannot call tool ${quote(tool)}: server ${quote(server)} did not list it` +
      (close.length === 0 ? "" : `; did you mean ${close.join(", ")}?`),
  });
}

function kindOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

// Private to harness/: where a call goes. A call names a server of the
// catalog and one of its tools, by wire name or by function name; it is
// refused as a value (a CallDenial) before it leaves when the server is
// unknown or failed at boot, the tool unknown, out of reach, left out by the
// lists (`tool_disabled`) or not trusted (`tool_changed`), or its arguments
// not a JSON object or not what the tool's input schema asks for; then the
// approval hook is asked (a run's own, or the harness's); only then does it
// go to the server's client, and its result is checked against the tool's
// output schema. Everything before the hook is synchronous, so that calls
// take their place in the hook's queue in the order they were made.

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { toJson } from "../codec/interchange.ts";
import { quote } from "../codec/quote.ts";
import type { Generated } from "../codegen/generate.ts";
import { closestNames, identifierFor } from "../codegen/names.ts";
import type { Census } from "../client/census.ts";
import type { ClientError } from "../client/errors.ts";
import type { CallOptions } from "../client/client.ts";
import { callDeadlineMs } from "../settings/limits.ts";
import { isTimeoutMs } from "../settings/check.ts";
import type { Approve } from "../runner/host/approval.ts";
import type { CallContext, CallResult } from "../runner/host/run.ts";
import type { ApprovalGate } from "./_approval.ts";
import type { Exposure } from "./_listing.ts";
import { checkArguments, checkResult } from "./_schemas.ts";
import type { AskRouter } from "./_asking.ts";
import type { CallDenial, ServerReport, WithheldReason } from "./types.ts";

/** What calls are routed by: the census, how each server's boot ended, what each exposes now. */
export type Routes = {
  census: Census;
  reports: ReadonlyMap<string, ServerReport>;
  exposures: ReadonlyMap<string, Exposure>;
  gate: ApprovalGate;
  /** The harness's approval hook, when it has one. */
  approve: Approve | undefined;
  /** Who answers what a server asks during a call: the call's run, or boot. */
  asking?: AskRouter;
};

/** One call as the harness routes it: the public `call`'s, or a run's (with its context). */
export type RoutedCall = (
  server: string,
  tool: string,
  args: unknown,
  options: CallOptions,
  context: CallContext | undefined,
) => Promise<Result<CallResult, CallDenial | ClientError>>;

/** The harness's own calls share one approval queue. */
const HARNESS_QUEUE = {};

/**
 * The harness's `call`: routes each call to the client of its server, or
 * refuses it (see the module doc).
 */
export function routeCalls(routes: Routes): RoutedCall {
  return function call(server, tool, args, callOptions, context) {
    const checked = admit(routes, server, String(tool), args);
    if (!checked.ok) return Promise.resolve(checked);
    const { wire, json, exposure } = checked.value;
    const client = routes.census.clients.get(server);
    if (client === undefined) {
      // The census is built from the same specs; this cannot be reached.
      throw new TypeError(`Server ${quote(server)} is missing from the census`);
    }
    const send = async (
      timeoutMs: number | undefined,
    ): Promise<Result<CallResult, CallDenial | ClientError>> => {
      const options = timeoutMs === undefined ? callOptions : { ...callOptions, timeoutMs };
      const calling = () => client.callTool(wire, json, options);
      const asking = routes.asking;
      const result =
        await (asking === undefined ? calling() : asking.within(server, wire, context, calling));
      if (!result.ok) return result;
      // The schemas of the listing the call was admitted by.
      const schemas = exposure.schemas.get(wire);
      return checkResult(server, wire, schemas, result.value, client.spec.resultCheck ?? "refuse");
    };
    const approve = context?.approve ?? routes.approve;
    if (approve === undefined) return send(undefined);
    if (callOptions.timeoutMs !== undefined && !isTimeoutMs(callOptions.timeoutMs)) {
      // The client's own refusal of a bad deadline, before the hook is bothered.
      return send(callOptions.timeoutMs);
    }
    const timeoutMs = callDeadlineMs(client.spec, callOptions.timeoutMs);
    const asked = performance.now();
    const listed = exposure.byWire.get(wire);
    const approval = routes.gate.ask(approve, {
      server,
      tool: wire,
      name: exposure.functions.get(wire) ?? identifierFor(wire),
      args: json,
      annotations: isJsonObject(listed?.annotations) ? { ...listed.annotations } : {},
      run: context?.run,
    }, {
      queue: context?.run ?? HARNESS_QUEUE,
      timeoutMs,
      signal: callOptions.signal,
    });
    return approval.then((verdict) => {
      if (!verdict.ok) return verdict;
      // The hook's time counts in the call's deadline.
      return send(Math.max(1, Math.ceil(timeoutMs - (performance.now() - asked))));
    });
  };
}

type Admitted = { wire: string; json: JsonObject; exposure: Exposure };

// Every refusal a call can meet before the approval hook, in order.
function admit(
  routes: Routes,
  server: string,
  tool: string,
  args: unknown,
): Result<Admitted, CallDenial> {
  const report = routes.reports.get(server);
  if (report === undefined) {
    return err({
      kind: "unknown_server",
      server,
      message: `Cannot call ${quote(server)}: no such server in the catalog; known servers: ` +
        (routes.reports.size === 0 ? "none" : [...routes.reports.keys()].join(", ")),
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
  const exposure = routes.exposures.get(server);
  // A ready server's exposure is set with its report; this cannot be reached.
  if (exposure === undefined) throw new TypeError(`Server ${quote(server)} has no listing`);
  const named = resolveTool(exposure, server, tool);
  if (!named.ok) return named;
  const wire = named.value;
  const json = toJson(args);
  if (!json.ok) {
    return err({
      kind: "invalid_arguments",
      server,
      tool: wire,
      path: json.error.path,
      rule: "json",
      message: `Cannot call tool ${quote(wire)} of ${quote(server)}: ${json.error.message}`,
    });
  }
  if (!isJsonObject(json.value)) {
    return err({
      kind: "invalid_arguments",
      server,
      tool: wire,
      path: "$",
      rule: "type",
      message: `Cannot call tool ${quote(wire)} of ${quote(server)}: the arguments must be an ` +
        `object, not ${kindOf(json.value)}`,
    });
  }
  const broken = checkArguments(server, wire, exposure.schemas.get(wire), json.value);
  if (broken !== undefined) return err(broken);
  return ok({ wire, json: json.value, exposure });
}

/** What names a server's tools: its module, what it withholds and every tool's function name. */
type Named = {
  generated: Generated;
  withheld: ReadonlyMap<string, WithheldReason>;
  functions: ReadonlyMap<string, string>;
};

/**
 * The wire name of a tool named by its wire name or its function's
 * identifier (the two never disagree, since generate() refuses a listing
 * where they could), or why there is none: withheld tools are named as such.
 */
export function resolveTool(
  exposure: Named,
  server: string,
  tool: string,
): Result<string, CallDenial> {
  const generated: Generated = exposure.generated;
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
  // A withheld tool's wire name names that tool, even when another tool's
  // function shares it: it is refused as itself, never run as the other.
  const direct = exposure.withheld.get(tool);
  const wire = direct === undefined ? generated.manifest.get(tool) : undefined;
  if (wire !== undefined) return ok(wire);
  const withheld: [string, string] | undefined = direct === undefined
    ? withheldTool(exposure, tool)
    : [tool, direct];
  if (withheld !== undefined) {
    const [name, reason] = withheld;
    if (reason === "disabled") {
      return err({
        kind: "tool_disabled",
        server,
        tool: name,
        message: `Cannot call tool ${quote(name)} of ${quote(server)}: the server's ` +
          "enabledTools or disabledTools leave it out",
      });
    }
    return err({
      kind: "tool_changed",
      server,
      tool: name,
      message: `Cannot call tool ${quote(name)} of ${quote(server)}: ` +
        (reason === "changed"
          ? "its definition changed since it was pinned"
          : "it is new since the pins were taken") +
        ", and the change has not been accepted",
    });
  }
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

function withheldTool(
  exposure: Named,
  tool: string,
): [string, string] | undefined {
  const direct = exposure.withheld.get(tool);
  if (direct !== undefined) return [tool, direct];
  for (const [wire, reason] of exposure.withheld) {
    if (exposure.functions.get(wire) === tool) return [wire, reason];
  }
  return undefined;
}

function kindOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

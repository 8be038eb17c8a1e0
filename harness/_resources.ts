// Private to harness/: where a resource read goes, for the harness and for a
// program's `read_resource(uri)`. A read names a server of the catalog; it is
// refused as a value before it leaves when the server is unknown or failed at
// boot (the client refuses one that declared no resources); otherwise it goes
// to the server's client, the URI as given (servers decide what they serve).
// A program's read passes the approval hook first, as its calls do: in the
// same queue, its wait counted in the read's deadline.

import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { Census } from "../client/census.ts";
import type { ApprovalRequest, Approve } from "../runner/host/approval.ts";
import type { ReadResourceResult } from "../client/resources.ts";
import type { CallFailure, ReadContext } from "../runner/host/run.ts";
import { callDeadlineMs } from "../settings/limits.ts";
import type { ApprovalGate } from "./_approval.ts";
import type { Harness, ServerReport } from "./types.ts";

/** The harness's `readResource`: routes each read to the client of its server, or refuses it. */
export function routeReads(
  census: Census,
  reports: ReadonlyMap<string, ServerReport>,
): Harness["readResource"] {
  return function readResource(server, uri, options = {}) {
    const refused = refusal(reports, server);
    if (refused !== undefined) return Promise.resolve(refused);
    const client = census.clients.get(server);
    if (client === undefined) {
      throw new TypeError(`Server ${quote(server)} is missing from the census`);
    }
    return client.readResource(String(uri), options);
  };
}

/**
 * Why a request to `server` is refused before it leaves, if it is; `what`
 * says what was asked ("read a resource of").
 */
export function refusal(
  reports: ReadonlyMap<string, ServerReport>,
  server: string,
  what = "read a resource of",
) {
  const report = reports.get(server);
  if (report === undefined) {
    return err({
      kind: "unknown_server" as const,
      server,
      message: `Cannot ${what} ${quote(server)}: no such server in the catalog`,
    });
  }
  if (report.state === "failed") {
    return err({
      kind: "server_failed" as const,
      server,
      cause: report.failure,
      message: `Cannot ${what} ${quote(server)}: it failed at boot (${report.message})`,
    });
  }
  return undefined;
}

/** What a program's read is judged by before it leaves: the hook, its queues, each server's deadline. */
export type ReadApproval = {
  gate: ApprovalGate;
  /** How each server's boot ended. */
  reports: ReadonlyMap<string, ServerReport>;
  /** The harness's approval hook, when it has one (a run's own replaces it). */
  approve: Approve | undefined;
  /** The deadline of a read of `server`, in milliseconds. */
  timeoutMs: (server: string) => number;
};

/** The deadline of a read of a server of `census`: its spec's call deadline. */
export function readTimeout(census: Census): (server: string) => number {
  return (server) => callDeadlineMs(census.clients.get(server)?.spec ?? {});
}

/**
 * A program's read of a resource, as the runner hands it over: the server
 * and a URI the host already read from the sandbox's `read` frame as a
 * string. The approval hook is asked first, as for a call; then the read
 * goes to the server's client.
 */
export async function readForProgram(
  read: Harness["readResource"],
  approval: ReadApproval,
  server: string,
  uri: string,
  context: ReadContext = {},
): Promise<Result<ReadResourceResult, CallFailure>> {
  const approved = await approveRead(approval, {
    server,
    tool: "resources/read",
    name: "read_resource",
    args: { uri },
    resource: uri,
  }, context);
  if (!approved.ok) return approved;
  const { signal } = context;
  const timeoutMs = approved.value;
  return await read(server, uri, {
    ...(signal === undefined ? {} : { signal }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

/**
 * Asks the approval hook (the run's, or the harness's) about one of a
 * program's reads (a resource, a prompt) in the run's queue: what is left of
 * the read's deadline once allowed (`undefined` without a hook), or the
 * refusal. An unknown or failed server is refused before the hook is bothered.
 */
export async function approveRead(
  approval: ReadApproval,
  request: Pick<ApprovalRequest, "server" | "tool" | "name" | "args" | "resource" | "prompt">,
  context: ReadContext,
): Promise<Result<number | undefined, CallFailure>> {
  const approve = context.approve ?? approval.approve;
  if (approve === undefined) return ok(undefined);
  const what = request.prompt === undefined ? "read a resource of" : "get a prompt of";
  const refused = refusal(approval.reports, request.server, what);
  if (refused !== undefined) return refused;
  const deadline = approval.timeoutMs(request.server);
  const asked = performance.now();
  const verdict = await approval.gate.ask(approve, {
    ...request,
    annotations: {},
    run: context.run,
  }, { queue: context.run ?? approval, timeoutMs: deadline, signal: context.signal });
  if (!verdict.ok) return verdict;
  // The hook's time counts in the read's deadline.
  return ok(Math.max(1, Math.ceil(deadline - (performance.now() - asked))));
}

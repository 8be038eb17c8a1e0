// Private to harness/: where a resource read goes, for the harness and for a
// program's `read_resource(uri)`. A read names a server of the catalog; it is
// refused as a value before it leaves when the server is unknown or failed at
// boot (the client refuses one that declared no resources); otherwise it goes
// to the server's client, the URI as given (servers decide what they serve).
// A program's read passes the approval hook first, as its calls do: in the
// same queue, its wait counted in the read's deadline.

import { err, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { Census } from "../client/census.ts";
import type { Approve } from "../runner/host/approval.ts";
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
  const { signal } = context;
  const approve = context.approve ?? approval.approve;
  let timeoutMs: number | undefined;
  if (approve !== undefined) {
    // An unknown or failed server is refused before the hook is bothered.
    const refused = refusal(approval.reports, server);
    if (refused !== undefined) return refused;
    const deadline = approval.timeoutMs(server);
    const asked = performance.now();
    const verdict = await approval.gate.ask(approve, {
      server,
      tool: "resources/read",
      name: "read_resource",
      args: { uri },
      annotations: {},
      run: context.run,
      resource: uri,
    }, { queue: context.run ?? approval, timeoutMs: deadline, signal });
    if (!verdict.ok) return verdict;
    // The hook's time counts in the read's deadline.
    timeoutMs = Math.max(1, Math.ceil(deadline - (performance.now() - asked)));
  }
  return await read(server, uri, {
    ...(signal === undefined ? {} : { signal }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

// Private to harness/: where a resource read goes, for the harness and for a
// program's `read_resource(uri)`. A read names a server of the catalog; it is
// refused as a value before it leaves when the server is unknown or failed at
// boot (the client refuses one that declared no resources); otherwise it goes
// to the server's client, the URI as given (servers decide what they serve).

import type { CallToolResult } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { Census } from "../client/census.ts";
import type { CallFailure } from "../runner/run.ts";
import type { Harness, ServerReport } from "./types.ts";

/** The harness's `readResource`: routes each read to the client of its server, or refuses it. */
export function routeReads(
  census: Census,
  reports: ReadonlyMap<string, ServerReport>,
): Harness["readResource"] {
  return function readResource(server, uri, options = {}) {
    const report = reports.get(server);
    if (report === undefined) {
      return Promise.resolve(err({
        kind: "unknown_server",
        server,
        message: `Cannot read a resource of ${quote(server)}: no such server in the catalog`,
      }));
    }
    if (report.state === "failed") {
      return Promise.resolve(err({
        kind: "server_failed",
        server,
        cause: report.failure,
        message: `Cannot read a resource of ${
          quote(server)
        }: it failed at boot (${report.message})`,
      }));
    }
    const client = census.clients.get(server);
    if (client === undefined) {
      throw new TypeError(`Server ${quote(server)} is missing from the census`);
    }
    return client.readResource(String(uri), options);
  };
}

/**
 * A program's read, as a call's outcome: each content a `resource` block
 * (which `cap.ts` turns back into the contents), or why it was refused.
 */
export async function readAsCall(
  read: Harness["readResource"],
  server: string,
  args: unknown,
  signal: AbortSignal | undefined,
): Promise<Result<CallToolResult, CallFailure>> {
  const uri = (args as { uri?: unknown } | null)?.uri;
  if (typeof uri !== "string") {
    return err({
      kind: "invalid_arguments",
      message: `Cannot read a resource of ${quote(server)}: its uri is not a string`,
    });
  }
  const outcome = await read(server, uri, signal === undefined ? {} : { signal });
  if (!outcome.ok) return outcome;
  return ok({
    content: outcome.value.contents.map((resource) => ({ type: "resource" as const, resource })),
    isError: false,
  });
}

// Private to harness/: one server's boot, start to module: connect, list
// every page, adopt the listing (its lists, its pins, its module). Each
// step's failure is the report's, with the server's stderr tail where one
// came back.

import { quote } from "../codec/quote.ts";
import type { Census } from "../client/census.ts";
import { bootSteps } from "./_boot_steps.ts";
import { adoptListing, type Exposure, type ListingContext } from "./_listing.ts";
import type { BootFailure, BootOptions, ServerReport } from "./types.ts";

/** How one server's boot ended, with what it exposes when it is ready. */
export type Booted = {
  report: ServerReport;
  exposure?: Exposure;
  /** When its listing began, and how long the server says it stays fresh. */
  listed?: { at: number; ttlMs?: number };
};

/** Boots the server `name` of the census and says how its boot ended. */
export async function bootOne(
  census: Census,
  name: string,
  started: number,
  options: BootOptions,
  context: ListingContext,
  listing: (at: number) => void = () => {},
): Promise<Booted> {
  const client = census.clients.get(name);
  if (client === undefined) throw new TypeError(`Server ${quote(name)} is missing from the census`);
  const failed = (failure: BootFailure, stderrTail: string): Booted => ({
    report: {
      state: "failed",
      name,
      failure,
      message: failure.error.message,
      stderrTail,
      elapsedMs: performance.now() - started,
    },
  });
  const connected = await bootSteps.connect(client);
  if (!connected.ok) {
    return failed({ stage: "start", error: connected.error }, connected.error.stderrTail);
  }
  const at = performance.now();
  listing(at);
  const listed = await bootSteps.list(
    client,
    options.listTimeoutMs === undefined ? {} : { timeoutMs: options.listTimeoutMs },
  );
  if (!listed.ok) {
    const tail = "stderrTail" in listed.error ? listed.error.stderrTail : "";
    return failed({ stage: "list", error: listed.error }, tail);
  }
  const adopted = await adoptListing(context, listed.value.tools, "boot");
  if (!adopted.ok) return failed({ stage: "generate", error: adopted.error }, "");
  const { exposure, warnings } = adopted.value;
  return {
    report: {
      state: "ready",
      name,
      info: connected.value,
      tools: exposure.tools,
      generated: exposure.generated,
      withheld: exposure.withheld,
      warnings,
      elapsedMs: performance.now() - started,
    },
    exposure,
    listed: listed.value.ttlMs === undefined ? { at } : { at, ttlMs: listed.value.ttlMs },
  };
}

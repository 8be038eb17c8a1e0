// Private to harness/: what the harness makes of a server's generations
// after boot. Each death of a ready server, each restart and each failed one
// is told to `onServer` (as a `failed` report at stage `run`, a `ready`
// report, or a `failed` one at stage `start`, each with its generation). A
// restarted server's listing is taken again and handed to the harness's
// adoption (`adoptListing`), compared with the listing its module was made
// from: unchanged, the module and surface stay as they are; changed, the
// report says so and, until a pinning harness adopts it, the module stays.
//
// The seam for pins: `adoptListing` is the one place a restarted server's
// listing reaches the harness. A harness that pins definitions replaces it
// with its own comparison against the pinned ones (and its own handling of
// a change, the same as for `notifications/tools/list_changed`).

import { compactJson } from "../codec/json.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import type { Census } from "../client/census.ts";
import type { GenerationEvent } from "../client/supervisor.ts";
import type { BootOptions, ServerReport } from "./types.ts";

/** How a restarted server's listing was taken in: as it was, or changed. */
export type Adoption = "unchanged" | "changed";

/** Takes in a restarted server's fresh listing, given the one its module was made from. */
export type AdoptListing = (
  server: string,
  pinned: readonly ToolDescriptor[],
  fresh: readonly ToolDescriptor[],
) => Adoption;

/** Whether two listings say the same tools, in any order. */
export function sameListing(a: readonly ToolDescriptor[], b: readonly ToolDescriptor[]): boolean {
  const render = (tools: readonly ToolDescriptor[]) =>
    tools.map((tool) => compactJson(tool as never)).sort().join("\n");
  return a.length === b.length && render(a) === render(b);
}

/** The adoption of a harness without pins: the boot's listing stays the one served. */
export const keepBootListing: AdoptListing = (_server, pinned, fresh) =>
  sameListing(pinned, fresh) ? "unchanged" : "changed";

/** Follows every client's generations (see the module doc); returns how to stop. */
export function watchGenerations(
  census: Census,
  reports: ReadonlyMap<string, ServerReport>,
  options: BootOptions,
  adopt: AdoptListing = keepBootListing,
): () => void {
  const stops: (() => void)[] = [];
  for (const [name, client] of census.clients) {
    let diedAt = performance.now();
    const tell = (report: ServerReport) => {
      try {
        options.onServer?.(report);
      } catch {
        // After boot, a progress callback that throws changes nothing.
      }
    };
    const failed = (
      failure: Extract<ServerReport, { state: "failed" }>["failure"],
      generation: number,
    ): ServerReport => ({
      state: "failed",
      name,
      failure,
      message: failure.error.message,
      stderrTail: client.stderrTail(),
      elapsedMs: performance.now() - diedAt,
      generation,
    });
    const heard = async (event: GenerationEvent) => {
      if (event.kind === "died") {
        diedAt = performance.now();
        tell(failed({ stage: "run", error: event.death, next: event.next }, event.generation));
        return;
      }
      if (event.kind === "restart_failed") {
        tell(failed({ stage: "start", error: event.error }, event.generation));
        return;
      }
      const boot = reports.get(name);
      if (boot?.state !== "ready") return;
      const listed = await client.listTools(
        options.listTimeoutMs === undefined ? {} : { timeoutMs: options.listTimeoutMs },
      );
      if (!listed.ok) {
        tell(failed({ stage: "list", error: listed.error }, event.generation));
        return;
      }
      tell({
        ...boot,
        info: event.info,
        elapsedMs: performance.now() - diedAt,
        generation: event.generation,
        listing: adopt(name, boot.tools, listed.value),
      });
    };
    stops.push(client.listen((event) => void heard(event)));
  }
  return () => stops.forEach((stop) => stop());
}

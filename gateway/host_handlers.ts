/**
 * The handlers that put a downstream server's questions to the host of a
 * gateway: give {@linkcode hostHandlers} to `boot`, and an elicitation or a
 * sampling request a server makes while a host's program runs goes up to
 * that host (as a request of a 2025 host's session, or an `input_required`
 * result to a 2026-07-28 host); one no host's program claims, or asked of a
 * host that did not declare the capability, is declined.
 *
 * @module
 */

import type { ServerRequestHandlers } from "../client/handlers.ts";

/**
 * The `onElicit` and `onSample` handlers to give `boot` so that the servers
 * are told they may ask (their capabilities are declared from boot's
 * handlers). A question is answered by the host whose program's call asked
 * it, through that run's own handlers; one no running program claims is
 * declined (an elicitation) or refused (a sampling request).
 *
 * @example Boot so that servers' questions reach the host
 * ```ts ignore
 * import { boot, serveHarness } from "@loom/mcp";
 * import { hostHandlers } from "@loom/mcp/gateway";
 * const harness = await boot(specs, { ...hostHandlers() });
 * await serveHarness(harness);
 * await harness.retire();
 * ```
 */
export function hostHandlers(): Required<Pick<ServerRequestHandlers, "onElicit" | "onSample">> {
  return {
    onElicit: () => Promise.resolve({ action: "decline" }),
    onSample: () =>
      Promise.reject(
        new Error(
          "no host's program made the call that asked, so no host can be asked to sample",
        ),
      ),
  };
}

/**
 * The handlers that put a downstream server's questions to the host of a
 * gateway: give {@linkcode hostHandlers} to `boot`, and an elicitation or a
 * sampling request a server makes while a host's program runs goes up to
 * that host (as a request of a 2025 host's session, or an `input_required`
 * result to a 2026-07-28 host); with no program running, or a host that did
 * not declare the capability, it is declined.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import type { ServerRequestHandlers } from "../client/handlers.ts";
import { currentHost } from "./_asking.ts";

/**
 * The `onElicit` and `onSample` handlers that forward to the host whose
 * program is running (the one started last, while several run).
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
    onElicit: async (request) => {
      const host = currentHost();
      if (host === undefined || !host.can(request.mode)) return { action: "decline" };
      const message = `The MCP server ${JSON.stringify(request.server)} asks: ${request.message}`;
      const params: JsonObject = request.mode === "form"
        ? {
          message,
          requestedSchema: request.requestedSchema ?? { type: "object", properties: {} },
        }
        : {
          mode: "url",
          message,
          url: request.url ?? "",
          elicitationId: request.elicitationId ?? "",
        };
      const answer = await host.ask("elicitation/create", params);
      if (!answer.ok) return { action: "cancel" };
      const action = answer.value.action;
      if (action !== "accept" && action !== "decline" && action !== "cancel") {
        return { action: "cancel" };
      }
      const content = answer.value.content;
      return action === "accept" && isJsonObject(content)
        ? { action, content: content as Record<string, string | number | boolean | string[]> }
        : { action };
    },
    onSample: async (request) => {
      const host = currentHost();
      if (host === undefined) {
        throw new Error("no program of a host is running, so no host can be asked to sample");
      }
      if (!host.can("sampling")) {
        throw new Error(
          "the host declared no sampling capability, so it cannot be asked to sample",
        );
      }
      const { server: _server, ...params } = request;
      const answer = await host.ask("sampling/createMessage", params as JsonObject);
      if (!answer.ok) throw new Error(`the host did not sample: ${answer.error}`);
      const { role, content, model, stopReason } = answer.value;
      if ((role !== "user" && role !== "assistant") || typeof model !== "string") {
        throw new Error("the host's sampling answer has no role or no model");
      }
      return typeof stopReason === "string"
        ? { role, content: content as JsonValue, model, stopReason }
        : { role, content: content as JsonValue, model };
    },
  };
}

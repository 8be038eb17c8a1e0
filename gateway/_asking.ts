// Private to gateway/: how a running program's host is asked. Each program
// runs with handlers of its own (harness.run's onElicit and onSample) made
// from its request's asker, so a downstream server's question reaches the
// host whose program asked it, whichever other hosts' programs run at once.

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import type { ServerRequestHandlers } from "../client/handlers.ts";
import { quote } from "../codec/quote.ts";
import { err, type Result } from "../codec/result.ts";
import { MAX_FORWARDED_MESSAGE_CHARS } from "./limits.ts";

/**
 * A question a host can be asked: a form, a URL to visit, or a completion of
 * its model, plain or with tools the model may call (`sampling_tools`).
 */
export type HostQuestion = "form" | "url" | "sampling" | "sampling_tools";

/**
 * How one host request's program asks its host: whether the host declared
 * it can answer, the asking itself (the host's answer, or why none), and
 * the giving up on every question still unanswered once the run is over
 * (a 2025 host is told with `notifications/cancelled`).
 */
export type HostAsker = {
  can(question: HostQuestion): boolean;
  /** Asks the host; `signal` aborting (the server withdrew its question) gives the asking up. */
  ask(
    method: "elicitation/create" | "sampling/createMessage",
    params: JsonObject,
    signal?: AbortSignal,
  ): Promise<Result<JsonObject, string>>;
  drop(reason: string): void;
  /**
   * Tells the host a notification outside any request, where its session
   * can hear one (a 2025 host); absent where none can (a 2026-07-28 host).
   */
  tell?(method: string, params: JsonObject): void;
};

/** The handlers of one run: its questions go to the host `host` asks. */
export function askingHandlers(
  host: HostAsker,
): Required<Pick<ServerRequestHandlers, "onElicit" | "onSample">> {
  return {
    onElicit: async (request, context) => {
      if (!host.can(request.mode)) return { action: "decline" };
      // The server's text goes to the host's user under the gateway's name: quoted, and cut.
      const message = `The MCP server ${JSON.stringify(request.server)} asks: ${
        quote(request.message, MAX_FORWARDED_MESSAGE_CHARS)
      }`;
      // A 2026-07-28 server names no elicitation: the host, asked in the 2025 shape, is given one.
      const elicitationId = request.elicitationId ?? crypto.randomUUID();
      const params: JsonObject = request.mode === "form"
        ? {
          message,
          requestedSchema: request.requestedSchema ?? { type: "object", properties: {} },
        }
        : { mode: "url", message, url: request.url ?? "", elicitationId };
      const answer = await host.ask("elicitation/create", params, context?.signal);
      if (!answer.ok) return { action: "cancel" };
      const action = answer.value.action;
      if (action !== "accept" && action !== "decline" && action !== "cancel") {
        return { action: "cancel" };
      }
      // The server's word that the visit is done goes on to the host that was sent there.
      if (action === "accept" && request.mode === "url") {
        void context?.completed?.then(() =>
          host.tell?.("notifications/elicitation/complete", { elicitationId })
        );
      }
      const content = answer.value.content;
      return action === "accept" && isJsonObject(content)
        ? { action, content: content as Record<string, string | number | boolean | string[]> }
        : { action };
    },
    onSample: async (request, context) => {
      if (!host.can("sampling")) {
        throw new Error(
          "the host declared no sampling capability, so it cannot be asked to sample",
        );
      }
      // The servers are told the harness samples with tools; only the host can say it does.
      const withTools = request.tools !== undefined || request.toolChoice !== undefined;
      if (withTools && !host.can("sampling_tools")) {
        throw new Error(
          "the host declared no sampling.tools capability, so it cannot be asked to sample " +
            "with tools; ask without tools and toolChoice",
        );
      }
      const { server: _server, ...params } = request;
      const answer = await host.ask(
        "sampling/createMessage",
        params as JsonObject,
        context?.signal,
      );
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

// Search and describe never ask; a modern request's other tools get this.
export const noHost: HostAsker = {
  can: () => false,
  ask: () => Promise.resolve(err("nothing is asked outside a program")),
  drop: () => {},
};

/** Whether capabilities a host declared let it answer `question`. */
export function capable(caps: JsonObject, question: HostQuestion): boolean {
  const sampling = caps.sampling;
  if (question === "sampling") return isJsonObject(sampling);
  if (question === "sampling_tools") return isJsonObject(sampling) && isJsonObject(sampling.tools);
  const elicitation = caps.elicitation;
  if (!isJsonObject(elicitation)) return false;
  // An empty elicitation capability is form mode (2025-06-18 had no modes).
  if (question === "form") return isJsonObject(elicitation.form) || !("url" in elicitation);
  return isJsonObject(elicitation.url);
}

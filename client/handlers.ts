/**
 * What a harness answers when a server asks: an elicitation (`onElicit`: a
 * question for the user, as a form or a URL to visit), a sampling request
 * (`onSample`: a completion from the harness's model) and the roots it lists
 * (`roots`). Each is given once, to `boot` or `Census.prepare`, and answers
 * both eras: a legacy server's request, and a 2026-07-28 `input_required`
 * result's input request. A client declares a capability only when its
 * handler or setting is given.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../codec/json.ts";
import type { ContentBlock } from "../codec/protocol.ts";
import type { Root } from "../settings/server_spec.ts";

/**
 * What a client answers when its server asks, each given only when it can.
 * The shapes are written out here (the root export holds a bounded number
 * of names); {@linkcode ElicitationRequest} and the others name them.
 */
export type ServerRequestHandlers = {
  /**
   * Answers an elicitation: a form to fill in (`requestedSchema`) or a URL
   * for the user to visit, asked by `server`, during a call to `tool` when
   * known; server text, untrusted wherever it is shown. A URL comes as
   * parsed (`URL.href`, the one a browser opens; never one with a user name
   * or password before its host), with its `elicitationId`
   * in the handshake era (the 2026-07-28 shape has none). `accept` carries
   * the form's values (checked against the schema, its defaults filled in
   * for fields left out). The `elicitation` capability is declared only
   * when given; a handler that throws is a `cancel` that names the error.
   * `context.signal` (always given by this client) aborts once no answer is wanted any more: the server
   * cancelled its request (`notifications/cancelled`), the call it was asked
   * in was given up (its caller's signal; a legacy server's request, which
   * names no call, is taken to be asked for the calls in flight when it came),
   * or the client ended; whatever the handler answers then is not sent, and
   * it is no longer waited for. Elicitations are asked one at a time,
   * and one withdrawn while it waits its turn is never asked. A URL
   * elicitation with an `elicitationId` is given `context.completed`, which
   * settles once the server says the interaction at the URL is complete
   * (`notifications/elicitation/complete`), if it ever does, and only when
   * the handler accepted: a handler may keep it to close what it showed.
   */
  onElicit?: (request: {
    server: string;
    mode: "form" | "url";
    message: string;
    requestedSchema?: JsonObject;
    url?: string;
    elicitationId?: string;
    tool?: string;
  }, context?: { signal: AbortSignal; completed?: Promise<void> }) => Promise<{
    action: "accept" | "decline" | "cancel";
    content?: Record<string, string | number | boolean | string[]>;
  }>;
  /**
   * Answers a sampling request: the server's `sampling/createMessage`
   * params (tools among them, 2025-11-25) and who asks; the answer is the
   * model's message. The `sampling` capability is declared only when given;
   * a handler that throws refuses the request, naming the error.
   * `context.signal` aborts once no answer is wanted, as `onElicit`'s does.
   */
  onSample?: (request: {
    server: string;
    messages: { role: "user" | "assistant"; content: ContentBlock | ContentBlock[] }[];
    maxTokens: number;
    systemPrompt?: string;
    includeContext?: "none" | "thisServer" | "allServers";
    temperature?: number;
    stopSequences?: string[];
    modelPreferences?: JsonValue;
    metadata?: JsonValue;
    tools?: JsonValue;
    toolChoice?: JsonValue;
  }, context?: { signal: AbortSignal }) => Promise<{
    role: "user" | "assistant";
    content: ContentBlock | ContentBlock[] | JsonValue;
    model: string;
    stopReason?: string;
  }>;
  /**
   * The roots listed to every server whose spec has none of its own, each
   * a `file:` URI; the `roots` capability is declared only when a server
   * has roots.
   */
  roots?: readonly { uri: string; name?: string }[];
};

/** Answers an elicitation (`ServerRequestHandlers.onElicit`). */
export type ElicitHandler = NonNullable<ServerRequestHandlers["onElicit"]>;
/** What a server asks the user, in form mode or URL mode. */
export type ElicitationRequest = Parameters<ElicitHandler>[0];
/** The user's answer to an elicitation. */
export type ElicitationAnswer = Awaited<ReturnType<ElicitHandler>>;
/** Answers a sampling request (`ServerRequestHandlers.onSample`). */
export type SampleHandler = NonNullable<ServerRequestHandlers["onSample"]>;
/** What a server asks the harness's model: its `sampling/createMessage` params, and who asks. */
export type SamplingRequest = Parameters<SampleHandler>[0];
/** The model's answer to a sampling request. */
export type SamplingAnswer = Awaited<ReturnType<SampleHandler>>;

export type { Root };

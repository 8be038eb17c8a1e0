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
import type { CreateMessageRequest, ElicitField } from "../codec/server_requests.ts";
import type { Root } from "../settings/server_spec.ts";

/** What a server asks the user, in form mode or URL mode. */
export type ElicitationRequest = {
  /** The server that asks. */
  server: string;
  /** A form to fill in, or a URL for the user to visit. */
  mode: "form" | "url";
  /** What the server says to the user; server text, untrusted wherever it is shown. */
  message: string;
  /** The form's JSON Schema as the server sent it (form mode). */
  requestedSchema?: JsonObject;
  /** The form's fields, decoded (form mode): each flat and primitive. */
  fields?: ElicitField[];
  /** The URL to visit (URL mode). */
  url?: string;
  /** The server's name for this elicitation (URL mode). */
  elicitationId?: string;
  /** The tool whose call asked, when known. */
  tool?: string;
};

/**
 * The user's answer: `accept` with the form's `content` (checked against
 * the schema, its defaults filled in for fields left out), `decline`, or
 * `cancel` (dismissed).
 */
export type ElicitationAnswer = {
  action: "accept" | "decline" | "cancel";
  /** The form's values, by field name (form mode, `accept` only). */
  content?: Record<string, string | number | boolean | string[]>;
};

/** Answers an elicitation; a handler that throws is a `cancel` that names the error. */
export type ElicitHandler = (request: ElicitationRequest) => Promise<ElicitationAnswer>;

/** What a server asks the harness's model: its `sampling/createMessage` params, and who asks. */
export type SamplingRequest = CreateMessageRequest & {
  /** The server that asks. */
  server: string;
};

/** The model's answer to a sampling request. */
export type SamplingAnswer = {
  role: "user" | "assistant";
  /** One block, or several (a tool use among them, 2025-11-25). */
  content: ContentBlock | ContentBlock[] | JsonValue;
  /** The model that answered. */
  model: string;
  /** Why it stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, or its own). */
  stopReason?: string;
};

/** Answers a sampling request; a handler that throws refuses it, naming the error. */
export type SampleHandler = (request: SamplingRequest) => Promise<SamplingAnswer>;

/** What a client answers when its server asks, each given only when it can. */
export type ServerRequestHandlers = {
  /** Answers elicitations; the `elicitation` capability is declared only when given. */
  onElicit?: ElicitHandler;
  /** Answers sampling requests; the `sampling` capability is declared only when given. */
  onSample?: SampleHandler;
  /**
   * The roots listed to every server whose spec has none of its own; the
   * `roots` capability is declared only when a server has roots.
   */
  roots?: readonly Root[];
};

export type { Root };

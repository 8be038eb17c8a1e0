/**
 * A server's prompts and completions, as a client asks for them
 * (`prompts/list`, `prompts/get`, `completion/complete`): why one is refused
 * before anything is sent (the server declared no `prompts`, or no
 * `completions`, when it connected), and the decoders of their results. Server
 * text (names, descriptions, messages) is carried as the server wrote it and
 * is untrusted downstream.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "../codec/json.ts";
import {
  type CompleteResult,
  decodeCompleteResult,
  decodeGetPromptResult,
  type GetPromptResult,
} from "../codec/prompts.ts";
import type { Era, ProtocolFault } from "../codec/protocol.ts";
import { quote } from "../codec/quote.ts";
import { err, type Result } from "../codec/result.ts";
import { eraCodec } from "./thread/era.ts";
import type { ClientError } from "./thread/outcomes.ts";
import type { ServerInfo } from "./thread/server_info.ts";

export type {
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  PromptArgument,
  PromptDescriptor,
  PromptMessage,
} from "../codec/prompts.ts";

/** The capabilities a request of this module needs a server to have declared. */
export const PROMPT_CAPABILITIES = ["prompts", "completions"] as const;

/** A capability of {@linkcode PROMPT_CAPABILITIES}. */
export type PromptCapability = typeof PROMPT_CAPABILITIES[number];

/** Why a prompt or completion request was refused before it was sent. */
export type PromptError = {
  kind: "prompts_not_declared" | "completions_not_declared";
  server: string;
  message: string;
};

/** What a completion is given beyond the argument it completes. */
export type CompleteContext = {
  /** The values of the other arguments, already chosen. */
  arguments?: Readonly<Record<string, string>>;
  /** Deadline in milliseconds; the spec's `callTimeoutMs` by default. */
  timeoutMs?: number;
  /** Gives up on the request when aborted. */
  signal?: AbortSignal;
};

/** Whether a server declared `capability` when it connected (a server not ready yet is asked). */
export function declaresCapability(info: ServerInfo | undefined, capability: string): boolean {
  return info === undefined || isJsonObject(info.capabilities[capability]);
}

/** The refusal of a request to a server that declared no `capability`. */
export function notDeclared(server: string, capability: PromptCapability): PromptError {
  const what = capability === "prompts" ? "prompts" : "completions";
  return {
    kind: `${capability}_not_declared`,
    server,
    message: `Cannot ask server ${quote(server)} for ${what}: it declared no ${capability} ` +
      "when it connected",
  };
}

/** A result decoded by a codec decoder, or `result_malformed` naming the server and method. */
function decodeWith<T>(
  server: string,
  method: string,
  value: JsonValue,
  era: Era | undefined,
  decode: (value: JsonValue) => Result<T, ProtocolFault>,
): Result<T, ClientError> {
  const type = eraCodec(era).checkResult(method, value);
  const decoded = type.ok ? decode(value) : type;
  if (decoded.ok) return decoded;
  return err({
    kind: "result_malformed",
    method,
    message: `Server ${quote(server)} sent a malformed ${method} result: ${decoded.error.message}`,
  });
}

/**
 * Decodes a `prompts/get` result, `result_malformed` when it lies; in a
 * modern session its `resultType` must be `complete`.
 *
 * @example
 * ```ts
 * import { decodePrompt } from "@loom/mcp/client";
 * const got = decodePrompt("s", {
 *   messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
 * });
 * console.log(got.ok && got.value.messages.length); // 1
 * ```
 */
export function decodePrompt(
  server: string,
  value: JsonValue,
  era?: Era,
): Result<GetPromptResult, ClientError> {
  return decodeWith(server, "prompts/get", value, era, decodeGetPromptResult);
}

/**
 * Decodes a `completion/complete` result, `result_malformed` when it lies
 * (more than `MAX_COMPLETION_VALUES` values among them).
 *
 * @example
 * ```ts
 * import { decodeCompletion } from "@loom/mcp/client";
 * const done = decodeCompletion("s", { completion: { values: ["Bo"] } });
 * console.log(done.ok && done.value.values); // ["Bo"]
 * ```
 */
export function decodeCompletion(
  server: string,
  value: JsonValue,
  era?: Era,
): Result<CompleteResult, ClientError> {
  return decodeWith(server, "completion/complete", value, era, decodeCompleteResult);
}

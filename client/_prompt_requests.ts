// Private to client/: a client's requests of prompts and completions: the
// listing of prompts, a prompt got with its arguments filled, and an
// argument completed; each refused before anything is sent when the server
// declared no `prompts` (or `completions`). A prompt's get may ask for
// input first (2026-07-28 `input_required`) or for URLs to be visited
// (-32042), answered by the handlers.

import { compactJson, isJsonObject, type JsonObject } from "../codec/json.ts";
import type { Result } from "../codec/result.ts";
import type { ClientError } from "./thread/outcomes.ts";
import type { Decode } from "./_tickets.ts";
import { referenceOf, stringRecord } from "./_checks.ts";
import { listOf, PROMPTS, type RequestHost } from "./_lists.ts";
import type { ServerAnswers } from "./_answers.ts";
import { afterVisits, requestRounds } from "./_rounds.ts";
import {
  type CompleteContext,
  type CompleteResult,
  type CompletionReference,
  decodeCompletion,
  decodePrompt,
  type GetPromptResult,
  notDeclared,
  type PromptCapability,
  type PromptDescriptor,
  type PromptError,
} from "./prompts.ts";
import type { RequestOptions } from "./client_options.ts";

/** What a client's prompt requests need of it, besides what every request does. */
export type PromptHost = RequestHost & {
  /** The answers to an `input_required` result's input requests, and to -32042. */
  answers: ServerAnswers;
};

/** The prompt and completion requests of one client. */
export class PromptRequests {
  #host: PromptHost;

  /** The requests of the client `host` describes. */
  constructor(host: PromptHost) {
    this.#host = host;
  }

  /** Lists every prompt (see `Client.listPrompts`). */
  list(
    options: RequestOptions = {},
  ): Promise<Result<PromptDescriptor[], ClientError | PromptError>> {
    const refused = this.#undeclared("prompts");
    return refused ?? listOf(this.#host, PROMPTS, options);
  }

  /** Gets one prompt with its arguments filled (see `Client.getPrompt`). */
  get(
    name: string,
    args: Readonly<Record<string, string>> = {},
    options: RequestOptions = {},
  ): Promise<Result<GetPromptResult, ClientError | PromptError>> {
    if (typeof name !== "string" || name === "") {
      throw new TypeError(
        `Cannot get a prompt: its name ${String(name)} is not a non-empty string`,
      );
    }
    const values = stringRecord(args, `Cannot get prompt ${JSON.stringify(name)}`);
    const refused = this.#undeclared("prompts");
    if (refused !== undefined) return refused;
    // A 2026-07-28 server may ask for input before it gives the prompt, any
    // server for URLs to be visited (-32042).
    const generation = this.#host.generation();
    const send = () =>
      requestRounds({
        server: this.#host.server,
        answers: this.#host.answers,
        generation,
        method: "prompts/get",
        subject: `prompt ${JSON.stringify(name)}`,
        params: compactJson({ name, arguments: values }),
        timeoutMs: this.#host.timeout(options.timeoutMs),
        signal: options.signal,
        decode: (value) => decodePrompt(this.#host.server, value, generation.era.name),
      });
    return afterVisits(this.#host.answers, undefined, options.signal, send);
  }

  /** Completes one argument of a prompt or a resource template (see `Client.complete`). */
  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: CompleteContext = {},
  ): Promise<Result<CompleteResult, ClientError | PromptError>> {
    const reference = referenceOf(ref);
    if (
      typeof argument?.name !== "string" || argument.name === "" ||
      typeof argument.value !== "string"
    ) {
      throw new TypeError(
        "Cannot complete an argument: it needs a non-empty string name and a string value",
      );
    }
    const params: JsonObject = {
      ref: reference,
      argument: { name: argument.name, value: argument.value },
    };
    if (context.arguments !== undefined) {
      params.context = {
        arguments: stringRecord(context.arguments, "Cannot complete an argument"),
      };
    }
    const refused = this.#undeclared("completions");
    if (refused !== undefined) return refused;
    const era = this.#host.generation().era.name;
    return this.#ask(
      "completion/complete",
      compactJson(params),
      context,
      (value) => decodeCompletion(this.#host.server, value, era),
    );
  }

  #undeclared(capability: PromptCapability): Promise<Result<never, PromptError>> | undefined {
    const generation = this.#host.generation();
    if (generation.state !== "ready" || isJsonObject(generation.info?.capabilities[capability])) {
      return undefined;
    }
    return Promise.resolve({ ok: false, error: notDeclared(this.#host.server, capability) });
  }

  #ask<T>(
    method: "completion/complete",
    params: string,
    options: RequestOptions,
    decode: Decode<T>,
  ): Promise<Result<T, ClientError>> {
    const timeoutMs = this.#host.timeout(options.timeoutMs);
    return this.#host.generation().request(method, params, timeoutMs, options.signal, decode);
  }
}

// Private to client/: the main thread's answers to what a server asks
// (`elicitation/create`, `sampling/createMessage`), given by the harness's
// handlers (`handlers.ts`). The worker hands each request over as data
// (`client/thread/asked.ts`); here it is decoded (a malformed one refused with
// -32602, never passed on to a person or a model), the handler asked, and its
// answer checked before it is sent. A person answers one question at a time:
// a server's elicitations wait their turn, and the worker bounds how many
// may wait (`MAX_SERVER_REQUESTS_IN_FLIGHT`). A handler that throws is an
// answer too, never a fault of the client.

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import {
  decodeCreateMessageRequest,
  decodeElicitRequest,
  type ElicitField,
} from "../codec/server_requests.ts";
import { validateValue } from "../codegen/validate.ts";
import { describeValue, quote } from "../codec/quote.ts";
import { toJson } from "../codec/interchange.ts";
import { rootsProblem } from "../settings/check.ts";
import type { AskedMethod, ServedRequests, ServerAnswer } from "./thread/asked.ts";
import type { ElicitationAnswer, ElicitationRequest, ServerRequestHandlers } from "./handlers.ts";
import type { Root } from "../settings/server_spec.ts";
import { MAX_AWAITED_COMPLETIONS, MAX_ELICITATION_ID_CHARS } from "../settings/limits.ts";

/** JSON-RPC's code for params that do not decode. */
const INVALID_PARAMS = -32602;
/** JSON-RPC's code for an error of the receiver's own. */
const INTERNAL_ERROR = -32603;
/** The code the specification gives a sampling request the user (or the harness) refused. */
const USER_REJECTED = -1;
/** The JSON-RPC error code by which a server says a URL elicitation must come first. */
export const URL_ELICITATION_REQUIRED = -32042;
/** The most URL elicitations one `-32042` error may ask for before its call is made again. */
const MAX_URL_ELICITATIONS = 8;
/** Where a `cancel` that a failure caused names it, in the result's `_meta`. */
export const ANSWER_ERROR_META = "dev.loom/error";

const ACTIONS: readonly string[] = ["accept", "decline", "cancel"];
/** The signal of a request nothing withdraws. */
const NEVER: AbortSignal = new AbortController().signal;
/** Why a request withdrawn before its handler was asked was not asked. */
const WITHDRAWN = "The request was withdrawn before it was asked";

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** What the client serves, by the handlers and roots given. */
export function servedBy(
  handlers: ServerRequestHandlers,
  roots: readonly Root[] | undefined,
): ServedRequests {
  return {
    elicit: handlers.onElicit !== undefined,
    sample: handlers.onSample !== undefined,
    roots: roots === undefined ? null : roots.map((root) => ({ ...root })),
  };
}

/** One client's answers to its server's requests, across its generations. */
export class ServerAnswers {
  #name: string;
  #handlers: ServerRequestHandlers;
  #roots: readonly Root[] | undefined;
  // The elicitation answered now: the next waits for it.
  #turn: Promise<unknown> = Promise.resolve();
  // The URL elicitations whose completion a handler was given to wait for, oldest first.
  #awaited = new Map<string, PromiseWithResolvers<void>>();

  constructor(name: string, handlers: ServerRequestHandlers, roots?: readonly Root[]) {
    this.#name = name;
    this.#handlers = handlers;
    this.#roots = roots;
  }

  /** Answers one request the worker handed over; `signal` withdraws it. */
  answer(
    method: AskedMethod,
    params: JsonValue | null,
    signal: AbortSignal = NEVER,
  ): Promise<ServerAnswer> {
    const given = params ?? undefined;
    if (method === "sampling/createMessage") return this.#sample(given, signal);
    return this.#inTurn(() => this.elicit(given, { signal }), signal);
  }

  /**
   * Satisfies a `-32042` URL-elicitation-required error of a request (a
   * call to `tool`, when it is one; its `data.elicitations`, each a URL-mode
   * request) through `onElicit`, in turn with the server's other questions;
   * true when every one was accepted, so that the request may be made once more.
   */
  async satisfyUrlRequired(
    data: JsonValue | undefined,
    tool: string | undefined,
    signal: AbortSignal = NEVER,
  ): Promise<boolean> {
    const list = isJsonObject(data) ? data.elicitations : undefined;
    if (this.#handlers.onElicit === undefined || !Array.isArray(list) || list.length === 0) {
      return false;
    }
    if (list.length > MAX_URL_ELICITATIONS) return false;
    for (const params of list) {
      if (!isJsonObject(params) || params.mode !== "url") return false;
      const answered = await this.#inTurn(() => this.elicit(params, { tool, signal }), signal);
      if (!answered.ok || !isJsonObject(answered.value)) return false;
      if (answered.value.action !== "accept") return false;
    }
    return true;
  }

  /**
   * The response to one input request of a 2026-07-28 `input_required`
   * result, given by the same handlers as a legacy server's request (an
   * elicitation in its turn); why none can be given, when it cannot.
   * `signal` (the call's caller's) withdraws it.
   */
  async inputResponse(
    request: JsonValue | undefined,
    tool: string | undefined,
    signal: AbortSignal = NEVER,
  ): Promise<Result<JsonValue, string>> {
    if (!isJsonObject(request) || typeof request.method !== "string") {
      return err("it is not a request with a method");
    }
    const { method, params } = request;
    if (method === "roots/list") {
      const roots = this.#roots;
      return roots === undefined
        ? err("this client lists no roots")
        : ok({ roots: roots.map((root) => ({ ...root })) });
    }
    if (method === "sampling/createMessage") {
      const sampled = await this.#sample(params, signal);
      return sampled.ok ? sampled : err(sampled.error.message);
    }
    if (method !== "elicitation/create") return err(`this client does not answer ${quote(method)}`);
    // The 2026-07-28 URL shape names no elicitation: the server's requestState does.
    const answered = await this.#inTurn(
      () => this.elicit(params, { tool, signal, elicitationId: "optional" }),
      signal,
    );
    // A malformed question is still answered: the server hears it was not.
    return ok(answered.ok ? answered.value : cancelled(answered.error.message));
  }

  /**
   * Runs one elicitation when those before it are done; one withdrawn while
   * it waits runs at once (to say it was withdrawn), and the next still
   * waits for those before it.
   */
  #inTurn(run: () => Promise<ServerAnswer>, signal: AbortSignal): Promise<ServerAnswer> {
    const before = this.#turn;
    const mine = untilWithdrawn(() => before, signal).then(run);
    this.#turn = Promise.all([before, mine]).then(() => undefined, () => undefined);
    return mine;
  }

  /**
   * The server said the interaction at the URL of `elicitationId` is
   * complete: the `completed` its handler was given settles (an id no
   * handler was given is nothing).
   */
  completed(elicitationId: string): void {
    const awaited = this.#awaited.get(elicitationId);
    if (awaited === undefined) return;
    this.#awaited.delete(elicitationId);
    awaited.resolve();
  }

  // What settles once `elicitationId` is complete: one per id, the oldest let go past the cap.
  #completion(elicitationId: string): Promise<void> | undefined {
    if (elicitationId.length > MAX_ELICITATION_ID_CHARS) return undefined;
    const known = this.#awaited.get(elicitationId);
    if (known !== undefined) return known.promise;
    if (this.#awaited.size >= MAX_AWAITED_COMPLETIONS) {
      const [oldest] = this.#awaited.keys();
      if (oldest !== undefined) this.#awaited.delete(oldest);
    }
    const awaited = Promise.withResolvers<void>();
    this.#awaited.set(elicitationId, awaited);
    return awaited.promise;
  }

  /**
   * Answers an elicitation (of a legacy request, or a modern input request)
   * at once; one withdrawn before it is asked is a `cancel` that says so. A
   * URL elicitation's handler is given `completed`, which settles when the
   * server says the interaction at the URL is complete; it is waited for
   * only once the handler accepted.
   */
  async elicit(
    params: JsonValue | undefined,
    options: {
      tool?: string | undefined;
      signal?: AbortSignal;
      elicitationId?: "required" | "optional";
    } = {},
  ): Promise<ServerAnswer> {
    const handler = this.#handlers.onElicit;
    if (handler === undefined) return unhandled("elicitation/create");
    const { tool, signal = NEVER, elicitationId = "required" } = options;
    if (signal.aborted) return ok(cancelled(WITHDRAWN));
    const decoded = decodeElicitRequest(params, { elicitationId });
    if (!decoded.ok) return err({ code: INVALID_PARAMS, message: decoded.error.message });
    const asked = decoded.value;
    const request: ElicitationRequest = asked.mode === "form"
      ? {
        server: this.#name,
        mode: "form",
        message: asked.message,
        requestedSchema: asked.requestedSchema,
      }
      : { server: this.#name, mode: "url", message: asked.message, url: asked.url };
    if (asked.mode === "url" && asked.elicitationId !== undefined) {
      request.elicitationId = asked.elicitationId;
    }
    if (tool !== undefined) request.tool = tool;
    const id = asked.mode === "url" ? asked.elicitationId : undefined;
    const completed = id === undefined ? undefined : this.#completion(id);
    const context = completed === undefined ? { signal } : { signal, completed };
    const answer = await untilWithdrawn(() => handler(request, context), signal);
    // Only a visit the user agreed to is ever completed.
    if (id !== undefined && !acceptedIn(answer)) this.#awaited.delete(id);
    if (answer.kind === "withdrawn") return ok(cancelled(WITHDRAWN));
    if (answer.kind === "threw") {
      return ok(cancelled(`The elicitation handler threw ${describeError(answer.error)}`));
    }
    try {
      return ok(elicitResult(answer.value, asked.mode === "form" ? asked : undefined));
    } catch (error) {
      // A getter of the answer that throws, for one.
      return ok(
        cancelled(`The elicitation handler's answer cannot be read: ${describeError(error)}`),
      );
    }
  }

  async #sample(params: JsonValue | undefined, signal: AbortSignal): Promise<ServerAnswer> {
    const handler = this.#handlers.onSample;
    if (handler === undefined) return unhandled("sampling/createMessage");
    if (signal.aborted) return err({ code: USER_REJECTED, message: WITHDRAWN });
    const decoded = decodeCreateMessageRequest(params);
    if (!decoded.ok) return err({ code: INVALID_PARAMS, message: decoded.error.message });
    const answer = await untilWithdrawn(
      () => handler({ ...decoded.value, server: this.#name }, { signal }),
      signal,
    );
    if (answer.kind === "withdrawn") return err({ code: USER_REJECTED, message: WITHDRAWN });
    if (answer.kind === "threw") {
      return err({
        code: USER_REJECTED,
        message: `The sampling handler threw ${describeError(answer.error)}`,
      });
    }
    try {
      return sampleResult(answer.value);
    } catch (error) {
      return err({
        code: INTERNAL_ERROR,
        message: `The sampling handler's answer cannot be read: ${describeError(error)}`,
      });
    }
  }
}

/** What became of a handler asked: its answer, what it threw, or the request withdrawn first. */
type Asked = { kind: "answered"; value: unknown } | { kind: "threw"; error: unknown } | {
  kind: "withdrawn";
};

/**
 * Asks a handler, and stops waiting for it once `signal` aborts: what it
 * answers then is not sent, so a handler that never settles holds neither
 * its call nor the questions after it. Never rejects.
 */
function untilWithdrawn(ask: () => unknown, signal: AbortSignal): Promise<Asked> {
  let asked: Promise<Asked>;
  try {
    asked = Promise.resolve(ask()).then(
      (value): Asked => ({ kind: "answered", value }),
      (error): Asked => ({ kind: "threw", error }),
    );
  } catch (error) {
    return Promise.resolve({ kind: "threw", error });
  }
  if (signal === NEVER) return asked;
  return new Promise((resolve) => {
    const withdrawn = () => resolve({ kind: "withdrawn" });
    if (signal.aborted) return withdrawn();
    signal.addEventListener("abort", withdrawn, { once: true });
    void asked.then((outcome) => {
      signal.removeEventListener("abort", withdrawn);
      resolve(outcome);
    });
  });
}

// Whether a handler's answer accepts; a getter that throws is no acceptance.
function acceptedIn(answer: Asked): boolean {
  if (answer.kind !== "answered") return false;
  try {
    return (answer.value as { action?: unknown } | null | undefined)?.action === "accept";
  } catch {
    return false;
  }
}

// The worker hands over only what was declared: a request here without its
// handler is the client's own fault, said so.
function unhandled(method: string): ServerAnswer {
  return err({ code: INTERNAL_ERROR, message: `This client has no handler for ${method}` });
}

function cancelled(reason: string): JsonObject {
  return { action: "cancel", _meta: { [ANSWER_ERROR_META]: reason } };
}

/**
 * The result sent for a handler's answer: its action, and for a form's
 * `accept` its content with the schema's defaults filled in for fields left
 * out (SEP-1034), checked against the schema. An answer that is not one is
 * a `cancel` that says why.
 */
function elicitResult(
  answer: unknown,
  form: { requestedSchema: JsonObject; fields: ElicitField[] } | undefined,
): JsonObject {
  const action = typeof answer === "object" && answer !== null
    ? (answer as ElicitationAnswer).action
    : undefined;
  if (typeof action !== "string" || !ACTIONS.includes(action)) {
    return cancelled(
      `The elicitation handler answered ${JSON.stringify(action ?? null)}, ` +
        `not "accept", "decline" or "cancel"`,
    );
  }
  if (action !== "accept" || form === undefined) return { action };
  const given = toJson((answer as ElicitationAnswer).content ?? {});
  if (!given.ok) {
    return cancelled(`The elicitation handler's content cannot be sent: ${given.error.message}`);
  }
  if (!isJsonObject(given.value)) {
    return cancelled("The elicitation handler accepted with content that is not an object");
  }
  const content: JsonObject = { ...given.value };
  for (const field of form.fields) {
    // Own fields only: a field named as an inherited one ("constructor") is still filled in.
    if (!Object.hasOwn(content, field.name) && field.default !== undefined) {
      content[field.name] = Array.isArray(field.default) ? [...field.default] : field.default;
    }
  }
  const checked = validateValue(content, form.requestedSchema);
  if (!checked.ok) {
    return cancelled(
      `The elicitation handler's content breaks the form's schema at ${checked.error.path}: ` +
        checked.error.message,
    );
  }
  return { action, content };
}

function sampleResult(answer: unknown): ServerAnswer {
  const bad = (why: string): ServerAnswer =>
    err({ code: INTERNAL_ERROR, message: `The sampling handler's answer ${why}` });
  if (typeof answer !== "object" || answer === null) return bad("is not an object");
  const { role, content, model, stopReason } = answer as Record<string, unknown>;
  if (role !== "user" && role !== "assistant") {
    return bad(`has role ${JSON.stringify(role ?? null)}, not "user" or "assistant"`);
  }
  if (typeof content !== "object" || content === null) return bad("has no content");
  if (typeof model !== "string") return bad(`has model ${JSON.stringify(model ?? null)}`);
  if (stopReason !== undefined && typeof stopReason !== "string") {
    return bad("has a stopReason that is not a string");
  }
  const sent = toJson(content);
  if (!sent.ok) return bad(`has content that cannot be sent: ${sent.error.message}`);
  const result: JsonObject = { role, content: sent.value, model };
  if (stopReason !== undefined) result.stopReason = stopReason;
  return ok(result);
}

/** Throws `TypeError` for a handler that is not a function, or roots that do not check. */
export function checkHandlers(handlers: ServerRequestHandlers, where: string): void {
  for (const key of ["onElicit", "onSample"] as const) {
    const handler = handlers[key];
    if (handler !== undefined && typeof handler !== "function") {
      throw new TypeError(`${where}: ${key} is not a function`);
    }
  }
  const problem = rootsProblem(handlers.roots, describeValue);
  if (problem !== undefined) {
    const message = `${where}: option "roots": ${problem.message}`;
    throw problem.kind === "out_of_range" ? new RangeError(message) : new TypeError(message);
  }
}

/**
 * What depends on the protocol era a session speaks, decided once: each era
 * is one object, {@linkcode LEGACY_ERA} (the `initialize` handshake,
 * 2025-11-25 back to 2024-11-05) or {@linkcode MODERN_ERA} (the stateless
 * 2026-07-28 revision), and everything that differs between them is a field
 * or a method of it. A start picks the object from the answer it judged
 * (`client/worker/start.ts`); the main thread picks it from the era named in
 * the server info the worker reports ({@linkcode eraCodec}). Nothing else
 * asks which era it is: a new difference between the eras is a new member
 * here, and the server requests a client serves (elicitation, sampling,
 * roots) are entries of an era's {@linkcode EraCodec.serverRequests} table.
 *
 * Both threads import it, so it holds data and pure decisions only: the
 * worker writes what an object says, the main thread decodes with it.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../../codec/json.ts";
import type { RpcError } from "../../codec/jsonrpc.ts";
import type { Era, Implementation, ProtocolFault } from "../../codec/protocol.ts";
import type { LogLevel } from "../../codec/server_requests.ts";
import { describeValue } from "../../codec/quote.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import type { AskedMethod, ServedRequests, ServerAnswer } from "./asked.ts";
import {
  checkResultType,
  DISCOVER_METHOD,
  requestMeta,
  TASKS_EXTENSION,
} from "../../codec/stateless.ts";

/** What a handler of a server's request may use: what the client serves, and the main thread. */
export type ServerRequestContext = {
  /** What the client declared it answers. */
  readonly served: ServedRequests;
  /**
   * Hands the request to the main thread's handler, and waits for its
   * answer; `signal` aborting (the server cancelled it) withdraws it there.
   */
  ask(
    method: AskedMethod,
    params: JsonValue | undefined,
    signal: AbortSignal,
  ): Promise<ServerAnswer>;
};

/**
 * Answers one request a server sent the client, by its parameters: the
 * result, or the JSON-RPC error to answer with. `signal` aborts when the
 * server cancels the request.
 */
export type ServerRequestHandler = (
  params: JsonValue | undefined,
  context: ServerRequestContext,
  signal: AbortSignal,
) => Promise<Result<JsonValue, RpcError>>;

/** Where a session's opening goes: the envelope every request carries, or a notification. */
export type SessionOpening = {
  /** From now on every request and notification carries this `_meta` envelope. */
  envelope(meta: JsonObject): void;
  /** Sends a notification. */
  notify(method: string): void;
};

/** What a task-augmented `tools/call` carries beyond its parameters. */
export type TaskCallExtra = {
  /** Fields put first in its parameters (`"task":{"ttl":1000}`). */
  fields?: string;
  /** Whether its envelope declares the tasks extension. */
  tasks?: boolean;
};

/**
 * How a session subscribes to a resource's updates: by a request each way
 * (legacy `resources/subscribe` and `resources/unsubscribe`), or by a
 * long-lived `subscriptions/listen` request that its cancellation ends
 * (2026-07-28).
 */
export type SubscriptionStyle =
  | {
    kind: "requests";
    subscribe: "resources/subscribe";
    unsubscribe: "resources/unsubscribe";
  }
  | {
    kind: "listen";
    method: "subscriptions/listen";
    /** The parameters of a listen for the updates of `uri`. */
    params(uri: string): JsonObject;
  };

/**
 * What a result asks for before its request is made again (2026-07-28
 * `input_required`): the server's requests by key, and the state to echo.
 */
export type InputRequired = { inputRequests: JsonObject; requestState?: string };

/** Everything a client does differently in one protocol era. */
export type EraCodec = {
  /** The era's name, as {@linkcode ServerInfo}'s `era` says it. */
  readonly name: Era;
  /** The request a start of this era sends first (`initialize` or `server/discover`). */
  readonly startMethod: string;
  /**
   * Opens the session once its start succeeded, in `version`: a legacy
   * session is told `notifications/initialized`; every request of a modern
   * one carries the `_meta` envelope, with the log level asked for when
   * there is one (`io.modelcontextprotocol/logLevel`).
   */
  open(
    to: SessionOpening,
    version: string,
    clientInfo: Implementation,
    capabilities: JsonObject,
    logLevel?: LogLevel,
  ): void;
  /**
   * The request that sets a server's log level once its session is open
   * (legacy `logging/setLevel`, sent when the server declared `logging`);
   * `undefined` where the level rides in every request's envelope.
   */
  readonly setLevelMethod: "logging/setLevel" | undefined;
  /** How a resource's updates are subscribed to. */
  readonly subscription: SubscriptionStyle;
  /** The method a request of the client's is sent as (`ping` is gone from the modern era). */
  wireMethod(method: string): string;
  /**
   * The requests of a server this client answers, by method; a request of
   * a method not here is refused (-32601) when {@linkcode refusesUnknown},
   * otherwise dropped unanswered.
   */
  readonly serverRequests: ReadonlyMap<string, ServerRequestHandler>;
  /** Whether a server's request of an unknown method is refused (legacy) or dropped (modern). */
  readonly refusesUnknown: boolean;
  /**
   * The notification by which a server says its tools changed (a modern
   * server sends it only on a listen that asked, {@linkcode listChanges}).
   */
  readonly toolsChanged: string | undefined;
  /**
   * The parameters of a `subscriptions/listen` that hears changes of the
   * lists named (`tools`, `prompts`, `resources`), where a server tells
   * them only on such a listen (modern); `undefined` where it tells them
   * unasked (legacy).
   */
  readonly listChanges: ((lists: readonly string[]) => JsonObject) | undefined;
  /**
   * The input a result asks for (a modern `resultType: "input_required"`),
   * or why its asking is malformed; `undefined` for any other result (a
   * legacy server asks by requests).
   */
  inputRequired(value: JsonValue): Result<InputRequired, string> | undefined;
  /** Checks a result's envelope (a modern result's `resultType` must be `complete`). */
  checkResult(method: string, value: JsonValue): Result<void, ProtocolFault>;
  /** How long a listing page says it stays fresh, in ms, when it says (modern `ttlMs`). */
  pageTtlMs(page: JsonValue): number | undefined;
  /** Whether a server runs task-augmented tool calls, by the capabilities it declared. */
  runsTasks(capabilities: JsonObject): boolean;
  /** What a task-augmented call carries: a legacy `task: { ttl }`, or the extension declared. */
  taskCall(ttlMs: number): TaskCallExtra;
  /** The task a creating call's answer made; `undefined` when it ran the call plainly. */
  createdTask(answer: JsonValue): JsonValue | undefined;
  /** A task's suggested poll interval, as its era's field names it. */
  pollInterval(task: JsonObject): unknown;
  /**
   * Whether a task carries its own outcome (modern: `result` or `error` on
   * the task), rather than answering on `tasks/result` (legacy).
   */
  readonly taskCarriesResult: boolean;
};

/** The `_meta` key of the least level of log messages a modern request asks for. */
const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";

const NO_REQUESTS: ReadonlyMap<string, ServerRequestHandler> = new Map();

/** JSON-RPC's code for a method the receiver does not serve. */
const METHOD_NOT_FOUND = -32601;

// A request of a capability the client did not declare is one it cannot answer.
function undeclared(method: string, capability: string): Promise<ServerAnswer> {
  return Promise.resolve(err({
    code: METHOD_NOT_FOUND,
    message: `Method not found: this client declared no "${capability}" capability (${method})`,
  }));
}

/** The requests of a server a legacy-era client answers, each only once it declared it. */
const LEGACY_REQUESTS: ReadonlyMap<string, ServerRequestHandler> = new Map(
  [
    [
      "elicitation/create",
      (params, context, signal) =>
        context.served.elicit
          ? context.ask("elicitation/create", params, signal)
          : undeclared("elicitation/create", "elicitation"),
    ],
    [
      "sampling/createMessage",
      (params, context, signal) =>
        context.served.sample
          ? context.ask("sampling/createMessage", params, signal)
          : undeclared("sampling/createMessage", "sampling"),
    ],
    [
      "roots/list",
      (_params, context) => {
        const roots = context.served.roots;
        if (roots === null) return undeclared("roots/list", "roots");
        return Promise.resolve(ok({ roots: roots.map((root) => ({ ...root })) }));
      },
    ],
  ] satisfies [string, ServerRequestHandler][],
);

/** The `initialize` handshake era (2025-11-25 back to 2024-11-05). */
export const LEGACY_ERA: EraCodec = Object.freeze({
  name: "legacy",
  startMethod: "initialize",
  open(to: SessionOpening): void {
    to.notify("notifications/initialized");
  },
  setLevelMethod: "logging/setLevel",
  subscription: Object.freeze({
    kind: "requests",
    subscribe: "resources/subscribe",
    unsubscribe: "resources/unsubscribe",
  }),
  wireMethod: (method: string): string => method,
  serverRequests: LEGACY_REQUESTS,
  refusesUnknown: true,
  toolsChanged: "notifications/tools/list_changed",
  listChanges: undefined,
  inputRequired: (): Result<InputRequired, string> | undefined => undefined,
  checkResult: (): Result<void, ProtocolFault> => ok(undefined),
  pageTtlMs: (): number | undefined => undefined,
  runsTasks(capabilities: JsonObject): boolean {
    const tasks = capabilities.tasks;
    const requests = isJsonObject(tasks) ? tasks.requests : undefined;
    const tools = isJsonObject(requests) ? requests.tools : undefined;
    return isJsonObject(tools) && isJsonObject(tools.call);
  },
  taskCall: (ttlMs: number): TaskCallExtra => ({ fields: `"task":{"ttl":${Math.round(ttlMs)}}` }),
  createdTask: (answer: JsonValue): JsonValue | undefined =>
    isJsonObject(answer) && isJsonObject(answer.task) ? answer.task : undefined,
  pollInterval: (task: JsonObject): unknown => task.pollInterval,
  taskCarriesResult: false,
});

/** The stateless era (2026-07-28: `server/discover`, a `_meta` envelope on every request). */
export const MODERN_ERA: EraCodec = Object.freeze({
  name: "modern",
  startMethod: DISCOVER_METHOD,
  open(
    to: SessionOpening,
    version: string,
    clientInfo: Implementation,
    capabilities: JsonObject,
    logLevel?: LogLevel,
  ): void {
    const meta = requestMeta(version, clientInfo, capabilities);
    if (logLevel !== undefined) meta[META_LOG_LEVEL] = logLevel;
    to.envelope(meta);
  },
  setLevelMethod: undefined,
  subscription: Object.freeze({
    kind: "listen",
    method: "subscriptions/listen",
    params: (uri: string): JsonObject => ({ notifications: { resourceSubscriptions: [uri] } }),
  }),
  wireMethod: (method: string): string => method === "ping" ? DISCOVER_METHOD : method,
  // A client of this era must not answer a server's request: it has none.
  serverRequests: NO_REQUESTS,
  refusesUnknown: false,
  toolsChanged: "notifications/tools/list_changed",
  listChanges(lists: readonly string[]): JsonObject {
    const filter: JsonObject = {};
    for (const list of lists) filter[`${list}ListChanged`] = true;
    return { notifications: filter };
  },
  inputRequired(value: JsonValue): Result<InputRequired, string> | undefined {
    if (!isJsonObject(value) || value.resultType !== "input_required") return undefined;
    const requests = value.inputRequests ?? {};
    const state = value.requestState;
    if (!isJsonObject(requests)) {
      return err(`"inputRequests" is ${describeValue(requests)}, not an object`);
    }
    if (state !== undefined && typeof state !== "string") {
      return err(`"requestState" is ${describeValue(state)}, not a string`);
    }
    // Asked again with nothing to echo, a server could only answer as before.
    if (Object.keys(requests).length === 0 && state === undefined) {
      return err('it carries neither "inputRequests" nor "requestState"');
    }
    const asked: InputRequired = { inputRequests: requests };
    if (state !== undefined) asked.requestState = state;
    return ok(asked);
  },
  checkResult: checkResultType,
  pageTtlMs(page: JsonValue): number | undefined {
    const ttl = isJsonObject(page) ? page.ttlMs : undefined;
    return typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : undefined;
  },
  runsTasks(capabilities: JsonObject): boolean {
    const extensions = capabilities.extensions;
    return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION]);
  },
  taskCall: (): TaskCallExtra => ({ tasks: true }),
  createdTask: (answer: JsonValue): JsonValue | undefined =>
    isJsonObject(answer) && answer.resultType === "task" ? answer : undefined,
  pollInterval: (task: JsonObject): unknown => task.pollIntervalMs,
  taskCarriesResult: true,
});

/** Every era object, by its name. */
const BY_NAME: ReadonlyMap<unknown, EraCodec> = new Map([
  [LEGACY_ERA.name, LEGACY_ERA],
  [MODERN_ERA.name, MODERN_ERA],
]);

/**
 * The era object of a name, `undefined` for a value that names no era
 * (a message that crossed the boundary is decoded with it).
 */
export function eraNamed(name: unknown): EraCodec | undefined {
  return BY_NAME.get(name);
}

/**
 * The era object of a session, by the era its server info names; the
 * legacy era while there is none (a client not started yet reads and
 * decodes as one always did).
 *
 * @example
 * ```ts
 * import { eraCodec } from "./era.ts";
 * console.log(eraCodec("modern").startMethod); // server/discover
 * console.log(eraCodec(undefined).name); // legacy
 * ```
 */
export function eraCodec(era: Era | undefined): EraCodec {
  return era === undefined ? LEGACY_ERA : BY_NAME.get(era) ?? LEGACY_ERA;
}

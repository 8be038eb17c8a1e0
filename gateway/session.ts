/**
 * One host's session with a gateway: each decoded JSON-RPC message the host
 * sends is handled here, whatever carries it (stdio lines through
 * `serveHarness`, or an HTTP transport's requests), and every message the
 * session sends goes to the sink the message's handling was given.
 *
 * Both eras of the host: a 2025 host opens with `initialize` (its
 * capabilities decide what it can be asked), and is asked with requests of
 * the session's own (`elicitation/create`, `sampling/createMessage`) whose
 * answers come back through {@linkcode GatewaySession.handle}; a 2026-07-28
 * host sends each request with its envelope in `params._meta` and is asked
 * through `input_required` results: the run is parked until the host retries
 * the call with its answers and the run's `requestState`.
 *
 * Lifecycle: the session owns the runs it started. A host's
 * `notifications/cancelled` aborts one (its calls are cancelled with it, and
 * the request gets no answer); {@linkcode GatewaySession.close} aborts every
 * one, answers every question still waiting for the host as unanswered, and
 * settles once every run has ended. The harness is the caller's: a session
 * never retires it.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue, stringifyJson } from "../codec/json.ts";
import {
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  type Id,
  type Inbound,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  type RpcError,
} from "../codec/jsonrpc.ts";
import { legacyInitializeResult, META_SERVER_INFO, MODERN_VERSIONS } from "../codec/protocol.ts";
import {
  decodeRequestMeta,
  DISCOVER_METHOD,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../codec/stateless.ts";
import { describeValue, quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type {
  Approval,
  ApprovalRequest,
  CallProgress,
  Harness,
  RunReport,
} from "../harness/mod.ts";
import { searchProblem } from "../runner/host/discovery.ts";
import {
  GATEWAY_LISTING_TTL_MS,
  MAX_APPROVAL_ARGS_CHARS,
  MAX_PARKED_RUNS,
  PARKED_RUN_TIMEOUT_MS,
} from "./limits.ts";
import { askingHandlers, type HostAsker, type HostQuestion } from "./_asking.ts";
import {
  errorResult,
  gatewayDescriptors,
  type GatewayResult,
  runResult,
  searchResult,
} from "./tools.ts";

/** Where the messages a request's handling sends go: its answer, its progress, its questions. */
export type Send = (message: JsonObject) => void;

/** How a gateway governs and runs the host's programs. */
export type GatewayOptions = {
  /**
   * Asks the host, through form elicitation, before each call of a program
   * that its tool does not mark read-only (`readOnlyHint`); a host that
   * cannot elicit gets such calls denied, saying why. Default `false`: the
   * harness's own approval hook, if any, decides.
   */
  approve?: boolean;
  /** Each program's deadline in milliseconds (`harness.run`'s `timeoutMs`). */
  deadlineMs?: number;
  /** The bytes a program's report may take (`harness.run`'s `maxOutputBytes`). */
  maxOutputBytes?: number;
  /** The gateway's name and version, as `initialize` answers them; `loom-mcp` by default. */
  serverInfo?: { name: string; version: string };
  /** Sent as `instructions` to the host. */
  instructions?: string;
  /**
   * How long a run parked on an `input_required` result waits for its
   * 2026-07-28 host to retry, in milliseconds; `PARKED_RUN_TIMEOUT_MS` by
   * default.
   */
  parkedRunTimeoutMs?: number;
};

/**
 * The JSON-RPC error code of a request sent to a session already closed:
 * -32000, the first of the range JSON-RPC 2.0 leaves to servers.
 */
export const SESSION_CLOSED: number = -32000;

/** The version a gateway calls itself by default. */
export const GATEWAY_VERSION = "0.1.0";

const DEFAULT_INFO = { name: "loom-mcp", version: GATEWAY_VERSION };

// A run parked on an input_required result, waiting for its host to retry.
type Parked = {
  state: string;
  controller: AbortController;
  asks: Map<string, { request: JsonObject; resolve: (answer: Result<JsonObject, string>) => void }>;
  nextAsk: number;
  /** Answers the request now waiting on this run, when one is. */
  responder: ((result: JsonObject) => void) | undefined;
  /** The run's result, when it ended while no request waited. */
  final: JsonObject | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
};

/**
 * One host's session: hand it every decoded message with
 * {@linkcode GatewaySession.handle}; close it when the host goes.
 *
 * @example Answer a ping
 * ```ts ignore
 * import { GatewaySession } from "@loom/mcp/gateway";
 * const session = new GatewaySession(harness, { send: (message) => console.log(message) });
 * session.handle({ kind: "request", id: 1, method: "ping" });
 * await session.close();
 * ```
 */
export class GatewaySession {
  #harness: Harness | undefined;
  #booting: Promise<Result<Harness, string>> | undefined;
  #waiting = new Map<string, (why: "cancelled" | "closed") => void>();
  #send: Send;
  #options: GatewayOptions;
  #info: JsonObject;
  #legacy = false;
  #capabilities: JsonObject = {};
  #nextId = 0;
  #pending = new Map<string, (outcome: Result<JsonValue, RpcError>) => void>();
  #running = new Map<string, AbortController>();
  #parked = new Map<string, Parked>();
  #work = new Set<Promise<void>>();
  #closed = false;
  #parkedMs: number;

  /**
   * A session of `harness`, sending to `options.send` what a handling is not
   * given a sink for. Given the promise of a boot still under way, the
   * session answers `initialize`, `ping` and `server/discover` at once, and
   * holds `tools/list` and `tools/call` until the boot settles (within its
   * own deadlines), so that a host's start-up timeout is not spent on it.
   */
  constructor(harness: Harness | Promise<Harness>, options: GatewayOptions & { send: Send }) {
    if (typeof options.send !== "function") {
      throw new TypeError("Cannot open a gateway session: send is not a function");
    }
    const deadline = options.deadlineMs;
    if (deadline !== undefined && (!Number.isSafeInteger(deadline) || deadline < 1)) {
      throw new RangeError(
        `Cannot open a gateway session: deadlineMs ${String(deadline)} is not a positive integer`,
      );
    }
    const parkedMs = options.parkedRunTimeoutMs ?? PARKED_RUN_TIMEOUT_MS;
    if (!Number.isSafeInteger(parkedMs) || parkedMs < 1) {
      throw new RangeError(
        `Cannot open a gateway session: parkedRunTimeoutMs ${
          String(parkedMs)
        } is not a positive integer`,
      );
    }
    this.#parkedMs = parkedMs;
    const budget = options.maxOutputBytes;
    if (budget !== undefined && (!Number.isSafeInteger(budget) || budget < 1)) {
      throw new RangeError(
        `Cannot open a gateway session: maxOutputBytes ${String(budget)} is not a positive integer`,
      );
    }
    if (harness instanceof Promise) {
      this.#booting = harness.then(
        (booted) => {
          this.#harness = booted;
          return ok(booted);
        },
        (error) => err(error instanceof Error ? error.message : String(error)),
      );
    } else {
      this.#harness = harness;
    }
    this.#send = options.send;
    this.#options = options;
    this.#info = { ...(options.serverInfo ?? DEFAULT_INFO) };
  }

  // Only reached once the boot settled (see #afterBoot).
  get #booted(): Harness {
    if (this.#harness === undefined) throw new Error("The servers have not started yet");
    return this.#harness;
  }

  /** How many of this session's programs are running (parked ones included). */
  get running(): number {
    return this.#work.size;
  }

  /**
   * Handles one message of the host: a request (answered through `send`),
   * a notification (`notifications/cancelled` ends the run it names), or
   * the host's answer to a question of the session's. Never throws.
   */
  handle(message: Inbound, send: Send = this.#send): void {
    if (message.kind === "response") {
      const settle = this.#pending.get(key(message.id));
      this.#pending.delete(key(message.id));
      settle?.(message.outcome);
      return;
    }
    if (message.kind === "notification") {
      const params = message.params;
      if (message.method === "notifications/cancelled" && isJsonObject(params)) {
        const id = params.requestId;
        if (typeof id === "string" || typeof id === "number") {
          this.#running.get(key(id))?.abort(new Error("The host cancelled the call"));
          this.#waiting.get(key(id))?.("cancelled");
        }
      }
      return;
    }
    if (this.#closed) {
      send(encodeError(message.id, {
        code: SESSION_CLOSED,
        message: "The gateway session is closed: the host left; connect again",
      }));
      return;
    }
    const params = message.params === undefined ? {} : message.params;
    if (!isJsonObject(params)) {
      send(encodeError(message.id, {
        code: INVALID_PARAMS,
        message: `Invalid params: "params" of ${quote(message.method)} is not an object`,
      }));
      return;
    }
    if (this.#harness === undefined && NEEDS_SERVERS.has(message.method)) {
      this.#afterBoot(message.id, message.method, params, send);
      return;
    }
    this.#request(message.id, message.method, params, send);
  }

  // A request that needs the servers, while they still start: it goes on once the boot settles.
  #afterBoot(id: Id, method: string, params: JsonObject, send: Send): void {
    const at = key(id);
    let settled = false;
    this.#waiting.set(at, (why) => {
      settled = true;
      this.#waiting.delete(at);
      if (why === "closed") {
        send(encodeError(id, {
          code: SESSION_CLOSED,
          message: "The gateway session is closed: the host left; connect again",
        }));
      }
    });
    void this.#booting?.then((booted) => {
      if (settled) return;
      this.#waiting.delete(at);
      if (booted.ok) {
        this.#request(id, method, params, send);
        return;
      }
      send(encodeError(id, {
        code: INTERNAL_ERROR,
        message: `The servers could not be started: ${booted.error}; see the gateway's log`,
      }));
    });
  }

  /**
   * Ends the session: aborts every run, answers every question still
   * waiting for the host as unanswered, and settles once every run ended.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const settle of [...this.#waiting.values()]) settle("closed");
    for (const controller of this.#running.values()) {
      controller.abort(new Error("The host left"));
    }
    for (const parked of this.#parked.values()) {
      parked.controller.abort(new Error("The host left"));
      this.#unpark(parked, "the host left before answering");
    }
    for (const settle of this.#pending.values()) {
      settle(err({ code: SESSION_CLOSED, message: "the host left before answering" }));
    }
    this.#pending.clear();
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  #request(id: Id, method: string, params: JsonObject, send: Send): void {
    // After initialize the session is a 2025 one: envelopes are not read.
    const meta = this.#legacy ? { kind: "none" as const } : decodeRequestMeta(params);
    if (meta.kind === "malformed") {
      send(encodeError(id, {
        code: INVALID_PARAMS,
        message: `Invalid params: the _meta envelope of ${quote(method)} is malformed: ` +
          meta.message,
      }));
      return;
    }
    if (meta.kind === "envelope") {
      if (!(MODERN_VERSIONS as readonly string[]).includes(meta.protocolVersion)) {
        send(encodeError(id, {
          code: UNSUPPORTED_PROTOCOL_VERSION,
          message: `Unsupported protocol version: ${describeValue(meta.protocolVersion)}`,
          data: { supported: [...MODERN_VERSIONS], requested: meta.protocolVersion },
        }));
        return;
      }
      this.#modern(id, method, params, meta.clientCapabilities, send);
      return;
    }
    switch (method) {
      case "initialize":
        this.#legacy = true;
        this.#capabilities = isJsonObject(params.capabilities) ? params.capabilities : {};
        send(encodeResult(id, this.#initialize(params)));
        return;
      case "ping":
        send(encodeResult(id, {}));
        return;
      case "tools/list":
        send(encodeResult(id, { tools: gatewayDescriptors(this.#booted.surface) }));
        return;
      case "tools/call": {
        const asker = this.#legacyAsker(this.#capabilities, send);
        this.#call(id, params, send, asker, (result) => send(encodeResult(id, result)));
        return;
      }
      case DISCOVER_METHOD:
        send(encodeError(id, {
          code: INVALID_PARAMS,
          message: `Invalid params: ${quote(method)} is missing the _meta envelope ` +
            `(io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)`,
          data: { supported: [...MODERN_VERSIONS] },
        }));
        return;
      default:
        send(encodeError(id, {
          code: METHOD_NOT_FOUND,
          message: `Method not found: ${describeValue(method)}`,
        }));
    }
  }

  #initialize(params: JsonObject): JsonObject {
    return legacyInitializeResult(params, this.#info, this.#options.instructions);
  }

  // A 2026-07-28 request: stateless, its results marked complete or input_required.
  #modern(id: Id, method: string, params: JsonObject, caps: JsonObject, send: Send): void {
    const answer = (result: JsonObject) => send(encodeResult(id, this.#complete(result)));
    switch (method) {
      case DISCOVER_METHOD: {
        const result: JsonObject = {
          resultType: "complete",
          supportedVersions: [...MODERN_VERSIONS],
          capabilities: { tools: { listChanged: false } },
          ttlMs: GATEWAY_LISTING_TTL_MS,
          cacheScope: "private",
          _meta: { [META_SERVER_INFO]: { ...this.#info } },
        };
        if (this.#options.instructions !== undefined) {
          result.instructions = this.#options.instructions;
        }
        send(encodeResult(id, result));
        return;
      }
      case "tools/list":
        answer({
          tools: gatewayDescriptors(this.#booted.surface),
          ttlMs: GATEWAY_LISTING_TTL_MS,
          cacheScope: "private",
        });
        return;
      case "tools/call":
        this.#modernCall(id, params, caps, send);
        return;
      default:
        send(encodeError(id, {
          code: METHOD_NOT_FOUND,
          message: `Method not found: ${describeValue(method)} is not part of ${
            MODERN_VERSIONS[0]
          }`,
          data: { supported: [...MODERN_VERSIONS] },
        }));
    }
  }

  #complete(result: JsonObject): JsonObject {
    return { resultType: "complete", ...result, _meta: { [META_SERVER_INFO]: { ...this.#info } } };
  }

  // One tool call of either era; `answer` sends its result unless it was cancelled.
  #call(
    id: Id,
    params: JsonObject,
    send: Send,
    asker: HostAsker,
    answer: (result: JsonObject) => void,
  ): void {
    const name = params.name;
    const args = params.arguments ?? {};
    if (typeof name !== "string") {
      send(encodeError(id, {
        code: INVALID_PARAMS,
        message: `Invalid params: tool "name" is ${describeValue(name)}, not a string`,
      }));
      return;
    }
    if (!isJsonObject(args)) {
      answer(errorResult(`The arguments of ${quote(name)} are not an object`));
      return;
    }
    switch (name) {
      case "search_tools": {
        const problem = searchProblem(args.query, args.limit);
        if (problem !== undefined) return answer(errorResult(problem));
        const query = args.query as string;
        const limit = args.limit as number | undefined;
        answer(searchResult(
          query,
          this.#booted.search(query, limit === undefined ? {} : { limit }),
        ));
        return;
      }
      case "describe_tool": {
        const { server, tool } = args;
        if (typeof server !== "string" || typeof tool !== "string") {
          return answer(errorResult(
            'describe_tool needs "server" and "tool", both strings, as search_tools names them',
          ));
        }
        const described = this.#booted.describe(server, tool);
        answer(described.ok ? text(described.value) : errorResult(described.error.message));
        return;
      }
      case "run_program": {
        if (typeof args.code !== "string") {
          return answer(errorResult(
            'run_program needs "code": the whole program as a string, ending in export default',
          ));
        }
        const controller = new AbortController();
        const progress = progressSink(params, send);
        this.#running.set(key(id), controller);
        this.#track(
          this.#runProgram(args.code, asker, controller.signal, progress).then((result) => {
            this.#running.delete(key(id));
            if (!controller.signal.aborted) answer(result);
          }),
        );
        return;
      }
      default:
        send(encodeError(id, {
          code: INVALID_PARAMS,
          message: `Unknown tool: ${quote(name)}; this server has search_tools, ` +
            "describe_tool and run_program",
        }));
    }
  }

  // A 2026-07-28 tools/call: a new call, or the retry of a parked run with its answers.
  #modernCall(id: Id, params: JsonObject, caps: JsonObject, send: Send): void {
    const state = params.requestState;
    const respond = (result: JsonObject) =>
      send(encodeResult(id, result.resultType === undefined ? this.#complete(result) : result));
    if (state !== undefined) {
      const parked = typeof state === "string" ? this.#parked.get(state) : undefined;
      if (parked === undefined) {
        respond(errorResult(
          `Cannot continue the run: its requestState ${
            describeValue(state)
          } names no run waiting for answers (it ended, or waited past ` +
            `${this.#parkedMs} ms); run the program again`,
        ));
        return;
      }
      this.#resume(parked, params.inputResponses);
      this.#running.set(key(id), parked.controller);
      this.#attach(parked, (result) => {
        this.#running.delete(key(id));
        if (!parked.controller.signal.aborted) respond(result);
      });
      return;
    }
    const args = params.arguments;
    const code = isJsonObject(args) ? args.code : undefined;
    if (params.name !== "run_program" || typeof code !== "string") {
      this.#call(id, params, send, noHost, respond);
      return;
    }
    if (this.#parked.size >= MAX_PARKED_RUNS) {
      respond(errorResult(
        `Cannot start the program: ${this.#parked.size} runs wait for this host's answers ` +
          `(MAX_PARKED_RUNS); answer them or let them end first`,
      ));
      return;
    }
    const parked: Parked = {
      state: crypto.randomUUID(),
      controller: new AbortController(),
      asks: new Map(),
      nextAsk: 0,
      responder: undefined,
      final: undefined,
      timer: undefined,
    };
    this.#parked.set(parked.state, parked);
    const asker: HostAsker = {
      can: (question) => capable(caps, question),
      ask: (method, askParams) => {
        const { promise, resolve } = Promise.withResolvers<Result<JsonObject, string>>();
        parked.asks.set(`ask-${parked.nextAsk++}`, {
          request: { method, params: askParams },
          resolve,
        });
        this.#flush(parked);
        return promise;
      },
      // A parked run's questions are unparked with it, and a 2026-07-28 host holds no request.
      drop: () => {},
    };
    this.#running.set(key(id), parked.controller);
    this.#attach(parked, (result) => {
      this.#running.delete(key(id));
      if (!parked.controller.signal.aborted) respond(result);
    });
    const progress = progressSink(params, send);
    this.#track(
      this.#runProgram(code, asker, parked.controller.signal, progress).then((result) => {
        if (parked.responder !== undefined) {
          const responder = parked.responder;
          this.#unpark(parked, "the run ended");
          responder(result);
        } else {
          parked.final = result;
        }
      }),
    );
  }

  #attach(parked: Parked, responder: (result: JsonObject) => void): void {
    clearTimeout(parked.timer);
    if (parked.final !== undefined) {
      const final = parked.final;
      this.#unpark(parked, "the run ended");
      responder(final);
      return;
    }
    parked.responder = responder;
    this.#flush(parked);
  }

  // Questions waiting and a request to carry them: answer it input_required, and wait.
  #flush(parked: Parked): void {
    const responder = parked.responder;
    if (responder === undefined || parked.asks.size === 0) return;
    parked.responder = undefined;
    const inputRequests: JsonObject = {};
    for (const [name, ask] of parked.asks) inputRequests[name] = ask.request;
    responder({ resultType: "input_required", inputRequests, requestState: parked.state });
    parked.timer = setTimeout(() => {
      this.#unpark(parked, `the host did not answer within ${this.#parkedMs} ms`);
      parked.controller.abort(new Error("The host did not come back"));
    }, this.#parkedMs);
  }

  #resume(parked: Parked, responses: JsonValue | undefined): void {
    if (!isJsonObject(responses)) return;
    for (const [name, response] of Object.entries(responses)) {
      const ask = parked.asks.get(name);
      if (ask === undefined) continue;
      parked.asks.delete(name);
      ask.resolve(
        isJsonObject(response) ? ok(response) : err("the host's answer is not an object"),
      );
    }
  }

  #unpark(parked: Parked, why: string): void {
    clearTimeout(parked.timer);
    this.#parked.delete(parked.state);
    for (const ask of parked.asks.values()) ask.resolve(err(why));
    parked.asks.clear();
  }

  async #runProgram(
    code: string,
    asker: HostAsker,
    signal: AbortSignal,
    progress: ((message: string) => void) | undefined,
  ): Promise<GatewayResult> {
    const { deadlineMs, maxOutputBytes } = this.#options;
    progress?.("type-checking and running the program");
    try {
      const report: RunReport = await this.#booted.run(code, {
        signal,
        ...askingHandlers(asker),
        ...(deadlineMs === undefined ? {} : { timeoutMs: deadlineMs }),
        ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
        ...(this.#options.approve === true
          ? { approve: (request: ApprovalRequest) => this.#approve(request, asker, progress) }
          : {}),
        ...(progress === undefined ? {} : {
          onProgress: (callId: number, reported: CallProgress) =>
            progress(`call ${callId + 1}: ${progressText(reported)}`),
        }),
      });
      return runResult(report);
    } catch (error) {
      // A harness that throws (retired under us, say) still answers the host.
      return errorResult(
        `The program could not be run: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      // The harness settled whatever the run still asked: the host need not answer it any more.
      asker.drop("the run ended before the host answered");
    }
  }

  // --approve: a call its tool does not mark read-only is put to the host as a form.
  async #approve(
    request: ApprovalRequest,
    asker: HostAsker,
    progress: ((message: string) => void) | undefined,
  ): Promise<Approval> {
    if (request.annotations.readOnlyHint === true) return true;
    const named = `${request.server}.${request.tool}`;
    if (!asker.can("form")) {
      return {
        allow: false,
        reason: `--approve asks the host before ${named}, which is not marked read-only, ` +
          "but this host declared no form elicitation capability, so it cannot be asked; " +
          "use a host that supports elicitation, or serve without --approve",
      };
    }
    const args = stringifyJson(request.args);
    const summary = quote(
      args.ok ? args.value : "(arguments JSON cannot say)",
      MAX_APPROVAL_ARGS_CHARS,
    );
    progress?.(`asking the host to approve ${named}`);
    const answer = await asker.ask("elicitation/create", {
      message: `Allow the program to call ${JSON.stringify(request.tool)} of the MCP server ` +
        `${JSON.stringify(request.server)} with the arguments ${summary}?`,
      requestedSchema: { type: "object", properties: {} },
    });
    if (!answer.ok) return { allow: false, reason: `the host could not be asked: ${answer.error}` };
    const action = answer.value.action;
    if (action === "accept") return true;
    return {
      allow: false,
      reason: `the host's user ${action === "decline" ? "declined" : "did not approve"} ${named}`,
    };
  }

  // A 2025 host is asked with a request of the session's own, answered through handle().
  #legacyAsker(caps: JsonObject, send: Send): HostAsker {
    const mine = new Set<Id>();
    return {
      can: (question) => capable(caps, question),
      ask: async (method, params) => {
        if (this.#closed) return err("the host left");
        const id = this.#nextId++;
        const answered = Promise.withResolvers<Result<JsonValue, RpcError>>();
        this.#pending.set(key(id), answered.resolve);
        mine.add(id);
        send(encodeRequest(id, method, params));
        const outcome = await answered.promise;
        mine.delete(id);
        if (!outcome.ok) {
          return err(
            `it answered ${method} with error ${outcome.error.code}: ${outcome.error.message}`,
          );
        }
        return isJsonObject(outcome.value)
          ? ok(outcome.value)
          : err(`its answer to ${method} is not an object`);
      },
      drop: (reason) => {
        for (const id of mine) {
          const settle = this.#pending.get(key(id));
          this.#pending.delete(key(id));
          if (!this.#closed) {
            send(encodeNotification("notifications/cancelled", { requestId: id, reason }));
          }
          settle?.(err({ code: SESSION_CLOSED, message: reason }));
        }
        mine.clear();
      },
    };
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#work.delete(tracked));
    this.#work.add(tracked);
  }
}

// What waits for the servers to start; the rest is answered from the session alone.
const NEEDS_SERVERS: ReadonlySet<string> = new Set(["tools/list", "tools/call"]);

// Search and describe never ask; a modern request's other tools get this.
const noHost: HostAsker = {
  can: () => false,
  ask: () => Promise.resolve(err("nothing is asked outside a program")),
  drop: () => {},
};

function key(id: Id): string {
  return `${typeof id === "string" ? "s" : "n"}:${id}`;
}

function text(body: string): GatewayResult {
  return { content: [{ type: "text", text: body }] };
}

/** Whether capabilities a host declared let it answer `question`. */
function capable(caps: JsonObject, question: HostQuestion): boolean {
  if (question === "sampling") return isJsonObject(caps.sampling);
  const elicitation = caps.elicitation;
  if (!isJsonObject(elicitation)) return false;
  // An empty elicitation capability is form mode (2025-06-18 had no modes).
  if (question === "form") return isJsonObject(elicitation.form) || !("url" in elicitation);
  return isJsonObject(elicitation.url);
}

// The host's progressToken, when it asked for progress: numbered steps with what is going on.
function progressSink(params: JsonObject, send: Send): ((message: string) => void) | undefined {
  const meta = params._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  let step = 0;
  return (message) =>
    send(encodeNotification("notifications/progress", {
      progressToken: token,
      progress: ++step,
      message,
    }));
}

function progressText(progress: CallProgress): string {
  if (progress.kind === "task") {
    return `task ${progress.status}${
      progress.message === undefined ? "" : `: ${progress.message}`
    }`;
  }
  const of = progress.total === undefined ? "" : ` of ${progress.total}`;
  return `${progress.progress}${of}${
    progress.message === undefined ? "" : `: ${progress.message}`
  }`;
}

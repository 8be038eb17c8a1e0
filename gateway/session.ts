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

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
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
import type { Harness } from "../harness/mod.ts";
import {
  GATEWAY_LISTING_TTL_MS,
  PARKED_RUN_TIMEOUT_MS,
  SURFACE_CHECK_INTERVAL_MS,
} from "./limits.ts";
import { capable, type HostAsker } from "./_asking.ts";
import type { GatewayOptions, Send } from "./options.ts";
import { key, SessionRuns } from "./_runs.ts";
import { gatewayDescriptors } from "./tools.ts";

export type { GatewayOptions, Send } from "./options.ts";

/**
 * The JSON-RPC error code of a request sent to a session already closed:
 * -32000, the first of the range JSON-RPC 2.0 leaves to servers.
 */
export const SESSION_CLOSED: number = -32000;

/** The version a gateway calls itself by default. */
export const GATEWAY_VERSION = "0.1.0";

const DEFAULT_INFO = { name: "loom-mcp", version: GATEWAY_VERSION };

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
  #runs: SessionRuns;
  #closed = false;
  // The surface a 2025 host was last given, and the timer that compares it with the harness's.
  #listed: string | undefined;
  #watch: ReturnType<typeof setInterval> | undefined;

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
    this.#runs = new SessionRuns(() => this.#booted, {
      options,
      parkedMs,
      complete: (result) => this.#complete(result),
    });
  }

  // Only reached once the boot settled (see #afterBoot).
  get #booted(): Harness {
    if (this.#harness === undefined) throw new Error("The servers have not started yet");
    return this.#harness;
  }

  /** How many of this session's programs are running (parked ones included). */
  get running(): number {
    return this.#runs.running;
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
          this.#runs.cancel(id);
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
    const settle = (why: "cancelled" | "closed"): void => {
      settled = true;
      if (this.#waiting.get(at) === settle) this.#waiting.delete(at);
      if (why === "closed") {
        send(encodeError(id, {
          code: SESSION_CLOSED,
          message: "The gateway session is closed: the host left; connect again",
        }));
      }
    };
    // A reused id names the newer request: the older one waiting is cancelled.
    this.#waiting.get(at)?.("cancelled");
    this.#waiting.set(at, settle);
    void this.#booting?.then((booted) => {
      if (settled) return;
      if (this.#waiting.get(at) === settle) this.#waiting.delete(at);
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
    clearInterval(this.#watch);
    this.#watch = undefined;
    for (const settle of [...this.#waiting.values()]) settle("closed");
    this.#runs.abort();
    for (const settle of this.#pending.values()) {
      settle(err({ code: SESSION_CLOSED, message: "the host left before answering" }));
    }
    this.#pending.clear();
    await this.#runs.settled();
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
      case "tools/list": {
        const surface = this.#booted.surface;
        if (this.#legacy) this.#watchSurface(surface);
        send(encodeResult(id, { tools: gatewayDescriptors(surface) }));
        return;
      }
      case "tools/call": {
        const asker = this.#legacyAsker(this.#capabilities, send);
        this.#runs.call(id, params, send, asker, (result) => send(encodeResult(id, result)));
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
    // run_program's description follows the servers' listings, so a 2025 host is told of changes.
    return {
      ...legacyInitializeResult(params, this.#info, this.#options.instructions),
      capabilities: { tools: { listChanged: true } },
    };
  }

  // A 2025 host was given `surface`: from now on, a different one is announced to it, once each.
  #watchSurface(surface: string): void {
    this.#listed = surface;
    if (this.#watch !== undefined || this.#closed) return;
    this.#watch = setInterval(() => {
      const now = this.#harness?.surface;
      if (this.#closed || now === undefined || now === this.#listed) return;
      this.#listed = now;
      this.#send(encodeNotification("notifications/tools/list_changed"));
    }, SURFACE_CHECK_INTERVAL_MS);
    // The host's input keeps the process alive, never this timer.
    Deno.unrefTimer(this.#watch);
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
        this.#runs.modernCall(id, params, caps, send);
        return;
      default:
        send(encodeError(id, {
          code: METHOD_NOT_FOUND,
          message: `Method not found: ${describeValue(method)}; a ${
            MODERN_VERSIONS[0]
          } request to this server is one of server/discover, tools/list and tools/call`,
          data: { supported: [...MODERN_VERSIONS] },
        }));
    }
  }

  #complete(result: JsonObject): JsonObject {
    return { resultType: "complete", ...result, _meta: { [META_SERVER_INFO]: { ...this.#info } } };
  }

  // A 2025 host is asked with a request of the session's own, answered through handle().
  #legacyAsker(caps: JsonObject, send: Send): HostAsker {
    const mine = new Set<Id>();
    return {
      can: (question) => capable(caps, question),
      tell: (method, params) => {
        if (!this.#closed) this.#send(encodeNotification(method, params));
      },
      ask: async (method, params, signal) => {
        if (this.#closed) return err("the host left");
        if (signal?.aborted) return err("the server withdrew its question");
        const id = this.#nextId++;
        const answered = Promise.withResolvers<Result<JsonValue, RpcError>>();
        this.#pending.set(key(id), answered.resolve);
        mine.add(id);
        send(encodeRequest(id, method, params));
        // The server that asked withdrew its question: so is the host's.
        const withdraw = () => {
          if (!mine.has(id)) return;
          this.#pending.delete(key(id));
          if (!this.#closed) {
            const reason = "The MCP server that asked withdrew its question";
            send(encodeNotification("notifications/cancelled", { requestId: id, reason }));
          }
          answered.resolve(err({ code: SESSION_CLOSED, message: "withdrawn" }));
        };
        signal?.addEventListener("abort", withdraw, { once: true });
        const outcome = await answered.promise;
        signal?.removeEventListener("abort", withdraw);
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
}

// What waits for the servers to start; the rest is answered from the session alone.
const NEEDS_SERVERS: ReadonlySet<string> = new Set(["tools/list", "tools/call"]);

// Private to server/: a session's SERVER spans, one per request from when
// it is read to when its answer is written (or the call is dropped), each
// continuing the trace the request's `params._meta` carries, and the
// session's duration (telemetry/mcp.ts holds the conventions). A session
// makes one only while a tracer provider is registered: without
// OTEL_DENO=true serving costs one check per session.

import type { JsonObject } from "../codec/json.ts";
import { type McpPeer, McpSession, ServerOperation } from "../telemetry/mcp.ts";
import { idKey, type WireId } from "./_inbound.ts";

/** The open spans of one served session, by request id. */
export class ServerTraces {
  #open = new Map<string, ServerOperation>();
  #peer: McpPeer;
  #session: McpSession;

  /** The spans of a session whose lines `network` carries. */
  constructor(network: "pipe" | "tcp") {
    this.#peer = { transport: network };
    this.#session = new McpSession("server", this.#peer);
  }

  /** A request was read; `knownTarget` says whether the tool it names, if any, is served. */
  open(id: WireId, method: string, params: JsonObject | undefined, knownTarget: boolean): void {
    const shown = typeof id === "bigint" ? id.toString() : id;
    this.#open.set(
      idKey(id),
      new ServerOperation(method, params ?? {}, shown, this.#peer, knownTarget),
    );
  }

  /** The session negotiated `version` (`initialize`). */
  negotiated(version: string): void {
    this.#peer = { ...this.#peer, protocolVersion: version };
    this.#session.negotiated(version);
  }

  /** A 2026-07-28 request named its own protocol version in its `_meta`. */
  versioned(id: WireId, version: string): void {
    this.#open.get(idKey(id))?.negotiated(version);
  }

  /** A reply (a result or an error) is about to be written. */
  replied(message: JsonObject): void {
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number" && typeof id !== "bigint") return;
    const operation = this.#take(id);
    if (operation === undefined) return;
    const error = message.error;
    if (typeof error === "object" && error !== null && !Array.isArray(error)) {
      const code = String((error as JsonObject).code);
      const text = (error as JsonObject).message;
      operation.end({
        errorType: code,
        statusCode: code,
        ...(typeof text === "string" ? { message: text } : {}),
      });
      return;
    }
    const result = message.result;
    const failed = typeof result === "object" && result !== null && !Array.isArray(result) &&
      (result as JsonObject).isError === true;
    operation.end(failed ? { errorType: "tool_error" } : {});
  }

  /** A tool call's answer, as its line, is about to be written. */
  answered(id: WireId, line: Uint8Array): void {
    if (!this.#open.has(idKey(id))) return;
    try {
      const message: unknown = JSON.parse(new TextDecoder().decode(line));
      if (typeof message === "object" && message !== null) {
        this.replied(message as JsonObject);
        return;
      }
    } catch {
      // A line that does not parse here is still the call's end.
    }
    this.#take(id)?.end({});
  }

  /** A call ends with no answer: cancelled by the client, or abandoned. */
  dropped(id: WireId): void {
    this.#take(id)?.end({ errorType: "cancelled" });
  }

  /** The session ended; `failed` when its channel died. */
  ended(failed: boolean): void {
    for (const operation of this.#open.values()) operation.end({ errorType: "unanswered" });
    this.#open.clear();
    this.#session.end(failed ? "channel_dead" : undefined);
  }

  #take(id: WireId): ServerOperation | undefined {
    const key = idKey(id);
    const operation = this.#open.get(key);
    if (operation !== undefined) this.#open.delete(key);
    return operation;
  }
}

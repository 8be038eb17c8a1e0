// Private to server/http/: what the 2026-07-28 era asks of a POST over HTTP.
// Its headers must say what its body says (`MCP-Protocol-Version` its
// envelope's version, `Mcp-Method` its method, `Mcp-Name` the name or URI it
// names), or it is answered -32020 with 400; and its answer's status says
// what kind of failure it carries.

import { isJsonObject, type JsonObject } from "../../codec/json.ts";
import { INVALID_REQUEST, METHOD_NOT_FOUND } from "../../codec/jsonrpc.ts";
import { META_PROTOCOL_VERSION, MODERN_VERSIONS } from "../../codec/protocol.ts";
import {
  METHOD_HEADER,
  NAME_HEADER,
  PROTOCOL_VERSION_HEADER,
} from "../../codec/streamable_http.ts";
import { UNSUPPORTED_PROTOCOL_VERSION } from "../../codec/stateless.ts";
import { describeValue } from "../../codec/quote.ts";
import type { WireId } from "../_inbound.ts";
import { decodeHeaderValue } from "./_header_value.ts";
import { rpcError } from "./_response.ts";
import type { Routed } from "./_session.ts";
import { HEADER_MISMATCH } from "./exchange.ts";

/** One POST of the 2026-07-28 era, as the endpoint read it. */
export type ModernPost = {
  message: JsonObject;
  method: string | undefined;
  id: WireId | undefined;
  /** Its `MCP-Protocol-Version` header. */
  header: string;
};

/**
 * Routes a 2026-07-28 POST whose headers must say what its body says, or
 * the answer that refuses it.
 */
export function routeModern(request: Request, post: ModernPost): Routed | Response {
  const { message, method, id, header } = post;
  if (method === undefined) {
    return rpcError(
      400,
      id ?? null,
      INVALID_REQUEST,
      `Invalid request: a ${header} client sends no responses; answer input requests in the retried request`,
    );
  }
  const mismatch = (text: string): Response =>
    rpcError(400, id ?? null, HEADER_MISMATCH, `Header mismatch: ${text}`);
  if (id !== undefined) {
    const params = isJsonObject(message.params) ? message.params : {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const inBody = meta[META_PROTOCOL_VERSION];
    if (inBody !== header) {
      return mismatch(
        `${PROTOCOL_VERSION_HEADER} ${
          JSON.stringify(header)
        } does not match _meta's "${META_PROTOCOL_VERSION}" ${describeValue(inBody)}`,
      );
    }
    const methodHeader = request.headers.get(METHOD_HEADER);
    if (methodHeader !== method) {
      return mismatch(
        `${METHOD_HEADER} ${
          describeValue(methodHeader ?? undefined)
        } does not match the body's method ${JSON.stringify(method)}`,
      );
    }
    const source = method === "resources/read"
      ? "uri"
      : method === "tools/call" || method === "prompts/get"
      ? "name"
      : undefined;
    if (source !== undefined) {
      const nameHeader = request.headers.get(NAME_HEADER);
      const name = nameHeader === null ? undefined : decodeHeaderValue(nameHeader);
      if (name === undefined || name !== params[source]) {
        return mismatch(
          `${NAME_HEADER} ${
            describeValue(nameHeader ?? undefined)
          } does not match the body's ${source} ${describeValue(params[source])}`,
        );
      }
    }
  }
  return { session: undefined, version: header, opens: false };
}

// A 2026-07-28 answer says in its status what kind of failure it carries.
export function statusOf(answer: JsonObject, version: string): number {
  if (!isModern(version) || !isJsonObject(answer.error)) return 200;
  const code = answer.error.code;
  if (code === METHOD_NOT_FOUND) return 404;
  if (code === UNSUPPORTED_PROTOCOL_VERSION || code === HEADER_MISMATCH) return 400;
  return 200;
}

export function isModern(version: string | null): boolean {
  return version !== null && (MODERN_VERSIONS as readonly string[]).includes(version);
}

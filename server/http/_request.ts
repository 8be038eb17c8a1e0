// Private to server/http/: reading a request: a message's id, what it
// accepts and sends, and its body, read no further than MAX_HTTP_BODY_BYTES.

import type { JsonObject } from "../../codec/json.ts";
import { INVALID_REQUEST, PARSE_ERROR } from "../../codec/jsonrpc.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import type { WireId } from "../_inbound.ts";
import { plain, rpcError } from "./_response.ts";
import { MAX_HTTP_BODY_BYTES } from "./limits.ts";

// undefined: no id (a notification); "bad": an id JSON-RPC does not allow.
export function wireId(message: JsonObject): WireId | undefined | "bad" {
  const id = message.id;
  if (id === undefined || id === null) return undefined;
  if (typeof id === "string" || typeof id === "bigint") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  return "bad";
}

export function accepts(request: Request, type: string): boolean {
  const accept = request.headers.get("accept");
  if (accept === null) return type === "application/json";
  return accept.split(",").some((part) => {
    const media = (part.split(";")[0] ?? "").trim().toLowerCase();
    return media === type || media === "*/*" || media === `${type.split("/")[0]}/*`;
  });
}

export function isJsonBody(contentType: string | null): boolean {
  return contentType !== null &&
    (contentType.split(";")[0] ?? "").trim().toLowerCase() === "application/json";
}

export async function readBounded(request: Request): Promise<Result<string, Response>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  const tooLarge = (): Result<string, Response> =>
    err(
      rpcError(
        413,
        null,
        INVALID_REQUEST,
        `Payload too large: a body may hold ${MAX_HTTP_BODY_BYTES} bytes; send a smaller message`,
      ),
    );
  if (declared > MAX_HTTP_BODY_BYTES) return tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    try {
      for (;;) {
        const read = await reader.read();
        if (read.done) break;
        size += read.value.byteLength;
        if (size > MAX_HTTP_BODY_BYTES) {
          await reader.cancel();
          return tooLarge();
        }
        chunks.push(read.value);
      }
    } catch (error) {
      return err(
        plain(
          400,
          `Bad request: the body could not be read: ${
            error instanceof Error ? error.message : String(error)
          }`,
        ),
      );
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return ok(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return err(rpcError(400, null, PARSE_ERROR, "Parse error: the body is not UTF-8"));
  }
}

// Private to server/http/: reading a request's headers and message: its id,
// and what it accepts and sends (its body is `_body.ts`'s to read).

import type { JsonObject } from "../../codec/json.ts";
import type { WireId } from "../_inbound.ts";

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

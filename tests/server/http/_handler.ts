// A small MCP handler for the HTTP transport's tests: one tool, `echo`, in
// both eras, which reports one progress notification first when asked (so
// its answer comes as an event stream), and `wait`, which answers only when
// its exchange is aborted (saying so through `aborted`).

import { isJsonObject, type JsonObject } from "../../../codec/json.ts";
import { encodeError, encodeResult, type Id } from "../../../codec/jsonrpc.ts";
import { LEGACY_VERSIONS, MODERN_VERSIONS } from "../../../codec/protocol.ts";
import type { HttpExchange, HttpMessageHandler } from "../../../server/mod.ts";

const INFO = { name: "http-test", version: "1.0.0" };
const TOOLS = [
  {
    name: "echo",
    description: "Echoes its text.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  { name: "wait", description: "Waits until cancelled.", inputSchema: { type: "object" } },
];

/** What the handler saw: each message's method, and the requests whose exchange aborted. */
export type Seen = { methods: string[]; aborted: string[]; sessions: Set<string> };

/** The handler, and what it saw. */
export function testHandler(): { handler: HttpMessageHandler; seen: Seen } {
  const seen: Seen = { methods: [], aborted: [], sessions: new Set() };
  const handler: HttpMessageHandler = async (message, exchange) => {
    const method = typeof message.method === "string" ? message.method : "(response)";
    seen.methods.push(method);
    if (exchange.session !== undefined) seen.sessions.add(exchange.session.id);
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number") return undefined;
    const params = isJsonObject(message.params) ? message.params : {};
    const modern = (MODERN_VERSIONS as readonly string[]).includes(exchange.protocolVersion);
    const done = (result: JsonObject): JsonObject =>
      encodeResult(id, modern ? { resultType: "complete", ...result } : result);
    switch (method) {
      case "initialize": {
        const asked = String(params.protocolVersion);
        const version = (LEGACY_VERSIONS as readonly string[]).includes(asked)
          ? asked
          : LEGACY_VERSIONS[0];
        return done({ protocolVersion: version, capabilities: { tools: {} }, serverInfo: INFO });
      }
      case "server/discover":
        return done({
          supportedVersions: [...MODERN_VERSIONS],
          capabilities: { tools: {} },
          serverInfo: INFO,
          _meta: { "io.modelcontextprotocol/serverInfo": INFO },
        });
      case "ping":
        return done({});
      case "tools/list":
        return done({ tools: TOOLS });
      case "tools/call":
        return await call(id, params, exchange, seen, done);
      default:
        return encodeError(id, { code: -32601, message: `Method not found: ${method}` });
    }
  };
  return { handler, seen };
}

async function call(
  id: Id,
  params: JsonObject,
  exchange: HttpExchange,
  seen: Seen,
  done: (result: JsonObject) => JsonObject,
): Promise<JsonObject> {
  const args = isJsonObject(params.arguments) ? params.arguments : {};
  if (params.name === "wait") {
    await new Promise<void>((resolve) => {
      if (exchange.signal.aborted) resolve();
      exchange.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    seen.aborted.push(String(id));
    return done({ content: [{ type: "text", text: "stopped" }] });
  }
  const meta = isJsonObject(params._meta) ? params._meta : {};
  const token = meta.progressToken;
  if (typeof token === "string" || typeof token === "number") {
    exchange.send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: token, progress: 1, total: 2 },
    });
  }
  return done({ content: [{ type: "text", text: String(args.text) }] });
}

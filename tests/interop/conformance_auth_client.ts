// The client under test of the conformance suite's authorization scenarios
// (`auth/*`): the suite runs this with the scenario's server URL as the last
// argument, the scenario in MCP_CONFORMANCE_SCENARIO, the protocol version in
// MCP_CONFORMANCE_PROTOCOL_VERSION and what a harness would configure (client
// ids, secrets, keys, assertions) in MCP_CONFORMANCE_CONTEXT. It signs in with
// the oauth/ room and speaks MCP's JSON-RPC over plain fetch: the handshake
// era's `initialize`, `notifications/initialized`, `tools/list` and a call of
// each tool, or the modern era's `server/discover`, `tools/list` and the
// calls, each request with its `_meta` envelope and headers. It says what
// happened on stderr (never a token: the room's failures are scrubbed) and
// exits 0 when every step worked.

import { authorizedFetch, OAuthSession } from "../../oauth/mod.ts";
import { SseDecoder } from "../../codec/sse.ts";
import { requestMeta } from "../../codec/stateless.ts";
import { ACCEPT_BOTH, modernHeaders, readOutgoing } from "../../codec/streamable_http.ts";
import { log, modern, settings, url, version } from "./_conformance_scenario.ts";

const CLIENT_INFO = { name: "loom-mcp-conformance", version: "0.1.0" };
const session = new OAuthSession(url, settings());
const post = authorizedFetch(session);
let nextId = 0;
let sessionId: string | undefined;
let negotiated: string | undefined;

type Answer = { ok: true; result: Record<string, unknown> } | { ok: false; why: string };

/** Posts one JSON-RPC message; the answer of a request (JSON or an event stream). */
async function send(
  method: string,
  params: Record<string, unknown>,
  notify = false,
): Promise<Answer> {
  const message: Record<string, unknown> = { jsonrpc: "2.0", method };
  const id = notify ? undefined : nextId++;
  if (id !== undefined) message.id = id;
  message.params = modern ? { ...params, _meta: requestMeta(version, CLIENT_INFO) } : params;
  const body = JSON.stringify(message);
  const headers = new Headers({ "content-type": "application/json", accept: ACCEPT_BOTH });
  for (const [name, value] of modernHeaders(readOutgoing(body))) headers.set(name, value);
  if (!modern && negotiated !== undefined) headers.set("mcp-protocol-version", negotiated);
  if (sessionId !== undefined) headers.set("mcp-session-id", sessionId);
  const answer = await post(url, { method: "POST", headers, body });
  if (!answer.ok) return { ok: false, why: `${answer.error.kind}: ${answer.error.message}` };
  const response = answer.value;
  sessionId = response.headers.get("mcp-session-id") ?? sessionId;
  if (notify) {
    await response.body?.cancel();
    return response.ok ? { ok: true, result: {} } : { ok: false, why: `HTTP ${response.status}` };
  }
  const texts: string[] = [];
  if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    const decoder = new SseDecoder();
    for await (const chunk of response.body ?? []) {
      const events = decoder.push(chunk);
      if (!events.ok) return { ok: false, why: events.error.message };
      texts.push(...events.value.map((event) => event.data).filter((data) => data !== ""));
    }
  } else {
    texts.push(await response.text());
  }
  for (const text of texts) {
    let reply: { id?: unknown; result?: Record<string, unknown>; error?: { message?: string } };
    try {
      reply = JSON.parse(text);
    } catch {
      return { ok: false, why: `HTTP ${response.status}, not JSON: ${text.slice(0, 200)}` };
    }
    if (reply.id !== id) continue;
    if (reply.result !== undefined) return { ok: true, result: reply.result };
    return { ok: false, why: `error: ${reply.error?.message ?? JSON.stringify(reply.error)}` };
  }
  return { ok: false, why: `HTTP ${response.status} without an answer to ${method}` };
}

async function run(): Promise<boolean> {
  if (modern) {
    const discovered = await send("server/discover", {});
    log(`server/discover: ${discovered.ok ? "ok" : discovered.why}`);
    if (!discovered.ok) return false;
  } else {
    const started = await send("initialize", {
      protocolVersion: version,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    log(`initialize: ${started.ok ? "ok" : started.why}`);
    if (!started.ok) return false;
    negotiated = String(started.result.protocolVersion ?? version);
    const initialized = await send("notifications/initialized", {}, true);
    if (!initialized.ok) log(`notifications/initialized: ${initialized.why}`);
  }
  const listed = await send("tools/list", {});
  log(`tools/list: ${listed.ok ? "ok" : listed.why}`);
  if (!listed.ok) return false;
  const tools = Array.isArray(listed.result.tools) ? listed.result.tools : [];
  for (const tool of tools) {
    const name = String((tool as { name?: unknown }).name);
    const called = await send("tools/call", { name, arguments: {} });
    log(`tools/call ${name}: ${called.ok ? "ok" : called.why}`);
    if (!called.ok) return false;
  }
  return true;
}

const passed = await run();
log(`session: ${JSON.stringify(session.status())}`);
Deno.exit(passed ? 0 : 1);

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

import {
  authorizedFetch,
  headlessAuthorize,
  OAuthSession,
  type OAuthSettings,
} from "../../oauth/mod.ts";
import { SseDecoder } from "../../codec/sse.ts";
import { requestMeta } from "../../codec/stateless.ts";
import { eraOf } from "../../codec/protocol.ts";
import { ACCEPT_BOTH, modernHeaders, readOutgoing } from "../../codec/streamable_http.ts";

/** The client metadata document URL the suite's CIMD scenario expects. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** The redirect URI; the headless user agent never needs it to be served. */
const REDIRECT_URI = "http://localhost:3000/callback";
const CLIENT_INFO = { name: "loom-mcp-conformance", version: "0.1.0" };

const url = Deno.args.at(-1) ?? "";
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
const version = Deno.env.get("MCP_CONFORMANCE_PROTOCOL_VERSION") ?? "2025-11-25";
const stateless = eraOf(version) === "modern";
const context = readContext();

function readContext(): Record<string, string> {
  try {
    const value = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    return {};
  }
}

function log(line: string): void {
  console.error(`[${scenario} ${version}] ${line}`);
}

/** The settings a harness would give for this server, from the scenario's context. */
function settings(): OAuthSettings {
  const out: OAuthSettings = {
    clientName: "loom-mcp conformance",
    clientMetadataUrl: CLIENT_METADATA_URL,
    redirectUri: REDIRECT_URI,
    authorize: headlessAuthorize(REDIRECT_URI),
  };
  if (context.client_id) out.clientId = context.client_id;
  if (context.client_secret) out.clientSecret = context.client_secret;
  if (context.private_key_pem) out.privateKeyPem = context.private_key_pem;
  if (context.signing_algorithm) out.signingAlgorithm = context.signing_algorithm;
  if (scenario.startsWith("auth/client-credentials")) out.grant = "client_credentials";
  if (scenario === "auth/wif-jwt-bearer") {
    out.grant = "jwt_bearer";
    if (context.valid_jwt) out.assertion = context.valid_jwt;
  }
  if (scenario === "auth/enterprise-managed-authorization") {
    out.grant = "enterprise_managed";
    if (context.idp_id_token) out.idToken = context.idp_id_token;
    if (context.idp_issuer) out.idpIssuer = context.idp_issuer;
    if (context.idp_token_endpoint) out.idpTokenEndpoint = context.idp_token_endpoint;
    if (context.idp_client_id) out.idpClientId = context.idp_client_id;
  }
  return out;
}

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
  message.params = stateless ? { ...params, _meta: requestMeta(version, CLIENT_INFO) } : params;
  const body = JSON.stringify(message);
  const headers = new Headers({ "content-type": "application/json", accept: ACCEPT_BOTH });
  for (const [name, value] of modernHeaders(readOutgoing(body))) headers.set(name, value);
  if (!stateless && negotiated !== undefined) headers.set("mcp-protocol-version", negotiated);
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
  if (stateless) {
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

// The client under test of the conformance suite's authorization scenarios
// (`auth/*`) when the library's own client signs in: a census of one remote
// server, its `oauth` settings taken from the scenario's context as a harness
// would configure them (client ids, secrets, keys, assertions), its worker
// run with least privilege (`--unstable-worker-options`: the network to the
// server's one host, so every request to an authorization server is the main
// thread's), then the start (the era the scenario speaks), `tools/list` and a
// call of each tool. The suite runs it with the scenario's server URL as the
// last argument, the scenario in MCP_CONFORMANCE_SCENARIO, the protocol
// version in MCP_CONFORMANCE_PROTOCOL_VERSION and the context in
// MCP_CONFORMANCE_CONTEXT. It says what happened on stderr, checks that no
// secret of the context reached a report, a message or a stderr tail, and
// exits 0 when every step worked.

import { Census } from "../../client/census.ts";
import { headlessAuthorize, MemoryTokenStore, type OAuthSettings } from "../../oauth/mod.ts";
import { eraOf } from "../../codec/protocol.ts";
import type { SupportedVersion } from "../../codec/protocol.ts";

/** The client metadata document URL the suite's CIMD scenario expects. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** The redirect URI; the headless user agent never needs it to be served. */
const REDIRECT_URI = "http://localhost:3000/callback";

const url = Deno.args.at(-1) ?? "";
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
const version = Deno.env.get("MCP_CONFORMANCE_PROTOCOL_VERSION") ?? "2025-11-25";
const modern = eraOf(version) === "modern";
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

const census = Census.prepare([{
  name: "conformance",
  url,
  era: modern ? "modern" : "legacy",
  versions: [version as SupportedVersion],
  connectTimeoutMs: 30_000,
  callTimeoutMs: 30_000,
  oauth: settings(),
}], { tokenStore: new MemoryTokenStore() });
const client = census.clients.get("conformance")!;
const told: unknown[] = [];

async function run(): Promise<boolean> {
  log(`worker permissions: ${census.permissions}`);
  const started = await client.connect();
  told.push(started);
  log(
    `start (${modern ? "server/discover" : "initialize"}): ${
      started.ok ? "ok" : `${started.error.kind}: ${started.error.message}`
    }`,
  );
  if (!started.ok) return false;
  const listed = await client.listTools();
  told.push(listed);
  log(`tools/list: ${listed.ok ? "ok" : `${listed.error.kind}: ${listed.error.message}`}`);
  if (!listed.ok) return false;
  for (const tool of listed.value) {
    const called = await client.callTool(tool.name, {});
    told.push(called);
    log(`tools/call ${tool.name}: ${called.ok ? "ok" : called.error.message}`);
    if (!called.ok) return false;
  }
  return true;
}

const passed = await run();
const retired = await census.retire();
told.push([...retired.clients], client.signInStatus(), client.stderrTail());
log(`retired: ${retired.confirmed ? "confirmed" : "NOT confirmed"}`);
log(`sign-in: ${JSON.stringify(client.signInStatus())}`);
// What a harness is handed must hold none of what it configured as secret.
const secrets = [context.client_secret, context.private_key_pem, context.valid_jwt]
  .concat(context.idp_id_token).filter((s): s is string => typeof s === "string" && s.length > 8);
const leaked = secrets.filter((secret) => JSON.stringify(told).includes(secret));
log(leaked.length === 0 ? "no secret in a report" : `${leaked.length} secrets in a report`);
Deno.exit(passed && retired.confirmed && leaked.length === 0 ? 0 : 1);

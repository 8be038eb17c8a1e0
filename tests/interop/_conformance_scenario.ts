// What both clients under test of the conformance suite's authorization
// scenarios read of the suite: the server URL (the last argument), the
// scenario, the protocol version and the context a harness would configure
// (MCP_CONFORMANCE_*), and the OAuth settings that context makes.

import { headlessAuthorize, type OAuthSettings } from "../../oauth/mod.ts";
import { eraOf } from "../../codec/protocol.ts";

/** The client metadata document URL the suite's CIMD scenario expects. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** The redirect URI; the headless user agent never needs it to be served. */
const REDIRECT_URI = "http://localhost:3000/callback";

/** The scenario's server URL. */
export const url = Deno.args.at(-1) ?? "";
/** The scenario's name, `auth/...`. */
export const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
/** The protocol version the scenario speaks. */
export const version = Deno.env.get("MCP_CONFORMANCE_PROTOCOL_VERSION") ?? "2025-11-25";
/** Whether that version is of the stateless era. */
export const modern = eraOf(version) === "modern";
/** What a harness would configure: client ids, secrets, keys, assertions. */
export const context = readContext();

function readContext(): Record<string, string> {
  try {
    const value = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    return {};
  }
}

/** Says one line on stderr, named by the scenario and its version. */
export function log(line: string): void {
  console.error(`[${scenario} ${version}] ${line}`);
}

/** The settings a harness would give for this server, from the scenario's context. */
export function settings(): OAuthSettings {
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

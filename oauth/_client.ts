/**
 * Who the client is at an authorization server, in the order MCP's
 * specification prefers: a client registered beforehand (the settings'
 * `clientId`), a Client ID Metadata Document URL where the server supports
 * those, a registration kept from an earlier dynamic registration, and a
 * dynamic registration (RFC 7591) as the fallback. Then how it authenticates
 * at the token endpoint: `client_secret_basic`, `client_secret_post`,
 * `private_key_jwt` or `none`.
 *
 * @module
 */

import * as oauth from "./_oauth4webapi.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { OAuthSettings, TokenEndpointAuthMethod } from "../settings/oauth.ts";
import { TOKEN_ENDPOINT_AUTH_METHODS } from "../settings/oauth.ts";
import type { OAuthFailure } from "./failures.ts";
import { type Fetch, isLoopback, requestOptions } from "./_http.ts";
import { failureOf } from "./_errors.ts";
import { DEFAULT_CLIENT_NAME } from "./limits.ts";
import type { StoredRegistration, StoreFailure, StoreKey, TokenStore } from "./store.ts";
import type { Discovered } from "./_discovery.ts";
import type { ClientOrigin } from "./credentials.ts";

/** The client, as it presents itself to one authorization server. */
export type ClientRecord = {
  clientId: string;
  clientSecret?: string;
  method: TokenEndpointAuthMethod;
  origin: ClientOrigin;
};

/** What a client's resolution needs besides the metadata and the settings. */
export type ClientContext = {
  issuer: string;
  redirectUri: string;
  fetch: Fetch;
  /** A registration kept in the store from an earlier dynamic registration. */
  stored?: StoredRegistration;
};

/** A client ready to ask for tokens: who it is, how it authenticates, where it is kept. */
export type PreparedClient = { record: ClientRecord; auth: oauth.ClientAuth; key: StoreKey };

/**
 * The client to present to the authorization server `found` names, as the
 * store remembers it or as it is registered now (and then remembered).
 */
export async function prepareClient(
  found: Discovered,
  settings: OAuthSettings,
  options: {
    redirectUri: string;
    fetch: Fetch;
    store: TokenStore;
    keep: (secret: string | undefined) => void;
    noteStore: (result: Result<void, StoreFailure>) => void;
  },
): Promise<Result<PreparedClient, OAuthFailure>> {
  const key = storeKeyOf(found, settings, options.redirectUri);
  const entry = await options.store.read(key);
  if (!entry.ok) return err(entry.error);
  const context: ClientContext = {
    issuer: found.issuer,
    redirectUri: options.redirectUri,
    fetch: options.fetch,
  };
  const stored = entry.value?.registration;
  if (stored !== undefined) context.stored = stored;
  let prepared = await usableClient(found.as, settings, context);
  if (!prepared.ok && stored !== undefined && prepared.error.kind === "registration_refused") {
    // A kept registration this client cannot use (an older version kept it unchecked):
    // forgotten, and the client registered anew, once.
    options.noteStore(await forgetRegistration(options.store, key, stored.clientId));
    delete context.stored;
    prepared = await usableClient(found.as, settings, context);
  }
  if (!prepared.ok) return prepared;
  const { record, auth } = prepared.value;
  options.keep(record.clientSecret);
  if (record.clientSecret !== undefined && record.method === "client_secret_basic") {
    options.keep(basicCredentials(record.clientId, record.clientSecret));
  }
  // Kept only now that it is known to be usable: a registration this client cannot
  // authenticate as would be presented, and fail, on every later run.
  if (record.origin === "dynamic" && context.stored === undefined) {
    options.noteStore(await keepRegistration(options.store, key, record));
  }
  return ok({ record, auth, key });
}

/** The client `resolveClient` gives, with how it authenticates; a dynamic one it cannot use is refused. */
async function usableClient(
  as: oauth.AuthorizationServer,
  settings: OAuthSettings,
  context: ClientContext,
): Promise<Result<{ record: ClientRecord; auth: oauth.ClientAuth }, OAuthFailure>> {
  const record = await resolveClient(as, settings, context);
  if (!record.ok) return record;
  const auth = await clientAuthentication(record.value, settings);
  if (auth.ok) return ok({ record: record.value, auth: auth.value });
  if (record.value.origin !== "dynamic") return auth;
  return err({
    kind: "registration_refused",
    message: `The authorization server ${context.issuer} registered this client for ` +
      `${record.value.method}, which it did not ask for and cannot authenticate with; ` +
      `register a client there and set its id as the oauth setting clientId (client_id in a ` +
      `catalog)`,
    issuer: context.issuer,
    status: 0,
    setting: "clientId",
  });
}

/**
 * Forgets the dynamic registration `clientId` kept under `key`, with the
 * grants issued to it (a refresh token is bound to its client): the
 * authorization server no longer takes it. A registration another session
 * made meanwhile stays.
 */
export function forgetRegistration(
  store: TokenStore,
  key: StoreKey,
  clientId: string,
): Promise<Result<void, StoreFailure>> {
  return store.update(
    key,
    (entry) => entry?.registration?.clientId === clientId ? undefined : entry,
  );
}

/** Where the token store keeps what concerns this client at the authorization server `found` names. */
export function storeKeyOf(
  found: Discovered,
  settings: OAuthSettings,
  redirectUri: string,
): StoreKey {
  return { issuer: found.issuer, client: clientKey(settings, found.as, redirectUri) };
}

/** Keeps the dynamic registration of `client`. */
function keepRegistration(
  store: TokenStore,
  key: StoreKey,
  client: ClientRecord,
): Promise<Result<void, StoreFailure>> {
  const registration: StoredRegistration = {
    clientId: client.clientId,
    tokenEndpointAuthMethod: client.method,
  };
  if (client.clientSecret !== undefined) registration.clientSecret = client.clientSecret;
  return store.update(key, (old) => ({ grants: old?.grants ?? {}, registration }));
}

/**
 * The name of the client in the token store, one per way the client can be
 * registered: its id, its metadata document, or a dynamic registration for
 * one redirect URI.
 */
export function clientKey(
  settings: OAuthSettings,
  as: oauth.AuthorizationServer,
  redirectUri: string,
): string {
  if (settings.clientId !== undefined) return `id ${settings.clientId}`;
  if (usesMetadataDocument(settings, as)) return `document ${settings.clientMetadataUrl}`;
  return `dynamic ${redirectUri}`;
}

function usesMetadataDocument(settings: OAuthSettings, as: oauth.AuthorizationServer): boolean {
  return settings.clientMetadataUrl !== undefined &&
    as.client_id_metadata_document_supported === true;
}

/** The client to present to `as`, registering it dynamically when nothing else will do. */
export async function resolveClient(
  as: oauth.AuthorizationServer,
  settings: OAuthSettings,
  context: ClientContext,
): Promise<Result<ClientRecord, OAuthFailure>> {
  const supported = methodsOf(as);
  if (settings.clientId !== undefined) {
    const method = settings.tokenEndpointAuthMethod ?? preRegisteredMethod(settings, supported);
    const record: ClientRecord = { clientId: settings.clientId, method, origin: "pre_registered" };
    if (settings.clientSecret !== undefined) record.clientSecret = settings.clientSecret;
    return ok(record);
  }
  if ((settings.grant ?? "authorization_code") !== "authorization_code") {
    return err({
      kind: "configuration_invalid",
      message: `The ${settings.grant} grant needs a client registered beforehand with ` +
        `${context.issuer}; set the oauth setting clientId (client_id in a catalog)`,
      setting: "clientId",
    });
  }
  if (usesMetadataDocument(settings, as)) {
    return ok({
      clientId: settings.clientMetadataUrl!,
      method: "none",
      origin: "metadata_document",
    });
  }
  if (context.stored !== undefined) {
    const record: ClientRecord = {
      clientId: context.stored.clientId,
      method: context.stored.tokenEndpointAuthMethod,
      origin: "dynamic",
    };
    if (context.stored.clientSecret !== undefined) {
      record.clientSecret = context.stored.clientSecret;
    }
    return ok(record);
  }
  if (typeof as.registration_endpoint !== "string") {
    return err({
      kind: "registration_unavailable",
      message: `The authorization server ${context.issuer} offers no dynamic client ` +
        `registration and no client id is set: register a client there and set its id as ` +
        `the oauth setting clientId (client_id in a catalog)`,
      issuer: context.issuer,
      setting: "clientId",
    });
  }
  return await register(as, settings, context, publicMethod(supported));
}

function methodsOf(as: oauth.AuthorizationServer): string[] | undefined {
  const methods = as.token_endpoint_auth_methods_supported;
  return Array.isArray(methods) ? methods : undefined;
}

function preRegisteredMethod(
  settings: OAuthSettings,
  supported: string[] | undefined,
): TokenEndpointAuthMethod {
  if (settings.privateKeyPem !== undefined) return "private_key_jwt";
  if (settings.clientSecret === undefined) return "none";
  // RFC 8414: client_secret_basic is what a server that lists nothing takes.
  if (supported === undefined || supported.includes("client_secret_basic")) {
    return "client_secret_basic";
  }
  return supported.includes("client_secret_post") ? "client_secret_post" : "client_secret_basic";
}

/** What a native client asks to be registered with: public when the server allows it. */
function publicMethod(supported: string[] | undefined): TokenEndpointAuthMethod {
  if (supported === undefined || supported.includes("none")) return "none";
  if (supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  return "none";
}

async function register(
  as: oauth.AuthorizationServer,
  settings: OAuthSettings,
  context: ClientContext,
  method: TokenEndpointAuthMethod,
): Promise<Result<ClientRecord, OAuthFailure>> {
  const redirect = new URL(context.redirectUri);
  const metadata = {
    client_name: settings.clientName ?? DEFAULT_CLIENT_NAME,
    redirect_uris: [context.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
    // SEP-837: a client on a loopback redirect URI is a native application.
    application_type: isLoopback(redirect) || redirect.protocol !== "https:" ? "native" : "web",
  };
  let registered: Awaited<ReturnType<typeof oauth.processDynamicClientRegistrationResponse>>;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      metadata,
      requestOptions(as.registration_endpoint!, context.fetch, { namedBy: context.issuer }),
    );
    registered = await oauth.processDynamicClientRegistrationResponse(await lenient(response));
  } catch (error) {
    return err(failureOf(error, { phase: "registration", issuer: context.issuer }));
  }
  const secret = typeof registered.client_secret === "string" && registered.client_secret !== ""
    ? registered.client_secret
    : undefined;
  const answered = registered.token_endpoint_auth_method;
  let granted: TokenEndpointAuthMethod =
    (TOKEN_ENDPOINT_AUTH_METHODS as readonly unknown[]).includes(answered)
      ? answered as TokenEndpointAuthMethod
      : method;
  if (secret === undefined && granted !== "none") granted = "none";
  const record: ClientRecord = {
    clientId: registered.client_id,
    method: granted,
    origin: "dynamic",
  };
  if (secret !== undefined) record.clientSecret = secret;
  return ok(record);
}

/**
 * A registration answer as RFC 7591 has it, from one that bends it the way
 * deployed servers do: `200` instead of `201`, a secret without
 * `client_secret_expires_at` (read as 0, never expires).
 */
async function lenient(response: Response): Promise<Response> {
  if (response.status !== 200 && response.status !== 201) return response;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return response;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return response;
  const record = body as Record<string, unknown>;
  if (response.status === 201 && (!record.client_secret || "client_secret_expires_at" in record)) {
    return response;
  }
  if (record.client_secret && !("client_secret_expires_at" in record)) {
    record.client_secret_expires_at = 0;
  }
  return Response.json(record, { status: 201, headers: response.headers });
}

/** How `client` authenticates at the token endpoint. */
export async function clientAuthentication(
  client: ClientRecord,
  settings: OAuthSettings,
): Promise<Result<oauth.ClientAuth, OAuthFailure>> {
  switch (client.method) {
    case "none":
      return ok(oauth.None());
    case "client_secret_basic":
    case "client_secret_post": {
      if (client.clientSecret === undefined) {
        return err({
          kind: "configuration_invalid",
          message: `The token endpoint takes ${client.method} and no client secret is set; ` +
            `set the oauth setting clientSecret (client_secret in a catalog)`,
          setting: "clientSecret",
        });
      }
      return ok(
        client.method === "client_secret_basic"
          ? clientSecretBasic(client.clientSecret)
          : oauth.ClientSecretPost(client.clientSecret),
      );
    }
    case "private_key_jwt": {
      if (settings.privateKeyPem === undefined) {
        return err({
          kind: "configuration_invalid",
          message: "The token endpoint takes private_key_jwt and no private key is set; set " +
            "the oauth setting privateKeyPem (private_key_pem in a catalog)",
          setting: "privateKeyPem",
        });
      }
      const key = await importPrivateKey(settings.privateKeyPem, settings.signingAlgorithm);
      return key.ok ? ok(oauth.PrivateKeyJwt(key.value)) : key;
    }
  }
}

/**
 * `client_secret_basic` as RFC 6749 §2.3.1 has it: id and secret
 * form-urlencoded, then Base64. oauth4webapi's own escapes `-`, `.`, `_` and
 * `~` as well, which deployed servers that skip the decoding (the
 * conformance suite's among them) read as another client id.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    headers.set("authorization", `Basic ${basicCredentials(client.client_id, secret)}`);
  };
}

/** The credentials of `client_secret_basic` (what follows `Basic `): a secret of its own. */
export function basicCredentials(clientId: string, secret: string): string {
  const form = (text: string) => new URLSearchParams({ v: text }).toString().slice(2);
  const bytes = new TextEncoder().encode(`${form(clientId)}:${form(secret)}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The Web Crypto parameters of each JWS algorithm a client key may use. */
const KEY_ALGORITHMS: Readonly<
  Record<string, RsaHashedImportParams | EcKeyImportParams | Algorithm>
> = {
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  ES384: { name: "ECDSA", namedCurve: "P-384" },
  ES512: { name: "ECDSA", namedCurve: "P-521" },
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
  RS384: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-384" },
  RS512: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-512" },
  PS256: { name: "RSA-PSS", hash: "SHA-256" },
  PS384: { name: "RSA-PSS", hash: "SHA-384" },
  PS512: { name: "RSA-PSS", hash: "SHA-512" },
  EdDSA: { name: "Ed25519" },
  Ed25519: { name: "Ed25519" },
};

/** A PKCS #8 PEM private key as a signing key that cannot be exported. */
export async function importPrivateKey(
  pem: string,
  algorithm: string | undefined,
): Promise<Result<CryptoKey, OAuthFailure>> {
  const alg = algorithm ?? "ES256";
  const params = KEY_ALGORITHMS[alg];
  if (params === undefined) {
    return err({
      kind: "configuration_invalid",
      message: `Cannot sign with algorithm ${quote(alg)}: use one of ${
        Object.keys(KEY_ALGORITHMS).join(", ")
      } as the oauth setting signingAlgorithm`,
      setting: "signingAlgorithm",
    });
  }
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/.exec(pem);
  try {
    if (match === null) throw new Error("no PKCS #8 block");
    const binary = atob(match[1]!.replace(/\s+/g, ""));
    const der = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return ok(await crypto.subtle.importKey("pkcs8", der, params, false, ["sign"]));
  } catch {
    return err({
      kind: "configuration_invalid",
      message: `Cannot read the oauth setting privateKeyPem as a PKCS #8 ${alg} private key ` +
        `("-----BEGIN PRIVATE KEY-----"); convert it with openssl pkcs8 -topk8 -nocrypt, or ` +
        `set signingAlgorithm to the key's algorithm`,
      setting: "privateKeyPem",
    });
  }
}

/**
 * The requests that get tokens, each made and checked by oauth4webapi: the
 * authorization request of an authorization code grant (PKCE S256, a state,
 * the resource indicator of RFC 8707) and the checks of what the browser
 * comes back with (state, and `iss` as RFC 9207 has it), the code's
 * exchange, a refresh, client credentials, a JWT bearer grant (RFC 7523),
 * and the token exchange (RFC 8693) of enterprise-managed authorization.
 * A token request a DPoP server answers with `use_dpop_nonce` is made once
 * more, with the nonce it gave.
 *
 * @module
 */

import * as oauth from "./_oauth4webapi.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { OAuthFailure } from "./failures.ts";
import { type Fetch, plainHttpAllowed, requestOptions } from "./_http.ts";
import { failureOf } from "./_errors.ts";
import type { DpopKey } from "./_dpop.ts";
import type { Discovered } from "./_discovery.ts";

/** The grant type URN of RFC 7523's JWT bearer grant. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** The grant type URN of RFC 8693's token exchange. */
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
/** The token type of an Identity Assertion JWT Authorization Grant (ID-JAG). */
export const ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
/** The token type of an OpenID Connect ID token. */
export const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";

/** What a token endpoint gave. */
export type TokenSet = {
  accessToken: string;
  tokenType: "bearer" | "dpop";
  /** Seconds the access token lives, when the server said. */
  expiresIn?: number;
  refreshToken?: string;
  /** The scopes granted, when the server said. */
  scope?: string;
};

/** Who asks for tokens, and where. */
export type GrantContext = {
  as: oauth.AuthorizationServer;
  issuer: string;
  client: oauth.Client;
  auth: oauth.ClientAuth;
  fetch: Fetch;
  /** The resource indicator, absent for a 2025-03-26 server. */
  resource?: string;
  dpop?: DpopKey;
};

/** The context of token requests to the authorization server `found` names, as `client`. */
export function grantContext(
  found: Discovered,
  client: { record: { clientId: string }; auth: oauth.ClientAuth },
  options: { fetch: Fetch; dpop: DpopKey | undefined },
): GrantContext {
  const context: GrantContext = {
    as: found.as,
    issuer: found.issuer,
    client: { client_id: client.record.clientId },
    auth: client.auth,
    fetch: options.fetch,
  };
  if (found.resource !== undefined) context.resource = found.resource.resource;
  if (options.dpop !== undefined) context.dpop = options.dpop;
  return context;
}

/** An authorization request, and what its answer is checked against. */
export type AuthorizationRequest = { url: URL; state: string; verifier: string };

/** A sign-in begun: its request, what its answer is checked against, the scopes asked for. */
export type PendingSignIn = {
  request: AuthorizationRequest & { redirectUri: string };
  context: GrantContext;
  scopes: string[];
};

/** Builds the authorization URL of an authorization code grant with PKCE S256. */
export async function authorizationRequest(
  context: GrantContext,
  options: { redirectUri: string; scopes: readonly string[] },
): Promise<Result<AuthorizationRequest, OAuthFailure>> {
  const endpoint = context.as.authorization_endpoint;
  if (typeof endpoint !== "string" || !URL.canParse(endpoint)) {
    return err({
      kind: "metadata_invalid",
      message: `The metadata of authorization server ${context.issuer} names no usable ` +
        `authorization_endpoint; nobody can sign in there`,
      url: context.issuer,
    });
  }
  const url = new URL(endpoint);
  try {
    oauth.checkProtocol(url, !plainHttpAllowed(url, context.issuer));
  } catch (error) {
    return err(failureOf(error, { phase: "discovery", url: endpoint }));
  }
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params = url.searchParams;
  params.set("response_type", "code");
  params.set("client_id", context.client.client_id);
  params.set("redirect_uri", options.redirectUri);
  params.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  params.set("code_challenge_method", "S256");
  params.set("state", state);
  if (options.scopes.length > 0) params.set("scope", options.scopes.join(" "));
  if (context.resource !== undefined) params.set("resource", context.resource);
  return ok({ url, state, verifier });
}

/** Checks the query the browser came back with and exchanges its code for tokens. */
export async function exchangeCode(
  context: GrantContext,
  callback: URLSearchParams,
  request: AuthorizationRequest & { redirectUri: string },
): Promise<Result<TokenSet, OAuthFailure>> {
  let checked: URLSearchParams;
  try {
    checked = oauth.validateAuthResponse(context.as, context.client, callback, request.state);
  } catch (error) {
    const phase = { phase: "authorization_response" as const, issuer: context.issuer };
    return err(failureOf(error, phase));
  }
  return await tokenCall(
    context,
    "authorization_code",
    () =>
      oauth.authorizationCodeGrantRequest(
        context.as,
        context.client,
        context.auth,
        checked,
        request.redirectUri,
        request.verifier,
        { ...options(context), additionalParameters: resourceParameter(context) },
      ),
    (response) => oauth.processAuthorizationCodeResponse(context.as, context.client, response),
  );
}

/** Refreshes with `refreshToken` (RFC 6749 §6), for the same resource. */
export function refreshTokens(
  context: GrantContext,
  refreshToken: string,
): Promise<Result<TokenSet, OAuthFailure>> {
  return tokenCall(
    context,
    "refresh_token",
    () =>
      oauth.refreshTokenGrantRequest(context.as, context.client, context.auth, refreshToken, {
        ...options(context),
        additionalParameters: resourceParameter(context),
      }),
    (response) => oauth.processRefreshTokenResponse(context.as, context.client, response),
  );
}

/** The client credentials grant (RFC 6749 §4.4): the client's own token. */
export function clientCredentials(
  context: GrantContext,
  scopes: readonly string[],
): Promise<Result<TokenSet, OAuthFailure>> {
  return tokenCall(
    context,
    "client_credentials",
    () =>
      oauth.clientCredentialsGrantRequest(
        context.as,
        context.client,
        context.auth,
        { ...scopeParameter(scopes), ...resourceParameter(context) },
        options(context),
      ),
    (response) => oauth.processClientCredentialsResponse(context.as, context.client, response),
  );
}

/** The JWT bearer grant (RFC 7523 §2.1): `assertion` is the grant. */
export function jwtBearer(
  context: GrantContext,
  assertion: string,
  scopes: readonly string[],
): Promise<Result<TokenSet, OAuthFailure>> {
  return tokenCall(
    context,
    "jwt_bearer",
    () =>
      oauth.genericTokenEndpointRequest(
        context.as,
        context.client,
        context.auth,
        JWT_BEARER_GRANT,
        { assertion, ...scopeParameter(scopes), ...resourceParameter(context) },
        options(context),
      ),
    (response) => oauth.processGenericTokenEndpointResponse(context.as, context.client, response),
  );
}

/** Where an identity provider takes token exchanges, and as whom. */
export type IdentityProvider = {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
};

/**
 * The identity provider of enterprise-managed authorization: at
 * `tokenEndpoint` when given, else found by its OpenID metadata.
 */
export async function identityProvider(
  settings: { issuer?: string; tokenEndpoint?: string; clientId: string; clientSecret?: string },
  fetch: Fetch,
): Promise<Result<IdentityProvider, OAuthFailure>> {
  const client: oauth.Client = { client_id: settings.clientId };
  const auth = settings.clientSecret === undefined
    ? oauth.None()
    : oauth.ClientSecretPost(settings.clientSecret);
  if (settings.tokenEndpoint !== undefined) {
    const issuer = settings.issuer ?? new URL(settings.tokenEndpoint).origin;
    return ok({ as: { issuer, token_endpoint: settings.tokenEndpoint }, client, auth });
  }
  const issuer = new URL(settings.issuer!);
  try {
    const response = await oauth.discoveryRequest(issuer, {
      ...requestOptions(issuer, fetch, { namedBy: issuer }),
      algorithm: "oidc",
    });
    return ok({ as: await oauth.processDiscoveryResponse(issuer, response), client, auth });
  } catch (error) {
    const context = { phase: "discovery" as const, url: issuer.href, issuer: issuer.href };
    return err(failureOf(error, context));
  }
}

/**
 * Exchanges the user's ID token at the identity provider for an ID-JAG for
 * the MCP server's authorization server (the grant the JWT bearer grant then
 * presents there).
 */
export async function identityAssertion(
  idp: IdentityProvider,
  audience: { issuer: string; resource?: string; scopes: readonly string[] },
  idToken: string,
  fetch: Fetch,
): Promise<Result<string, OAuthFailure>> {
  const parameters: Record<string, string> = {
    requested_token_type: ID_JAG_TOKEN_TYPE,
    audience: audience.issuer,
    subject_token: idToken,
    subject_token_type: ID_TOKEN_TYPE,
    ...scopeParameter(audience.scopes),
  };
  if (audience.resource !== undefined) parameters.resource = audience.resource;
  const context = { phase: "token" as const, grant: "token_exchange", issuer: idp.as.issuer };
  let answer: oauth.TokenEndpointResponse;
  try {
    const response = await oauth.genericTokenEndpointRequest(
      idp.as,
      idp.client,
      idp.auth,
      TOKEN_EXCHANGE_GRANT,
      parameters,
      requestOptions(idp.as.token_endpoint!, fetch, { namedBy: idp.as.issuer }),
    );
    // An ID-JAG is no access token: RFC 8693 §2.2.1 has its token_type N_A.
    answer = await oauth.processGenericTokenEndpointResponse(idp.as, idp.client, response, {
      recognizedTokenTypes: { n_a: () => {} },
    });
  } catch (error) {
    return err(failureOf(error, context));
  }
  if (answer.issued_token_type !== ID_JAG_TOKEN_TYPE) {
    return err({
      kind: "token_response_invalid",
      message: `The identity provider ${idp.as.issuer} answered the token exchange with a ` +
        `${quote(String(answer.issued_token_type ?? "missing"))} token instead of an ID-JAG`,
      grant: "token_exchange",
    });
  }
  return ok(answer.access_token);
}

function options(context: GrantContext) {
  const endpoint = context.as.token_endpoint ?? context.issuer;
  const base = requestOptions(endpoint, context.fetch, { namedBy: context.issuer });
  return context.dpop === undefined ? base : { ...base, DPoP: context.dpop.handle };
}

function resourceParameter(context: GrantContext): Record<string, string> {
  return context.resource === undefined ? {} : { resource: context.resource };
}

function scopeParameter(scopes: readonly string[]): Record<string, string> {
  return scopes.length === 0 ? {} : { scope: scopes.join(" ") };
}

/**
 * An error as its body tells it: a refusal that carries a `WWW-Authenticate`
 * challenge (RFC 6749 §5.2 has a 401 of a client that authenticated with
 * `Basic` carry one) is read by oauth4webapi for its challenge alone, and its
 * OAuth error (`invalid_client`, say) is what decides what to do next.
 */
async function withErrorBody(error: unknown): Promise<unknown> {
  if (!(error instanceof oauth.WWWAuthenticateChallengeError)) return error;
  const response = error.response;
  try {
    const body = await response.clone().json();
    if (typeof body?.error === "string" && body.error !== "") {
      return new oauth.ResponseBodyError(error.message, { cause: body, response });
    }
  } catch {
    // No JSON body: the challenge is all there is.
  }
  return error;
}

async function tokenCall(
  context: GrantContext,
  grant: string,
  request: () => Promise<Response>,
  process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
): Promise<Result<TokenSet, OAuthFailure>> {
  for (let attempt = 0;; attempt++) {
    let answer: oauth.TokenEndpointResponse;
    try {
      answer = await process(await request());
    } catch (error) {
      // The handle kept the nonce of the refusal: the request is made once more with it.
      if (attempt === 0 && context.dpop !== undefined && oauth.isDPoPNonceError(error)) continue;
      const phase = { phase: "token" as const, grant, issuer: context.issuer };
      return err(failureOf(await withErrorBody(error), phase));
    }
    const tokenType = answer.token_type === "dpop" ? "dpop" : "bearer";
    const out: TokenSet = { accessToken: answer.access_token, tokenType };
    if (typeof answer.expires_in === "number") out.expiresIn = answer.expires_in;
    if (typeof answer.refresh_token === "string") out.refreshToken = answer.refresh_token;
    if (typeof answer.scope === "string") out.scope = answer.scope;
    return ok(out);
  }
}

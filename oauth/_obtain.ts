/**
 * The parts of getting a token that depend on the grant and not on the
 * session's state: the headless grants (client credentials, JWT bearer,
 * enterprise-managed), the wait for the harness's `authorize` within the
 * sign-in deadline, and MCP's scope selection strategy.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { Authorize, OAuthGrant, OAuthSettings, Supplied } from "../settings/oauth.ts";
import type { OAuthFailure } from "./failures.ts";
import type { Fetch } from "./_http.ts";
import type { Discovered } from "./_discovery.ts";
import { scopeList } from "./_challenge.ts";
import * as grants from "./_grants.ts";
import type { Secrets } from "./_secrets.ts";
import type { Refusal } from "./credentials.ts";
import { DEFAULT_REDIRECT_URI, MAX_AUTHORIZATION_RETRIES } from "./limits.ts";

const OFFLINE_ACCESS = "offline_access";

/** The grants that need no person. */
export type HeadlessGrant = Exclude<OAuthGrant, "authorization_code">;

/** Tokens by a headless grant, for `scopes`. */
export async function headlessTokens(
  grant: HeadlessGrant,
  settings: OAuthSettings,
  context: grants.GrantContext,
  scopes: readonly string[],
  options: { fetch: Fetch; secrets: Secrets },
): Promise<Result<grants.TokenSet, OAuthFailure>> {
  switch (grant) {
    case "client_credentials":
      return await grants.clientCredentials(context, scopes);
    case "jwt_bearer": {
      const assertion = await supplied(grant, settings.assertion, "assertion", options.secrets);
      if (!assertion.ok) return assertion;
      return await grants.jwtBearer(context, assertion.value, scopes);
    }
    case "enterprise_managed": {
      if (
        settings.idpClientId === undefined ||
        (settings.idpIssuer === undefined && settings.idpTokenEndpoint === undefined)
      ) {
        return err({
          kind: "configuration_invalid",
          message: "Enterprise-managed authorization needs its identity provider: set the oauth " +
            "settings idpClientId and idpIssuer (or idpTokenEndpoint)",
          setting: settings.idpClientId === undefined ? "idpClientId" : "idpIssuer",
        });
      }
      const idToken = await supplied(grant, settings.idToken, "idToken", options.secrets);
      if (!idToken.ok) return idToken;
      const idp: Parameters<typeof grants.identityProvider>[0] = { clientId: settings.idpClientId };
      if (settings.idpIssuer !== undefined) idp.issuer = settings.idpIssuer;
      if (settings.idpTokenEndpoint !== undefined) idp.tokenEndpoint = settings.idpTokenEndpoint;
      if (settings.idpClientSecret !== undefined) idp.clientSecret = settings.idpClientSecret;
      const provider = await grants.identityProvider(idp, options.fetch);
      if (!provider.ok) return provider;
      const audience: Parameters<typeof grants.identityAssertion>[1] = {
        issuer: context.as.issuer,
        scopes,
      };
      if (context.resource !== undefined) audience.resource = context.resource;
      const jag = await grants.identityAssertion(
        provider.value,
        audience,
        idToken.value,
        options.fetch,
      );
      if (!jag.ok) return jag;
      options.secrets.keep(jag.value);
      return await grants.jwtBearer(context, jag.value, scopes);
    }
  }
}

async function supplied(
  grant: string,
  value: Supplied | undefined,
  setting: string,
  secrets: Secrets,
): Promise<Result<string, OAuthFailure>> {
  if (value === undefined) {
    return err({
      kind: "configuration_invalid",
      message: `The ${grant} grant needs the oauth setting ${setting}`,
      setting,
    });
  }
  try {
    const text = typeof value === "string" ? value : await value();
    secrets.keep(text);
    return ok(text);
  } catch (error) {
    return err({
      kind: "configuration_invalid",
      message: `Cannot get the oauth setting ${setting} from its function: ${
        error instanceof Error ? error.message : String(error)
      }`,
      setting,
    });
  }
}

class SignInDeadline extends Error {}

/** The session closed while `authorize` ran. */
class SignInClosed extends Error {}

/**
 * What the harness's `authorize` resolves to, or `sign_in_failed` when it
 * rejects or takes longer than `timeoutMs`.
 */
export async function awaitAuthorize(
  authorize: Authorize,
  url: URL,
  options: { timeoutMs: number; where: string; signal: AbortSignal },
): Promise<Result<URLSearchParams, OAuthFailure>> {
  const closed = (): OAuthFailure => ({
    kind: "sign_in_failed",
    message: `The sign-in to ${options.where} was given up: its session was closed (the ` +
      `client retired); start the client again to sign in`,
    reason: "closed",
  });
  const { signal } = options;
  if (signal.aborted) return err(closed());
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SignInDeadline()), options.timeoutMs);
      onAbort = () => reject(new SignInClosed());
      signal.addEventListener("abort", onAbort, { once: true });
    });
    return ok(await Promise.race([authorize(url), deadline]));
  } catch (error) {
    if (error instanceof SignInClosed) return err(closed());
    const late = error instanceof SignInDeadline;
    return err({
      kind: "sign_in_failed",
      message: late
        ? `The sign-in to ${options.where} did not come back within ${options.timeoutMs} ms; ` +
          `sign in again`
        : `The sign-in to ${options.where} failed in the harness's authorize: ${
          error instanceof Error ? error.message : String(error)
        }`,
      reason: late ? "timed_out" : "authorize_failed",
    });
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  }
}

/** Why a sign-in at this authorization server is not started, if it is not. */
export function pkceRefusal(found: Discovered): OAuthFailure | undefined {
  const methods = found.as.code_challenge_methods_supported;
  if (!found.fromMetadata || (Array.isArray(methods) && methods.includes("S256"))) return undefined;
  return {
    kind: "metadata_invalid",
    message: `The authorization server ${found.issuer} does not list PKCE S256 in its ` +
      `code_challenge_methods_supported, which MCP requires: no sign-in is started there`,
    url: found.issuer,
  };
}

/**
 * The scopes a new token is asked for (MCP's scope selection strategy):
 * the settings', else the refusal's, else the protected resource's
 * `scopes_supported`, else none; with `offline_access` where the
 * authorization server lists it and a person signs in (SEP-2207).
 */
export function selectScopes(
  settings: OAuthSettings,
  found: Discovered | undefined,
  challenged: string | undefined,
): string[] {
  const fromChallenge = scopeList(challenged);
  const scopes = settings.scopes !== undefined
    ? [...settings.scopes]
    : fromChallenge.length > 0
    ? fromChallenge
    : [...(found?.resource?.scopesSupported ?? [])];
  const supported = found?.as.scopes_supported;
  if (
    (settings.grant ?? "authorization_code") === "authorization_code" && scopes.length > 0 &&
    !scopes.includes(OFFLINE_ACCESS) && Array.isArray(supported) &&
    supported.includes(OFFLINE_ACCESS)
  ) {
    scopes.push(OFFLINE_ACCESS);
  }
  return scopes;
}

/** The answer to a refusal past {@linkcode MAX_AUTHORIZATION_RETRIES}. */
export function refusedTooOften(
  refusal: Refusal,
  where: string,
  scope: string | undefined,
): OAuthFailure {
  const times = `${refusal.attempt} times, after ${MAX_AUTHORIZATION_RETRIES} new tokens`;
  if (refusal.status === 403) {
    return {
      kind: "insufficient_scope",
      message: `The server ${where} refused the request ${times}, for lack of scope; ask its ` +
        `operator to grant the scopes it asks for`,
      scopes: scopeList(scope),
    };
  }
  return {
    kind: "refused",
    message: `The server ${where} refused the request ${times}; check the oauth settings of ` +
      `this server`,
    status: refusal.status,
  };
}

/** The answer to a 403 that asks for no scope: no token is let in. */
export function forbidden(where: string): OAuthFailure {
  return {
    kind: "refused",
    message: `The server ${where} refused the request with HTTP 403 and no insufficient_scope ` +
      `challenge: no other token would be let in`,
    status: 403,
  };
}

/** The redirect URI of the settings: theirs, else on their callback port, else the default. */
export function redirectUriOf(settings: OAuthSettings): string {
  if (settings.redirectUri !== undefined) return settings.redirectUri;
  return settings.callbackPort === undefined
    ? DEFAULT_REDIRECT_URI
    : `http://127.0.0.1:${settings.callbackPort}/callback`;
}

/** A sign-in that needs a person, who opens `url`. */
export function needsAuth(where: string, url: URL, issuer: string): OAuthFailure {
  return {
    kind: "needs_auth",
    message: `Sign-in to ${where} is needed: open the authorization URL in a browser (or give ` +
      `the oauth settings an authorize function) to let this client in`,
    authorizationUrl: url.href,
    issuer,
  };
}

/** The answer to a sign-in's completion when none was begun. */
export function noSignInWaiting(where: string): OAuthFailure {
  return {
    kind: "authorization_response_invalid",
    message: `No sign-in to ${where} is waiting for its answer; sign in again`,
  };
}

/**
 * The answer to a callback whose `state` is not the waiting sign-in's: a
 * page any site can make a browser load, or a stale tab. The sign-in waits on.
 */
export function foreignCallback(where: string): OAuthFailure {
  return {
    kind: "authorization_response_invalid",
    message: `The answer given for the sign-in to ${where} carries another state than the ` +
      `sign-in that waits (it may come from another site, or an older sign-in): it is not ` +
      `used, and the sign-in still waits; finish it with the query the browser came back with`,
  };
}

/** The answer to a request to `url` outside the protected resource `resource`. */
export function outsideResource(url: URL, resource: string): OAuthFailure {
  const shown = `${url.origin}${url.pathname}`;
  return {
    kind: "outside_resource",
    message: `Cannot send a request to ${quote(shown, 200)} with the credentials of ` +
      `${quote(resource, 200)}: it is outside the protected resource they are for; send it ` +
      `without them, or through a session of its own server`,
    url: shown,
    resource,
  };
}

/** The parameters of an authorization response a server wrote as text: its error. */
const SERVER_TEXT = ["error", "error_description", "error_uri"] as const;

/**
 * The query the browser came back with, its error text scrubbed by `clean`
 * before any message quotes and cuts it (the code and state stay as they are).
 */
export function scrubbedCallback(
  callback: URLSearchParams,
  clean: (text: string) => string,
): URLSearchParams {
  const out = new URLSearchParams(callback);
  for (const name of SERVER_TEXT) {
    const value = out.get(name);
    if (value !== null) out.set(name, clean(value));
  }
  return out;
}

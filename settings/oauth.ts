/**
 * What a harness says about signing in to a remote server that needs OAuth:
 * the settings of one server (or of every remote server that has none of its
 * own), in camelCase. The catalog's `[mcp.<name>.oauth]` table says the same
 * in snake_case. The vocabulary lives here, below the catalog and the
 * sign-in room alike, so that both read it without importing each other.
 *
 * @module
 */

/**
 * How a token is obtained, newest grant last: a person signing in through a
 * browser (`authorization_code`, the default), a service with its own
 * credentials (`client_credentials`), a workload presenting a JWT its platform
 * issued (`jwt_bearer`, RFC 7523), or an enterprise identity provider's token
 * exchanged for one the server's authorization server accepts
 * (`enterprise_managed`, RFC 8693 then RFC 7523).
 */
export const OAUTH_GRANTS = [
  "authorization_code",
  "client_credentials",
  "jwt_bearer",
  "enterprise_managed",
] as const;

/** One of {@linkcode OAUTH_GRANTS}. */
export type OAuthGrant = typeof OAUTH_GRANTS[number];

/** How the client proves itself at the token endpoint. */
export const TOKEN_ENDPOINT_AUTH_METHODS = [
  "client_secret_basic",
  "client_secret_post",
  "private_key_jwt",
  "none",
] as const;

/** One of {@linkcode TOKEN_ENDPOINT_AUTH_METHODS}. */
export type TokenEndpointAuthMethod = typeof TOKEN_ENDPOINT_AUTH_METHODS[number];

/**
 * The user agent of an interactive sign-in: given the authorization URL, it
 * shows it to the person (a browser, a printed link) and resolves to the query
 * of the request that reached the redirect URI (`code`, `state`, `iss`).
 */
export type Authorize = (url: URL | string) => Promise<URLSearchParams>;

/** A value given as it is, or fetched when it is needed (a short-lived JWT). */
export type Supplied = string | (() => Promise<string>);

/**
 * The sign-in settings of a remote server. Every field is optional: with none
 * the client signs in interactively, registers itself dynamically and asks
 * for the scopes the server names.
 */
export type OAuthSettings = {
  /** How a token is obtained; `authorization_code` when absent. */
  grant?: OAuthGrant;
  /** A client registered beforehand with the authorization server. */
  clientId?: string;
  /** That client's secret (`client_secret_basic` or `client_secret_post`). */
  clientSecret?: string;
  /**
   * The HTTPS URL of this client's metadata document, used as its client id
   * where the authorization server supports Client ID Metadata Documents.
   */
  clientMetadataUrl?: string;
  /** The `client_name` a dynamic registration gives. */
  clientName?: string;
  /** Where the authorization server sends the browser back. */
  redirectUri?: string;
  /** The loopback port of the redirect URI when `redirectUri` is absent. */
  callbackPort?: number;
  /** The scopes to ask for, instead of those the server names. */
  scopes?: readonly string[];
  /** How the client authenticates at the token endpoint; chosen from the metadata when absent. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** A PKCS #8 private key in PEM, for `private_key_jwt`. */
  privateKeyPem?: string;
  /** The JWS algorithm of that key (`ES256` when absent). */
  signingAlgorithm?: string;
  /** A refresh token the harness already holds: used before any sign-in. */
  refreshToken?: string;
  /** `jwt_bearer`: the JWT the workload presents as its grant. */
  assertion?: Supplied;
  /** `enterprise_managed`: the identity provider's ID token of the user. */
  idToken?: Supplied;
  /** `enterprise_managed`: the identity provider, found by its OpenID metadata. */
  idpIssuer?: string;
  /** `enterprise_managed`: the identity provider's token endpoint (instead of `idpIssuer`). */
  idpTokenEndpoint?: string;
  /** `enterprise_managed`: this client's id at the identity provider. */
  idpClientId?: string;
  /** `enterprise_managed`: this client's secret at the identity provider. */
  idpClientSecret?: string;
  /**
   * Whether tokens are bound to a key of this client (DPoP, RFC 9449): when
   * absent, they are where the authorization server supports it.
   */
  dpop?: boolean;
  /** The user agent; without one, a sign-in ends as `needs_auth` with the URL to open. */
  authorize?: Authorize;
};

/** Whether a value is one of {@linkcode OAUTH_GRANTS}. */
export function isOAuthGrant(value: unknown): value is OAuthGrant {
  return (OAUTH_GRANTS as readonly unknown[]).includes(value);
}

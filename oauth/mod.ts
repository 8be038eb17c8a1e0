/**
 * Signing in to remote MCP servers that need OAuth, as MCP's authorization
 * specification (2026-07-28, with 2025-11-25, 2025-06-18 and 2025-03-26)
 * has it, on oauth4webapi: protected resource and authorization server
 * discovery, client registration (a client id, a metadata document, or a
 * dynamic registration), the authorization code grant with PKCE and resource
 * indicators, refresh with rotation, step-up to more scopes, DPoP, and the
 * headless grants (client credentials, JWT bearer, enterprise-managed).
 * Everything here runs on the main thread, where the harness's network
 * permission and its secrets are; a client's worker gets only the
 * credentials its requests carry.
 *
 * @example A session that asks a person to sign in
 * ```ts ignore
 * import { OAuthSession } from "./mod.ts";
 * const session = new OAuthSession("https://mcp.example.com/mcp", {});
 * const token = await session.accessToken();
 * if (!token.ok && token.error.kind === "needs_auth") {
 *   console.log(`Open ${token.error.authorizationUrl}`);
 * }
 * ```
 *
 * @module
 */

export { OAuthSession } from "./session.ts";
export type {
  AccessToken,
  ClientOrigin,
  Credentials,
  Fetch,
  OAuthSessionOptions,
  OAuthStatus,
  Refusal,
  RequestTarget,
} from "./credentials.ts";
export { type AuthorizedFetch, authorizedFetch, headlessAuthorize } from "./authorized_fetch.ts";
export {
  defaultTokenDir,
  FileTokenStore,
  type FileTokenStoreOptions,
  MemoryTokenStore,
  type StoredEntry,
  type StoredGrant,
  type StoredRegistration,
  type StoreFailure,
  type StoreKey,
  type TokenStore,
} from "./store.ts";
export { OAUTH_FAILURE_KINDS, type OAuthFailure, type OAuthFailureKind } from "./failures.ts";
export * from "./limits.ts";

export type { Result } from "../codec/result.ts";
export {
  type Authorize,
  isOAuthGrant,
  OAUTH_GRANTS,
  type OAuthGrant,
  type OAuthSettings,
  type Supplied,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type TokenEndpointAuthMethod,
} from "../settings/oauth.ts";

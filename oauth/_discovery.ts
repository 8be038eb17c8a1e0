/**
 * Finding who signs a server's requests, in the order MCP's authorization
 * specification gives: the protected resource metadata (RFC 9728) at the URL
 * of the refusal's `resource_metadata`, else at the path-based well-known
 * URL, else at the root one; then its authorization server's metadata (RFC
 * 8414 and OpenID discovery: path insertion first, OpenID path appending
 * last), whose `issuer` must be the one it was looked up by. A server with no
 * protected resource metadata is a 2025-03-26 server: its origin is the
 * authorization server, and when that has no metadata either, the default
 * endpoints `/authorize`, `/token` and `/register` are used.
 *
 * @module
 */

import * as oauth from "./_oauth4webapi.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { OAuthFailure } from "./failures.ts";
import { type Fetch, plainHttpAllowed, requestOptions } from "./_http.ts";
import { failureOf } from "./_errors.ts";

/** What a server's protected resource metadata says. */
export type ResourceMetadata = {
  /** Its `resource`: the resource indicator tokens are asked for (RFC 8707). */
  resource: string;
  /** Its `authorization_servers`, as issuer identifiers. */
  authorizationServers: string[];
  /** Its `scopes_supported`, when it lists them. */
  scopesSupported?: string[];
  /** Where it was found. */
  url: string;
};

/** Who signs a server's requests, and how to reach it. */
export type Discovered = {
  /** The protected resource metadata; absent for a 2025-03-26 server. */
  resource?: ResourceMetadata;
  /** The issuer identifier the authorization server was looked up by. */
  issuer: string;
  /** Its metadata, or the 2025-03-26 default endpoints. */
  as: oauth.AuthorizationServer;
  /** Whether `as` came from a metadata document (not the default endpoints). */
  fromMetadata: boolean;
};

/** How a discovery runs. */
export type DiscoveryOptions = {
  /** The refusal's `resource_metadata`, tried first. */
  resourceMetadataUrl?: string;
  /**
   * Whether a server without protected resource metadata is taken for a
   * 2025-03-26 server (after a refusal) rather than one that needs nothing.
   */
  allowLegacy: boolean;
  fetch: Fetch;
};

/** Finds the protected resource metadata and the authorization server of `server`. */
export async function discover(
  server: URL,
  options: DiscoveryOptions,
): Promise<Result<Discovered | undefined, OAuthFailure>> {
  const unencrypted = plainHttpRefusal(server);
  if (unencrypted !== undefined) return err(unencrypted);
  const resource = await resourceMetadata(server, options);
  if (!resource.ok) return resource;
  if (resource.value === undefined) {
    if (!options.allowLegacy) return ok(undefined);
    const found = await authorizationServer(server.origin, server, options.fetch);
    if (!found.ok) return found;
    if (found.value !== undefined) {
      return ok({ issuer: server.origin, as: found.value, fromMetadata: true });
    }
    return ok({ issuer: server.origin, as: defaultEndpoints(server.origin), fromMetadata: false });
  }
  const issuer = resource.value.authorizationServers[0]!;
  const found = await authorizationServer(issuer, server, options.fetch);
  if (!found.ok) return found;
  if (found.value === undefined) {
    return err({
      kind: "metadata_invalid",
      message:
        `Cannot find the metadata of authorization server ${
          quote(issuer)
        }, which the server names: none at its well-known URLs; check the server's ` +
        `authorization_servers`,
      url: issuer,
    });
  }
  return ok({ resource: resource.value, issuer, as: found.value, fromMetadata: true });
}

/**
 * Why no token is ever asked for `server`, if none is: an MCP server reached
 * over plain HTTP off this machine would receive it unencrypted, for anyone
 * on the way to read and replay.
 */
export function plainHttpRefusal(server: URL): OAuthFailure | undefined {
  if (server.protocol === "https:" || plainHttpAllowed(server, server)) return undefined;
  return {
    kind: "configuration_invalid",
    message: `Cannot sign in to ${quote(`${server.origin}${server.pathname}`, 200)}: it is ` +
      `reached over ${server.protocol.replace(/:$/, "")} off this machine, where its token ` +
      `would cross the network unencrypted; use the server's https:// URL (plain HTTP is ` +
      `allowed only on this machine's loopback addresses)`,
    setting: "url",
  };
}

/** The 2025-03-26 endpoints of a server without metadata, at its origin. */
function defaultEndpoints(origin: string): oauth.AuthorizationServer {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
  };
}

async function resourceMetadata(
  server: URL,
  options: DiscoveryOptions,
): Promise<Result<ResourceMetadata | undefined, OAuthFailure>> {
  const bare = new URL(`${server.origin}${server.pathname}`);
  const attempts: Array<{ url: string; request: () => Promise<Response> }> = [];
  const announced = options.resourceMetadataUrl;
  // A refusal's resource_metadata is the server's word: reached over HTTPS, or
  // over plain HTTP only from a server on this machine to this machine.
  if (announced !== undefined && /^https?:/i.test(announced)) {
    attempts.push({ url: announced, request: () => getJson(announced, server, options.fetch) });
  }
  const wellKnown = `${server.origin}/.well-known/oauth-protected-resource`;
  const own = requestOptions(server, options.fetch, { namedBy: server });
  attempts.push({
    url: bare.pathname === "/" ? wellKnown : `${wellKnown}${bare.pathname}`,
    request: () => oauth.resourceDiscoveryRequest(bare, own),
  });
  if (bare.pathname !== "/") {
    const root = new URL(server.origin);
    attempts.push({
      url: wellKnown,
      request: () => oauth.resourceDiscoveryRequest(root, own),
    });
  }
  for (const attempt of attempts) {
    let response: Response;
    try {
      response = await attempt.request();
    } catch (error) {
      return err(failureOf(error, { phase: "discovery", url: attempt.url }));
    }
    if (response.status !== 200) continue;
    return await readResourceMetadata(server, response, attempt.url);
  }
  return ok(undefined);
}

async function readResourceMetadata(
  server: URL,
  response: Response,
  url: string,
): Promise<Result<ResourceMetadata, OAuthFailure>> {
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    body = undefined;
  }
  const resource = (body as { resource?: unknown } | undefined)?.resource;
  if (typeof resource !== "string" || !URL.canParse(resource)) {
    return err({
      kind: "metadata_invalid",
      message:
        `Cannot use the protected resource metadata of ${server.origin}${server.pathname}: ` +
        `its "resource" is ${typeof resource === "string" ? quote(resource) : "absent"}`,
      url,
    });
  }
  if (!resourceCovers(new URL(resource), server)) {
    return err({
      kind: "resource_mismatch",
      message: `The protected resource metadata of ${server.origin}${server.pathname} is for ` +
        `${quote(resource)}, another resource: no token is asked for it; check the server's URL`,
      expected: `${server.origin}${server.pathname}`,
      resource,
    });
  }
  let metadata: oauth.ResourceServer;
  try {
    metadata = await oauth.processResourceDiscoveryResponse(new URL(resource), response);
  } catch (error) {
    return err(failureOf(error, { phase: "discovery", url }));
  }
  const servers = metadata.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0 || typeof servers[0] !== "string") {
    return err({
      kind: "metadata_invalid",
      message: `The protected resource metadata of ${server.origin}${server.pathname} names no ` +
        `authorization server; the server cannot be signed in to`,
      url,
    });
  }
  const out: ResourceMetadata = {
    resource,
    authorizationServers: servers.filter((s): s is string => typeof s === "string"),
    url,
  };
  const scopes = metadata.scopes_supported;
  if (Array.isArray(scopes)) out.scopesSupported = scopes.filter((s) => typeof s === "string");
  return ok(out);
}

/** Whether two discoveries name the same authorization server for the same resource. */
export function sameAuthority(a: Discovered, b: Discovered): boolean {
  return a.issuer === b.issuer && a.resource?.resource === b.resource?.resource;
}

/**
 * Whether a protected resource identifier covers the server's URL: the same
 * origin, and a path that is the server's or one of its parents.
 */
export function resourceCovers(resource: URL, server: URL): boolean {
  if (resource.origin !== server.origin) return false;
  const parent = resource.pathname.replace(/\/+$/, "");
  const path = server.pathname.replace(/\/+$/, "");
  return parent === "" || path === parent || path.startsWith(`${parent}/`);
}

/**
 * The metadata of the authorization server `issuer`, which `server` named,
 * from the first of its well-known URLs that has it; undefined when none does.
 */
async function authorizationServer(
  issuer: string,
  server: URL,
  fetch: Fetch,
): Promise<Result<oauth.AuthorizationServer | undefined, OAuthFailure>> {
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    return err({
      kind: "metadata_invalid",
      message: `Cannot look up authorization server ${quote(issuer)}: it is not a URL`,
      url: issuer,
    });
  }
  const options = requestOptions(issuerUrl, fetch, { namedBy: server });
  const path = issuerUrl.pathname.replace(/\/+$/, "");
  const attempts: Array<() => Promise<Response>> = [
    () => oauth.discoveryRequest(issuerUrl, { ...options, algorithm: "oauth2" }),
  ];
  if (path !== "") {
    // OpenID discovery with the path inserted, which oauth4webapi does not build.
    attempts.push(() =>
      getJson(`${issuerUrl.origin}/.well-known/openid-configuration${path}`, server, fetch)
    );
  }
  attempts.push(() => oauth.discoveryRequest(issuerUrl, { ...options, algorithm: "oidc" }));
  for (const attempt of attempts) {
    let response: Response;
    try {
      response = await attempt();
    } catch (error) {
      return err(failureOf(error, { phase: "discovery", url: issuer }));
    }
    if (response.status !== 200) continue;
    try {
      return ok(await oauth.processDiscoveryResponse(issuerUrl, response));
    } catch (error) {
      return err(failureOf(error, { phase: "discovery", url: issuer, issuer }));
    }
  }
  return ok(undefined);
}

/**
 * A GET of a JSON document as oauth4webapi makes its own: HTTPS only (plain
 * HTTP where {@linkcode plainHttpAllowed} allows it for the server that named
 * it), no redirect followed.
 */
function getJson(url: string, namedBy: URL, fetch: Fetch): Promise<Response> {
  const target = new URL(url);
  oauth.checkProtocol(target, !plainHttpAllowed(target, namedBy));
  return fetch(target, {
    method: "GET",
    headers: { accept: "application/json" },
    redirect: "manual",
  });
}

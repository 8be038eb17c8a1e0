/**
 * What oauth4webapi and the network throw, as {@linkcode OAuthFailure}
 * values that say what failed and what to do. Every text a server wrote is
 * quoted; the session scrubs every failure of its secrets before it leaves.
 *
 * @module
 */

import * as oauth from "./_oauth4webapi.ts";
import { quote } from "../codec/quote.ts";
import type { OAuthFailure } from "./failures.ts";
import { ResponseTooLargeError, UnreachableError } from "./_http.ts";

/** Where in a sign-in an error was met. */
export type ErrorContext =
  | { phase: "discovery"; url: string; issuer?: string }
  | { phase: "registration"; issuer: string }
  | { phase: "authorization_response"; issuer: string }
  | { phase: "token"; grant: string; issuer: string };

/** The failure an error thrown in `context` comes to. */
export function failureOf(error: unknown, context: ErrorContext): OAuthFailure {
  if (error instanceof UnreachableError) {
    return {
      kind: "unreachable",
      message: `${error.message}; check that the server is up and that this machine can reach it`,
      url: error.url,
      host: error.host,
      port: error.port,
      cause: error.system,
    };
  }
  if (error instanceof ResponseTooLargeError) {
    return context.phase === "token"
      ? { kind: "token_response_invalid", message: error.message, grant: context.grant }
      : { kind: "metadata_invalid", message: error.message, url: error.url };
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === oauth.HTTP_REQUEST_FORBIDDEN || code === oauth.REQUEST_PROTOCOL_FORBIDDEN) {
    return {
      kind: "metadata_invalid",
      message: `Cannot use ${where(context)}: an endpoint is not HTTPS (plain HTTP is allowed ` +
        `only on this machine's loopback addresses, when what named the endpoint is there too); ` +
        `ask the server's operator for HTTPS endpoints`,
      url: context.phase === "discovery" ? context.url : context.issuer,
    };
  }
  if (error instanceof oauth.ResponseBodyError) return bodyError(error, context);
  if (error instanceof oauth.AuthorizationResponseError) {
    const out: OAuthFailure = {
      kind: "authorization_denied",
      message:
        `The sign-in came back from ${
          context.phase === "discovery" ? context.url : context.issuer
        } with ${describeOAuthError(error.error, error.error_description)}; ` +
        `sign in again, and grant the access asked for`,
      error: error.error,
    };
    if (error.error_description !== undefined) out.errorDescription = error.error_description;
    return out;
  }
  const text = error instanceof Error ? error.message : String(error);
  switch (context.phase) {
    case "discovery": {
      const cause = (error as { cause?: { attribute?: unknown; body?: { issuer?: unknown } } })
        .cause;
      if (code === oauth.JSON_ATTRIBUTE_COMPARISON && cause?.attribute === "issuer") {
        const issuer = typeof cause.body?.issuer === "string" ? cause.body.issuer : "";
        return {
          kind: "issuer_mismatch",
          message: `The metadata of authorization server ${quote(context.issuer ?? context.url)} ` +
            `names another issuer, ${quote(issuer)}: it is not used (RFC 8414 §3.3); check the ` +
            `server's authorization_servers`,
          expected: context.issuer ?? context.url,
          issuer,
        };
      }
      return {
        kind: "metadata_invalid",
        message: `Cannot use the metadata at ${quote(context.url)}: ${text}`,
        url: context.url,
      };
    }
    case "registration":
      return {
        kind: "registration_refused",
        message: `The authorization server ${context.issuer} did not register this client ` +
          `(${statusOf(error)}): ${text}; register a client there and set its id as the ` +
          `oauth setting clientId (client_id in a catalog)`,
        issuer: context.issuer,
        status: statusNumber(error),
        setting: "clientId",
      };
    case "authorization_response":
      return {
        kind: "authorization_response_invalid",
        message: `The sign-in came back from ${context.issuer} with a response that fails its ` +
          `checks (${text}): it is not used, as it may come from another server (RFC 9207); ` +
          `sign in again, and report it to the server's operator if it happens again`,
      };
    case "token": {
      const status = statusNumber(error);
      return {
        kind: "token_response_invalid",
        message: passing(status)
          ? `The token endpoint of ${context.issuer} is failing for now: it answered the ` +
            `${context.grant} grant with HTTP ${status}; try again in a moment`
          : `The token endpoint of ${context.issuer} answered the ${context.grant} grant ` +
            `with something that is not a usable token (${text})`,
        grant: context.grant,
      };
    }
  }
}

function bodyError(error: oauth.ResponseBodyError, context: ErrorContext): OAuthFailure {
  const said = describeOAuthError(error.error, error.error_description);
  switch (context.phase) {
    case "registration": {
      const out: OAuthFailure = {
        kind: "registration_refused",
        message: `The authorization server ${context.issuer} refused to register this client ` +
          `(HTTP ${error.status}, ${said}); register a client there and set its id as the ` +
          `oauth setting clientId (client_id in a catalog)`,
        issuer: context.issuer,
        status: error.status,
        error: error.error,
        setting: "clientId",
      };
      if (error.error_description !== undefined) out.errorDescription = error.error_description;
      return out;
    }
    case "token": {
      const out: OAuthFailure = {
        kind: "token_refused",
        message: `The token endpoint of ${context.issuer} refused the ${context.grant} grant ` +
          `(HTTP ${error.status}, ${said}); ${tokenAdvice(context.grant, error)}`,
        grant: context.grant,
        status: error.status,
        error: error.error,
      };
      if (error.error_description !== undefined) out.errorDescription = error.error_description;
      return out;
    }
    default: {
      const url = context.phase === "discovery" ? context.url : context.issuer;
      return {
        kind: "metadata_invalid",
        message: `Cannot use ${where(context)}: it answered HTTP ${error.status}, ${said}`,
        url,
      };
    }
  }
}

/** Whether an answer of HTTP `status` says the server is failing for now, not refusing. */
function passing(status: number): boolean {
  return status === 429 || status >= 500;
}

function tokenAdvice(grant: string, refusal: { error: string; status: number }): string {
  const { error } = refusal;
  if (error === "invalid_client" || error === "unauthorized_client") {
    return "check the client's id, secret or key in the oauth settings";
  }
  if (error === "temporarily_unavailable" || error === "server_error" || passing(refusal.status)) {
    return "the authorization server is failing for now: try again in a moment";
  }
  if (grant === "refresh_token") return "sign in again";
  if (error === "invalid_scope") return "check the oauth setting scopes";
  return "check the oauth settings of this server";
}

/** An OAuth error code and its description, as a server wrote them. */
export function describeOAuthError(error: string, description: string | undefined): string {
  return description === undefined || description === ""
    ? `error ${quote(error)}`
    : `error ${quote(error)}: ${quote(description, 200)}`;
}

function where(context: ErrorContext): string {
  switch (context.phase) {
    case "discovery":
      return `the metadata at ${quote(context.url)}`;
    case "registration":
      return `the registration endpoint of ${context.issuer}`;
    default:
      return `the authorization server ${context.issuer}`;
  }
}

function statusNumber(error: unknown): number {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof Response ? cause.status : 0;
}

function statusOf(error: unknown): string {
  const status = statusNumber(error);
  return status === 0 ? "no HTTP status" : `HTTP ${status}`;
}

// Private to server/http/: who may reach the endpoint. A request passes when
// its Host names the address the server listens on (a loopback server
// answers only to loopback names: a DNS-rebound name is refused), its Origin,
// when it has one, is the server's own or one the caller allowed, and it
// carries the server's bearer token. The token is compared through SHA-256
// digests byte by byte with no early exit, so neither its length nor its
// prefix leaks through timing.

import { GENERATED_TOKEN_BYTES, MIN_TOKEN_CHARS } from "./limits.ts";

const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether `hostname` (as given to listen) is a loopback address. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || hostname === "::1" ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The origins a server listening on `hostname:port` calls its own. */
export function ownOrigins(hostname: string, port: number): Set<string> {
  const host = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  const names = isLoopback(hostname) ? [...LOOPBACK_NAMES, host] : [host];
  return new Set(names.map((name) => `http://${name}:${port}`));
}

/** Why a request is refused before its body is read, or undefined when it may go on. */
export type Refusal = { status: 401 | 403; message: string };

/** What the guard checks, decided once at listen. */
export type GuardSettings = {
  origins: ReadonlySet<string>;
  hosts: ReadonlySet<string> | undefined;
  digest: Uint8Array;
};

/** Checks one request's Host, Origin and token. */
export async function guard(
  request: Request,
  settings: GuardSettings,
): Promise<Refusal | undefined> {
  const host = request.headers.get("host");
  if (settings.hosts !== undefined && (host === null || !settings.hosts.has(host.toLowerCase()))) {
    return {
      status: 403,
      message: `Forbidden: Host ${
        JSON.stringify(host ?? "")
      } is not this server's address; a loopback server answers only to localhost and 127.0.0.1`,
    };
  }
  const origin = request.headers.get("origin");
  if (origin !== null && !settings.origins.has(origin.toLowerCase())) {
    return {
      status: 403,
      message: `Forbidden: Origin ${
        JSON.stringify(origin)
      } is not this server's own; pass it in allowedOrigins to let that page in`,
    };
  }
  const authorization = request.headers.get("authorization") ?? "";
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  if (match === null) {
    return {
      status: 401,
      message: 'Unauthorized: send the server\'s token as "Authorization: Bearer <token>"',
    };
  }
  if (!equalDigests(await sha256(match[1] ?? ""), settings.digest)) {
    return {
      status: 401,
      message: "Unauthorized: the bearer token is not this server's; check LOOM_MCP_TOKEN",
    };
  }
  return undefined;
}

/** The SHA-256 digest of `text`'s UTF-8 bytes. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

function equalDigests(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

/** A fresh token: {@linkcode GENERATED_TOKEN_BYTES} random bytes as base64url. */
export function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(GENERATED_TOKEN_BYTES));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Throws `TypeError` for a token a header cannot carry or that is too short to guess at. */
export function checkToken(token: string): void {
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new TypeError(
      "Cannot use the token: it must be printable ASCII without spaces, as a bearer header carries it",
    );
  }
  if (token.length < MIN_TOKEN_CHARS) {
    throw new RangeError(
      `Cannot use the token: it has ${token.length} characters; give at least ${MIN_TOKEN_CHARS}`,
    );
  }
}

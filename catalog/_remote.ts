// Private to catalog/: entries that name a remote server. A `url` (TOML and
// JSON alike; JSON also says `"type": "http"` or its spellings, as Claude
// Code, Cursor and VS Code write it, or `serverUrl`, as Windsurf does) is a server reached over Streamable
// HTTP, with optional `headers` whose values expand `${VAR}` and
// `${env:VAR}` from the harness's environment (an http or https URL, headers
// HTTP can carry: the spec's rules), and optional sign-in settings
// (`[mcp.<name>.oauth]`, `_oauth.ts`). What still cannot be served is said,
// with the reason: the older HTTP+SSE transport, WebSockets, and entries
// that need a command to make their headers.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { RemoteServerSpec } from "../settings/mod.ts";
import type { Problem } from "./_fields.ts";
import { isTable } from "./_fields.ts";
import { describe, type Syntax } from "./_text.ts";
import { oauthKeyOf, readOAuth } from "./_oauth.ts";

/** The `type` values that name Streamable HTTP. */
const HTTP_TYPES: readonly string[] = [
  "http",
  "streamable-http",
  "streamable_http",
  "streamableHttp",
];
/** The `type` values of remote transports that are not served. */
const OTHER_REMOTE_TYPES: readonly string[] = ["sse", "ws", "websocket"];

/** The keys a remote entry may hold, besides the common ones read by the caller. */
export const REMOTE_KEYS: readonly string[] = ["url", "headers", "type", "oauth", "auth"];

/** Windsurf's name for `url` in its `mcp_config.json`, read in JSON files. */
export const WINDSURF_URL_KEY = "serverUrl";

/** Whether an entry names a remote server (served or not). */
export function isRemoteEntry(entry: Record<string, unknown>): boolean {
  const type = entry["type"];
  return entry["url"] !== undefined || entry[WINDSURF_URL_KEY] !== undefined ||
    (typeof type === "string" && (HTTP_TYPES.includes(type) || OTHER_REMOTE_TYPES.includes(type)));
}

/** The key an entry writes its URL under: `url`, or Windsurf's `serverUrl` when only that is written. */
export function urlKeyOf(entry: Record<string, unknown>): string {
  return entry["url"] === undefined && entry[WINDSURF_URL_KEY] !== undefined
    ? WINDSURF_URL_KEY
    : "url";
}

/** Why a remote entry cannot be served, when it cannot: said before any other check. */
export function unservableRemote(entry: Record<string, unknown>): Problem | undefined {
  const type = entry["type"];
  const written = entry[urlKeyOf(entry)];
  const url = typeof written === "string" ? ` (${quote(written)})` : "";
  if (type === "sse") {
    return {
      kind: "unsupported_entry",
      key: "type",
      what: `a remote server${url} over the older HTTP+SSE transport, which is not supported; ` +
        `if it also serves Streamable HTTP (most do, often at /mcp), write that URL and "type": "http"`,
    };
  }
  if (type === "ws" || type === "websocket") {
    return {
      kind: "unsupported_entry",
      key: "type",
      what: `a remote server${url} over WebSocket, which is not supported; only Streamable HTTP is`,
    };
  }
  if (entry["headersHelper"] !== undefined) {
    return {
      kind: "unsupported_entry",
      key: "headersHelper",
      what: `a remote server${url} whose headers a command makes, which is not supported; ` +
        `give them in "headers", with \${VAR} for secrets`,
    };
  }
  return undefined;
}

/** Reads a remote entry's `url`, `type` and `headers` into a spec named `name`. */
export function readRemote(
  name: string,
  entry: Record<string, unknown>,
  syntax: Syntax,
): Result<RemoteServerSpec, Problem> {
  if (entry["command"] !== undefined || entry["args"] !== undefined) {
    return err({
      kind: "invalid_entry",
      key: entry["command"] !== undefined ? "command" : "args",
      what: `a server is either started from a "command" or reached at a "url", not both`,
    });
  }
  for (const key of ["env", "inherit_env", "cwd", "stderr", "envFile"]) {
    if (entry[key] !== undefined) {
      return err({
        kind: "invalid_entry",
        key,
        what: `a remote server (at a "url") has no process, so "${key}" means nothing for it`,
      });
    }
  }
  const type = entry["type"];
  if (type !== undefined && !(typeof type === "string" && HTTP_TYPES.includes(type))) {
    return err({
      kind: "invalid_entry",
      key: "type",
      what: `expected "http" for a server at a "url", found ${describe(type, syntax)}`,
    });
  }
  if (entry["url"] !== undefined && entry[WINDSURF_URL_KEY] !== undefined) {
    return err({
      kind: "invalid_entry",
      key: WINDSURF_URL_KEY,
      what: `the entry has both "url" and Windsurf's "${WINDSURF_URL_KEY}"; keep one of them`,
    });
  }
  const urlKey = syntax === "json" ? urlKeyOf(entry) : "url";
  const url = entry[urlKey];
  if (typeof url !== "string") {
    return err({
      kind: "invalid_entry",
      key: urlKey,
      what: `expected the server's URL as a string, found ${describe(url, syntax)}`,
    });
  }
  const headers = readHeaders(entry["headers"], syntax);
  if (!headers.ok) return headers;
  const spec: RemoteServerSpec = { name, url };
  if (headers.value !== undefined) spec.headers = headers.value;
  if (syntax === "toml" && entry["auth"] !== undefined) {
    return err({
      kind: "invalid_entry",
      key: "auth",
      what: `sign-in settings are a table of their own, [mcp.${name}.oauth]`,
    });
  }
  const oauthKey = oauthKeyOf(entry, syntax);
  if (oauthKey !== undefined) {
    const oauth = readOAuth(entry[oauthKey], oauthKey, syntax);
    if (!oauth.ok) return oauth;
    spec.oauth = oauth.value;
  }
  return ok(spec);
}

// What makes a header one HTTP can carry is the spec's rule, judged once expanded.
function readHeaders(
  value: unknown,
  syntax: Syntax,
): Result<Record<string, string> | undefined, Problem> {
  if (value === undefined) return ok(undefined);
  const headers: Record<string, string> = Object.create(null);
  if (!isTable(value)) {
    return err({
      kind: "invalid_entry",
      key: "headers",
      what: `expected ${syntax === "toml" ? "a table" : "an object"} of header names and values, ` +
        `found ${describe(value, syntax)}`,
    });
  }
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== "string") {
      return err({
        kind: "invalid_entry",
        key: "headers",
        what: `the value of header ${quote(name)} is ${describe(item, syntax)}, not a string`,
      });
    }
    headers[name] = item;
  }
  return ok(headers);
}

// Private to cli/: signing in to a remote server from the command line.
// `login <server>` runs the server's sign-in (`oauth/`) with a user agent of
// the command line's own: it prints the authorization URL, opens it in the
// browser `$BROWSER` names when one is set, and listens on the loopback
// redirect URI for the request the browser comes back with (the one that
// carries the sign-in's `state`; others are answered and ignored); the tokens go
// to the token store on disk (one file of mode 0600 per issuer and client
// under `$XDG_CONFIG_HOME/loom-mcp/` or `~/.config/loom-mcp/`), where every
// later command finds them. A headless grant (client credentials, a JWT)
// needs no browser. `logout <server>` removes the server's tokens from the
// store. Neither ever prints a token.

import { printableLine, quote } from "../codec/quote.ts";
import { isRemote, type RemoteServerSpec } from "../settings/mod.ts";
import type { OAuthSettings } from "../settings/oauth.ts";
import {
  type AccessToken,
  DEFAULT_REDIRECT_URI,
  FileTokenStore,
  MAX_IGNORED_CALLBACKS,
  OAuthSession,
} from "../oauth/mod.ts";
import { Client } from "../client/client.ts";
import type { CliCommand } from "./_args.ts";
import { type Context, fail, pick, printJson } from "./_commands.ts";
import type { Output } from "./_output.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

type Command<Name extends "login" | "logout"> = Extract<CliCommand, { command: Name }>;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** `login <server>`: signs in and keeps the tokens in the store on disk. */
export async function login(context: Context, command: Command<"login">): Promise<number> {
  const { output } = context;
  const spec = remoteOf(context, command);
  if (typeof spec === "number") return spec;
  const settings: OAuthSettings = spec.oauth ?? {};
  const redirect = new URL(redirectUriOf(settings));
  if (!LOOPBACK.has(redirect.hostname) || redirect.protocol !== "http:") {
    const message = `login listens for the browser on a loopback redirect URI, and ` +
      `${quote(redirect.href)} is not one; set redirect_uri to http://127.0.0.1:<port>/callback`;
    return fail(output, command.json, { kind: "usage", message }, EXIT_USAGE);
  }
  // A server that answers without a sign-in has nothing to log in to: its authorization
  // server, if any, would only be guessed at, and the guess fails in words about registration.
  if (spec.oauth === undefined && await answersUnsigned(spec)) {
    const message = `server ${quote(spec.name)} answered without signing in (it started and ` +
      "listed its tools), so there is nothing to log in to; every command reaches it as it is";
    return fail(output, command.json, { kind: "no_sign_in", message }, EXIT_USAGE);
  }
  const store = new FileTokenStore();
  const listener = new AbortController();
  const session = new OAuthSession(spec.url, {
    ...settings,
    authorize: (url) => authorizeHere(spec.name, String(url), redirect, listener.signal, output),
  }, { store });
  let token;
  try {
    token = await session.accessToken();
  } finally {
    listener.abort();
  }
  if (!token.ok) {
    return fail(
      output,
      command.json,
      { kind: token.error.kind, message: token.error.message },
      EXIT_FAILED,
    );
  }
  const stored = session.status().storeFailure;
  if (stored !== undefined) {
    return fail(output, command.json, { kind: "store_failed", message: stored }, EXIT_FAILED);
  }
  return signedIn(output, spec.name, token.value, store.dir ?? "", command.json);
}

/** `logout <server>`: removes the server's tokens from the store on disk. */
export async function logout(context: Context, command: Command<"logout">): Promise<number> {
  const { output } = context;
  const spec = remoteOf(context, command);
  if (typeof spec === "number") return spec;
  const store = new FileTokenStore();
  const session = new OAuthSession(spec.url, spec.oauth ?? {}, { store });
  const done = await session.signOut();
  const failure = done.ok ? session.status().storeFailure : done.error.message;
  if (failure !== undefined) {
    return fail(output, command.json, { kind: "logout_failed", message: failure }, EXIT_FAILED);
  }
  if (command.json) printJson(output, { ok: true, server: spec.name, store: store.dir ?? "" });
  else output.result(`Signed out of ${spec.name}: its tokens are gone from ${store.dir ?? ""}`);
  return EXIT_OK;
}

function remoteOf(context: Context, command: Command<"login" | "logout">) {
  const [spec] = pick(context, command.server, command.json)?.specs ?? [];
  if (spec === undefined) return EXIT_USAGE;
  if (isRemote(spec)) return spec as RemoteServerSpec;
  const message = `server ${quote(spec.name)} runs here from a command, and signs in to ` +
    `nothing; ${command.command} is for a remote server (one with a "url")`;
  return fail(context.output, command.json, { kind: "usage", message }, EXIT_USAGE);
}

/** How long `login` waits for a server to answer without a sign-in, in milliseconds. */
export const LOGIN_PROBE_TIMEOUT_MS = 10_000;

// Whether the server starts and lists its tools with no sign-in at all (nor a stored token).
async function answersUnsigned(spec: RemoteServerSpec): Promise<boolean> {
  const client = new Client({
    ...spec,
    connectTimeoutMs: Math.min(
      spec.connectTimeoutMs ?? LOGIN_PROBE_TIMEOUT_MS,
      LOGIN_PROBE_TIMEOUT_MS,
    ),
  });
  try {
    return (await client.connect()).ok && (await client.listTools()).ok;
  } finally {
    await client.retire();
  }
}

function redirectUriOf(settings: OAuthSettings): string {
  if (settings.redirectUri !== undefined) return settings.redirectUri;
  return settings.callbackPort === undefined
    ? DEFAULT_REDIRECT_URI
    : `http://127.0.0.1:${settings.callbackPort}/callback`;
}

/**
 * The command line's user agent: prints the URL, opens the browser `$BROWSER`
 * names, and resolves with the query of the request that reaches the
 * redirect URI with the sign-in's own `state`, which it serves on loopback
 * until `signal` aborts. Any local process, or a web page's `<img>`, can
 * reach that port: a request with no `state` or another one is answered,
 * ignored and counted, and past {@linkcode MAX_IGNORED_CALLBACKS} of them the
 * sign-in fails rather than wait out its deadline.
 */
function authorizeHere(
  server: string,
  url: string,
  redirect: URL,
  signal: AbortSignal,
  output: Output,
): Promise<URLSearchParams> {
  const state = new URL(url).searchParams.get("state");
  return new Promise((resolve, reject) => {
    const hostname = redirect.hostname === "[::1]" ? "::1" : redirect.hostname;
    const port = Number(redirect.port || 80);
    let answered = false;
    let ignored = 0;
    try {
      Deno.serve({ hostname, port, signal, onListen() {} }, (request) => {
        const reached = new URL(request.url);
        if (reached.pathname !== redirect.pathname) {
          return new Response("not here", { status: 404 });
        }
        if (answered || reached.searchParams.get("state") !== state) {
          if (!answered && ++ignored > MAX_IGNORED_CALLBACKS) {
            answered = true;
            reject(
              new Error(
                `${ignored} requests reached ${redirect.host}${redirect.pathname} that were not ` +
                  `the answer to this sign-in (no state, or another one); something on this ` +
                  `machine keeps sending them: find it, or set another redirect_uri port, and ` +
                  `sign in again`,
              ),
            );
          }
          return page(
            400,
            "Ignored",
            "This request was ignored: it is not the answer to the " +
              "sign-in loom-mcp is waiting for.",
          );
        }
        answered = true;
        resolve(reached.searchParams);
        return page(200, "Signed in", "Back to the terminal: you can close this tab.");
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      reject(new Error(`Cannot listen on ${redirect.host} for the browser: ${reason}`));
      return;
    }
    output.detail(`To sign in to ${server}, open this URL in a browser:\n  ${url}`);
    openBrowser(url, output);
  });
}

function page(status: number, title: string, text: string): Response {
  return new Response(`<!doctype html><title>${title}</title><p>${text}`, {
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}

/** Opens `url` in the browser `$BROWSER` names, if any; says so when it cannot. */
function openBrowser(url: string, output: Output): void {
  let browser: string | undefined;
  try {
    browser = Deno.env.get("BROWSER");
  } catch {
    return;
  }
  if (browser === undefined || browser === "") return;
  try {
    new Deno.Command(browser, { args: [url], stdin: "null", stdout: "null", stderr: "null" })
      .spawn().status.catch(() => {});
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    output.warn(`cannot open the browser ${quote(browser)} ($BROWSER): ${reason}`, "note");
  }
}

function signedIn(
  output: Output,
  server: string,
  token: AccessToken,
  dir: string,
  json: boolean,
): number {
  const expires = isoDate(token.expiresAt);
  if (json) {
    printJson(output, {
      ok: true,
      server,
      issuer: token.issuer,
      scopes: token.scopes,
      ...(expires === undefined ? {} : { expiresAt: expires }),
      store: dir,
    });
    return EXIT_OK;
  }
  const scopes = token.scopes.length === 0
    ? "no scope named"
    : `scopes ${printableLine(token.scopes.join(" "))}`;
  const until = expires === undefined ? "" : `, until ${expires}`;
  const issuer = printableLine(token.issuer);
  output.result(`Signed in to ${server} at ${issuer} (${scopes}${until}); tokens kept in ${dir}`);
  return EXIT_OK;
}

/**
 * `ms` as an ISO 8601 date, or undefined when it is none a `Date` can hold
 * (the session bounds a token's lifetime, but the command line never crashes
 * on a date).
 */
function isoDate(ms: number | undefined): string | undefined {
  if (ms === undefined) return undefined;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

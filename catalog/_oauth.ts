// Private to catalog/: a remote entry's sign-in settings, `[mcp.<name>.oauth]`
// in TOML (the `OAuthSettings` of a ServerSpec in snake_case, field for
// field), and in the JSON files of other tools the shapes they write: Claude
// Code's `"oauth": { "clientId", "callbackPort" }` (camelCase, the spec's own
// names), and Cursor's `"auth": { "CLIENT_ID", "CLIENT_SECRET", "scopes" }`.
// Values are read as written: `${VAR}` in a secret expands from the
// harness's environment as in headers (`_expand.ts`), and whether the
// settings are usable is the spec's own check, once expanded.

import { err, ok, type Result } from "../codec/result.ts";
import type { OAuthSettings } from "../settings/oauth.ts";
import { isTable, type Problem } from "./_fields.ts";
import { describe, type Syntax } from "./_text.ts";

/** Each setting's catalog key (snake_case), by its name in `OAuthSettings`. */
const SNAKE: Readonly<Record<string, string>> = {
  grant: "grant",
  clientId: "client_id",
  clientSecret: "client_secret",
  clientMetadataUrl: "client_metadata_url",
  clientName: "client_name",
  redirectUri: "redirect_uri",
  callbackPort: "callback_port",
  scopes: "scopes",
  tokenEndpointAuthMethod: "token_endpoint_auth_method",
  privateKeyPem: "private_key_pem",
  signingAlgorithm: "signing_algorithm",
  refreshToken: "refresh_token",
  assertion: "assertion",
  idToken: "id_token",
  idpIssuer: "idp_issuer",
  idpTokenEndpoint: "idp_token_endpoint",
  idpClientId: "idp_client_id",
  idpClientSecret: "idp_client_secret",
  dpop: "dpop",
};

/** Cursor's names, in its `auth` object. */
const CURSOR: Readonly<Record<string, string>> = {
  CLIENT_ID: "clientId",
  CLIENT_SECRET: "clientSecret",
  scopes: "scopes",
};

/** The keys a remote entry's sign-in may be under: `oauth`, and `auth` (Cursor's) in JSON. */
export function oauthKeyOf(entry: Record<string, unknown>, syntax: Syntax): string | undefined {
  if (entry["oauth"] !== undefined) return "oauth";
  return syntax === "json" && entry["auth"] !== undefined ? "auth" : undefined;
}

/** Reads the sign-in settings under `key` of a remote entry, as written. */
export function readOAuth(
  value: unknown,
  key: string,
  syntax: Syntax,
): Result<OAuthSettings, Problem> {
  if (!isTable(value)) {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected ${syntax === "toml" ? "a table" : "an object"} of sign-in settings, ` +
        `found ${describe(value, syntax)}`,
    });
  }
  const names = new Map<string, string>();
  for (const [name, snake] of Object.entries(SNAKE)) {
    names.set(snake, name);
    if (syntax === "json") names.set(name, name);
  }
  if (syntax === "json" && key === "auth") {
    for (const [cursor, name] of Object.entries(CURSOR)) names.set(cursor, name);
  }
  const settings: Record<string, unknown> = {};
  for (const [written, item] of Object.entries(value)) {
    const name = names.get(written);
    if (name === undefined) {
      return err({
        kind: "invalid_entry",
        key: `${key}.${written}`,
        what: `unknown sign-in setting; the known ones are ${Object.values(SNAKE).join(", ")}`,
      });
    }
    // A space-separated string of scopes is a list, as OAuth writes it.
    settings[name] = name === "scopes" && typeof item === "string"
      ? item.split(" ").filter((scope) => scope !== "")
      : item;
  }
  return ok(settings as OAuthSettings);
}

/** The catalog key of a setting of `OAuthSettings`, for a problem the spec's check found. */
export function catalogOAuthKey(setting: string): string {
  return SNAKE[setting] ?? setting;
}

/**
 * Reads a `WWW-Authenticate` header (RFC 9110 §11.6.1): one or more
 * challenges, each a scheme and either a token68 or a list of parameters
 * whose values are tokens or quoted strings. Total: what cannot be read ends
 * the reading, and what was read before stays.
 *
 * @module
 */

/** One challenge: its scheme in lower case, its parameters by lower-case name. */
export type Challenge = { scheme: string; params: Record<string, string> };

/** What an MCP client needs from a refusal's challenges. */
export type ChallengeParams = {
  /** The schemes offered, in lower case (`bearer`, `dpop`). */
  schemes: string[];
  /** RFC 9728's `resource_metadata`: where the protected resource metadata is. */
  resourceMetadata?: string;
  /** The scopes the server asks for, as it wrote them. */
  scope?: string;
  /** RFC 6750's `error` (`invalid_token`, `insufficient_scope`) or RFC 9449's `use_dpop_nonce`. */
  error?: string;
  /** The scheme whose challenge carried `error`. */
  errorScheme?: string;
};

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;

/** Parses a `WWW-Authenticate` value into its challenges. */
export function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  let rest = header;
  let current: Challenge | undefined;
  while (true) {
    rest = rest.replace(/^[\s,]+/, "");
    if (rest === "") break;
    const param = readParam(rest);
    if (param !== undefined && current !== undefined) {
      current.params[param.name] = param.value;
      rest = param.rest;
      continue;
    }
    const scheme = TOKEN.exec(rest)?.[0];
    // No scheme, or a parameter that cannot be read (an unterminated quote): the end.
    if (scheme === undefined || /^\s*=/.test(rest.slice(scheme.length))) break;
    current = { scheme: scheme.toLowerCase(), params: {} };
    challenges.push(current);
    rest = rest.slice(scheme.length);
    if (!/^\s/.test(rest)) continue;
    rest = rest.trimStart();
    // A token68 (`Basic dXNlcg==`) is the whole of its challenge's data.
    if (readParam(rest) === undefined) {
      const token68 = TOKEN68.exec(rest)?.[0];
      if (token68 !== undefined && /^\s*(,|$)/.test(rest.slice(token68.length))) {
        rest = rest.slice(token68.length);
      }
    }
  }
  return challenges;
}

function readParam(text: string): { name: string; value: string; rest: string } | undefined {
  const name = TOKEN.exec(text)?.[0];
  if (name === undefined) return undefined;
  let rest = text.slice(name.length).trimStart();
  if (!rest.startsWith("=")) return undefined;
  rest = rest.slice(1).trimStart();
  if (rest.startsWith('"')) {
    let value = "";
    let i = 1;
    for (; i < rest.length; i++) {
      const char = rest[i]!;
      if (char === "\\" && i + 1 < rest.length) {
        value += rest[++i];
      } else if (char === '"') {
        break;
      } else {
        value += char;
      }
    }
    if (i >= rest.length) return undefined;
    return { name: name.toLowerCase(), value, rest: rest.slice(i + 1) };
  }
  const value = TOKEN.exec(rest)?.[0];
  if (value === undefined) return undefined;
  return { name: name.toLowerCase(), value, rest: rest.slice(value.length) };
}

/**
 * The parameters an MCP client acts on, from the `Bearer` and `DPoP`
 * challenges of a refusal (other schemes are not about OAuth): the first
 * challenge that names each one wins.
 */
export function challengeParams(header: string | null | undefined): ChallengeParams {
  const out: ChallengeParams = { schemes: [] };
  if (header === null || header === undefined) return out;
  for (const challenge of parseChallenges(header)) {
    if (challenge.scheme !== "bearer" && challenge.scheme !== "dpop") continue;
    out.schemes.push(challenge.scheme);
    const { params } = challenge;
    if (out.resourceMetadata === undefined && params.resource_metadata) {
      out.resourceMetadata = params.resource_metadata;
    }
    if (out.scope === undefined && params.scope !== undefined) out.scope = params.scope;
    if (out.error === undefined && params.error !== undefined) {
      out.error = params.error;
      out.errorScheme = challenge.scheme;
    }
  }
  return out;
}

/** The scopes of a space-separated list, without repeats or empty entries. */
export function scopeList(text: string | undefined): string[] {
  if (text === undefined) return [];
  return [...new Set(text.split(/\s+/).filter((scope) => scope !== ""))];
}

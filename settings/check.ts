/**
 * The checks of a server spec, each rule stated once: a name that is a
 * module segment, the command, args, env, inheritEnv, cwd and stderr of a
 * stdio server, the url, headers and sign-in settings of a remote one, the
 * era and the versions offered, deadlines that a timer can keep, the lists of
 * tools enabled and disabled, what a result that breaks its schema becomes,
 * and a restart policy. A check returns the
 * problem, naming the spec's key; the census turns it into the `TypeError`
 * or `RangeError` it throws, the catalog into a `CatalogError` naming its
 * file, table and key.
 *
 * @module
 */

import { describeValue, quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import {
  isSupportedVersion,
  SUPPORTED_VERSIONS,
  type SupportedVersion,
} from "../codec/protocol.ts";
import { moduleSegment } from "../codegen/names.ts";
import { ERA_MODES, type EraMode, isEraMode, offerProblem } from "./era.ts";
import { OAUTH_GRANTS, TOKEN_ENDPOINT_AUTH_METHODS } from "./oauth.ts";
import {
  isStderrMode,
  type ResolvedServerSpec,
  type ServerSpec,
  STDERR_MODES,
  withDefaults,
} from "./server_spec.ts";
import {
  type Describe,
  isRecord,
  isTimeoutMs,
  oneOf,
  outOfRange,
  type SpecKey,
  type SpecProblem,
  TIMEOUT_RULE,
  wrongType,
} from "./problem.ts";
import { restartProblem, toolsProblem } from "./_policy_checks.ts";
import { MAX_ROOTS } from "./limits.ts";

export { isTimeoutMs, type SpecKey, type SpecProblem, TIMEOUT_RULE } from "./problem.ts";

/** Options of {@linkcode checkSpec}. */
export type CheckSpecOptions = {
  /**
   * How a message says what was found (the catalog says it in the words of
   * its file's syntax); `describeValue` of the codec by default.
   */
  describe?: (value: unknown) => string;
};

/**
 * Checks a spec as given by a caller (anything at all), and writes out its
 * defaults ({@linkcode withDefaults}); the first problem found otherwise.
 *
 * @example A minimal spec, and a broken one
 * ```ts
 * import { checkSpec } from "@loom/mcp";
 * const good = checkSpec({ name: "memory", command: "deno", args: ["run", "server.ts"] });
 * if (good.ok) console.log(good.value); // { ..., env: {}, inheritEnv: [], stderr: "tail" }
 * const bad = checkSpec({ name: "memory", command: "deno", callTimeoutMs: 0 });
 * console.log(!bad.ok && bad.error.key); // "callTimeoutMs"
 * ```
 */
export function checkSpec(
  value: unknown,
  options: CheckSpecOptions = {},
): Result<ResolvedServerSpec, SpecProblem> {
  const describe = options.describe ?? describeValue;
  if (!isRecord(value)) {
    return err(wrongType(undefined, `expected a server spec object, found ${describe(value)}`));
  }
  const problem = nameProblem(value["name"], describe) ??
    (value["url"] !== undefined ? remoteProblem(value, describe) : stdioProblem(value, describe)) ??
    eraProblem(value, describe) ??
    timeoutProblem(value, describe) ??
    toolsProblem(value, describe) ??
    restartProblem(value["restart"], describe) ??
    rootsProblem(value["roots"], describe);
  return problem === undefined ? ok(withDefaults(value as unknown as ServerSpec)) : err(problem);
}

function nameProblem(name: unknown, describe: Describe): SpecProblem | undefined {
  if (typeof name !== "string" || name === "") {
    return wrongType("name", `expected a non-empty string, found ${describe(name)}`);
  }
  // The name is the generated module's segment: refused before anything spawns.
  const segment = moduleSegment(name);
  if (!segment.ok) {
    return wrongType("name", `${quote(name)} cannot be a server name: ${segment.error.reason}`);
  }
  return undefined;
}

// A key with "=" would be split by the child ("A=B" becomes "A" holding "B=..."),
// and one with NUL cut short: neither names the variable the caller meant.
function isEnvName(name: string): boolean {
  return name !== "" && !name.includes("=") && !name.includes("\0") && name.isWellFormed();
}

function envNameProblem(key: SpecKey, name: string): SpecProblem {
  return wrongType(
    key,
    `the variable name ${
      quote(name)
    } is empty or holds "=", NUL or a lone surrogate, which no environment variable name can`,
  );
}

// What reaches a process (its command, an argument, a variable, a path) cannot
// hold NUL, and a lone surrogate (JSON's "\ud800") would reach it as U+FFFD,
// not as written.
function nulProblem(key: SpecKey, text: string): SpecProblem | undefined {
  if (!text.includes("\0") && text.isWellFormed()) return undefined;
  return wrongType(
    key,
    text.includes("\0")
      ? `found a NUL character in ${quote(text)}, which no process argument or variable can hold`
      : `found a lone surrogate in ${
        quote(text)
      }, which is no Unicode character: a process would receive U+FFFD instead; write the character whole`,
  );
}

function namesProblem(
  key: SpecKey,
  value: unknown,
  describe: Describe,
): SpecProblem | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    return wrongType(key, `expected an array of variable names, found ${describe(value)}`);
  }
  for (const [index, name] of value.entries()) {
    if (typeof name !== "string") {
      return wrongType(
        key,
        `expected an array of variable names, found ${describe(name)} at index ${index}`,
      );
    }
    if (!isEnvName(name)) return envNameProblem(key, name);
  }
  return undefined;
}

function stdioProblem(spec: Record<string, unknown>, describe: Describe): SpecProblem | undefined {
  const { command, args, env, cwd, stderr } = spec;
  if (typeof command !== "string" || command === "") {
    return wrongType(
      "command",
      `expected a non-empty string naming the executable, found ${describe(command)}`,
    );
  }
  const problem = nulProblem("command", command);
  if (problem !== undefined) return problem;
  if (args !== undefined) {
    if (!Array.isArray(args)) {
      return wrongType("args", `expected an array of strings, found ${describe(args)}`);
    }
    for (const [index, arg] of args.entries()) {
      if (typeof arg !== "string") {
        return wrongType(
          "args",
          `expected an array of strings, found ${describe(arg)} at index ${index}`,
        );
      }
      const nul = nulProblem("args", arg);
      if (nul !== undefined) return nul;
    }
  }
  if (env !== undefined) {
    if (!isRecord(env)) {
      return wrongType(
        "env",
        `expected a record of strings by variable name, found ${describe(env)}`,
      );
    }
    for (const [name, value] of Object.entries(env)) {
      if (!isEnvName(name)) return envNameProblem("env", name);
      if (typeof value !== "string") {
        return wrongType("env", `expected a string for ${quote(name)}, found ${describe(value)}`);
      }
      const nul = nulProblem("env", value);
      if (nul !== undefined) return nul;
    }
  }
  const inherited = namesProblem("inheritEnv", spec["inheritEnv"], describe);
  if (inherited !== undefined) return inherited;
  if (cwd !== undefined) {
    if (typeof cwd !== "string" || cwd === "") {
      return wrongType("cwd", `expected a directory path, found ${describe(cwd)}`);
    }
    const nul = nulProblem("cwd", cwd);
    if (nul !== undefined) return nul;
  }
  if (stderr !== undefined && !isStderrMode(stderr)) {
    return wrongType("stderr", `expected ${oneOf(STDERR_MODES)}, found ${describe(stderr)}`);
  }
  return undefined;
}

function remoteProblem(spec: Record<string, unknown>, describe: Describe): SpecProblem | undefined {
  const { url, headers } = spec;
  if (typeof url !== "string") {
    return wrongType("url", `expected the server's URL as a string, found ${describe(url)}`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return wrongType("url", `${quote(url)} is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return wrongType("url", `${quote(url)} is not an http or https URL`);
  }
  const oauth = oauthProblem(spec["oauth"], describe);
  if (oauth !== undefined) return oauth;
  if (headers === undefined) return undefined;
  if (!isRecord(headers)) {
    return wrongType(
      "headers",
      `expected a record of header names and values, found ${describe(headers)}`,
    );
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") {
      return wrongType(
        "headers",
        `the value of header ${quote(name)} is ${describe(value)}, not a string`,
      );
    }
    try {
      new Headers([[name, value]]);
    } catch {
      return wrongType(
        "headers",
        `the header ${quote(name)} is not one HTTP can carry (a name of letters, digits ` +
          `and -, a value on one line)`,
      );
    }
  }
  return undefined;
}

/** The string settings of a sign-in, and which of them must be URLs. */
const OAUTH_STRINGS = [
  "clientId",
  "clientSecret",
  "clientName",
  "privateKeyPem",
  "signingAlgorithm",
  "refreshToken",
  "idpClientId",
  "idpClientSecret",
] as const;
const OAUTH_URLS = ["clientMetadataUrl", "redirectUri", "idpIssuer", "idpTokenEndpoint"] as const;
/** Settings given as a string or a function that fetches one. */
const OAUTH_SUPPLIED = ["assertion", "idToken"] as const;
const OAUTH_KEYS: readonly string[] = [
  "grant",
  ...OAUTH_STRINGS,
  ...OAUTH_URLS,
  ...OAUTH_SUPPLIED,
  "callbackPort",
  "scopes",
  "tokenEndpointAuthMethod",
  "dpop",
  "authorize",
];

/**
 * What is wrong with a remote server's sign-in settings (`OAuthSettings`),
 * if anything, said of the spec's key `oauth`: an object of known keys, each
 * of its type; for `boot`'s and the census's `oauth` as for a spec's.
 */
export function oauthProblem(
  value: unknown,
  describe: Describe = describeValue,
): SpecProblem | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    return wrongType("oauth", `expected an object of sign-in settings, found ${describe(value)}`);
  }
  const at = (key: string, message: string) => wrongType("oauth", `${key}: ${message}`);
  for (const key of Object.keys(value)) {
    if (!OAUTH_KEYS.includes(key)) {
      return at(key, `unknown setting; the known ones are ${OAUTH_KEYS.join(", ")}`);
    }
  }
  const { grant, callbackPort, scopes, tokenEndpointAuthMethod, dpop, authorize } = value;
  if (grant !== undefined && !(OAUTH_GRANTS as readonly unknown[]).includes(grant)) {
    return at("grant", `expected ${oneOf(OAUTH_GRANTS)}, found ${describe(grant)}`);
  }
  for (const key of OAUTH_STRINGS) {
    const field = value[key];
    if (field !== undefined && (typeof field !== "string" || field === "")) {
      return at(key, `expected a non-empty string, found ${describe(field)}`);
    }
  }
  for (const key of OAUTH_URLS) {
    const field = value[key];
    if (field === undefined) continue;
    if (typeof field !== "string" || !URL.canParse(field)) {
      return at(key, `expected a URL, found ${describe(field)}`);
    }
  }
  for (const key of OAUTH_SUPPLIED) {
    const field = value[key];
    if (field !== undefined && typeof field !== "string" && typeof field !== "function") {
      return at(
        key,
        `expected a string or a function that resolves to one, found ${describe(field)}`,
      );
    }
  }
  if (
    callbackPort !== undefined &&
    !(Number.isSafeInteger(callbackPort) && (callbackPort as number) > 0 &&
      (callbackPort as number) < 65536)
  ) {
    return {
      kind: "out_of_range",
      key: "oauth",
      message: `callbackPort: expected a port from 1 to 65535, found ${describe(callbackPort)}`,
    };
  }
  if (
    scopes !== undefined &&
    !(Array.isArray(scopes) &&
      scopes.every((scope) =>
        typeof scope === "string" && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)
      ))
  ) {
    return at(
      "scopes",
      `expected a list of scope names (no spaces or quotes), found ${describe(scopes)}`,
    );
  }
  if (
    tokenEndpointAuthMethod !== undefined &&
    !(TOKEN_ENDPOINT_AUTH_METHODS as readonly unknown[]).includes(tokenEndpointAuthMethod)
  ) {
    return at(
      "tokenEndpointAuthMethod",
      `expected ${oneOf(TOKEN_ENDPOINT_AUTH_METHODS)}, found ${describe(tokenEndpointAuthMethod)}`,
    );
  }
  if (dpop !== undefined && typeof dpop !== "boolean") {
    return at("dpop", `expected true or false, found ${describe(dpop)}`);
  }
  if (authorize !== undefined && typeof authorize !== "function") {
    return at("authorize", `expected a function (the user agent), found ${describe(authorize)}`);
  }
  return undefined;
}

function eraProblem(spec: Record<string, unknown>, describe: Describe): SpecProblem | undefined {
  const { era, versions } = spec;
  if (era !== undefined && !isEraMode(era)) {
    return wrongType("era", `expected ${oneOf(ERA_MODES)}, found ${describe(era)}`);
  }
  if (versions === undefined) return undefined;
  const bad = Array.isArray(versions)
    ? versions.findIndex((v) => typeof v !== "string" || !isSupportedVersion(v))
    : -1;
  if (!Array.isArray(versions) || bad !== -1 || versions.length === 0) {
    const found = Array.isArray(versions) && bad !== -1 ? versions[bad] : versions;
    return outOfRange(
      "versions",
      `expected a non-empty list of protocol versions among ${SUPPORTED_VERSIONS.join(", ")}, ` +
        `found ${describe(found)}`,
    );
  }
  const left = offerProblem(era as EraMode | undefined, versions as SupportedVersion[]);
  return left === undefined ? undefined : outOfRange("versions", left);
}

function timeoutProblem(
  spec: Record<string, unknown>,
  describe: Describe,
): SpecProblem | undefined {
  for (const key of ["connectTimeoutMs", "callTimeoutMs"] as const) {
    const value = spec[key];
    if (value !== undefined && !isTimeoutMs(value)) {
      return outOfRange(key, `expected ${TIMEOUT_RULE}, found ${describe(value)}`);
    }
  }
  return undefined;
}

/**
 * The problem of a spec's roots, if any: at most `MAX_ROOTS`, each a
 * `file:` URI with an optional name, as the specification requires of a
 * root. The census's own `roots` option is checked by this too.
 */
export function rootsProblem(value: unknown, describe: Describe): SpecProblem | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    return wrongType("roots", `expected an array of { uri, name? }, found ${describe(value)}`);
  }
  if (value.length > MAX_ROOTS) {
    return outOfRange("roots", `found ${value.length} roots, more than ${MAX_ROOTS}`);
  }
  for (const [index, root] of value.entries()) {
    if (!isRecord(root)) {
      return wrongType(
        "roots",
        `expected { uri, name? } at index ${index}, found ${describe(root)}`,
      );
    }
    const { uri, name } = root;
    if (typeof uri !== "string" || !URL.canParse(uri) || new URL(uri).protocol !== "file:") {
      return wrongType(
        "roots",
        `expected a file: URI as "uri" at index ${index}, found ${describe(uri)}; ` +
          `write a path as file:///path`,
      );
    }
    if (name !== undefined && typeof name !== "string") {
      return wrongType(
        "roots",
        `expected a string as "name" at index ${index}, found ${describe(name)}`,
      );
    }
    for (const key of Object.keys(root)) {
      if (key !== "uri" && key !== "name") {
        return wrongType(
          "roots",
          `unknown field ${quote(key)} at index ${index}; expected uri and name`,
        );
      }
    }
  }
  return undefined;
}

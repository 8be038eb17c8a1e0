/**
 * What a harness says about the MCP servers it wants run: the
 * {@linkcode ServerSpec} vocabulary, its defaults and limits, and the protocol
 * eras. The catalog produces specs, the census consumes them.
 *
 * A spec is checked in one place ({@linkcode checkSpec}): the census throws
 * its problem, the catalog says it with the file, the table and the key. Its
 * defaults are written out in one place ({@linkcode withDefaults}).
 *
 * @example A minimal stdio spec
 * ```ts
 * import { checkSpec, type ServerSpec } from "@loom/mcp";
 * const spec: ServerSpec = { name: "memory", command: "deno", args: ["run", "server.ts"] };
 * const checked = checkSpec(spec);
 * if (checked.ok) console.log(checked.value); // { ..., env: {}, inheritEnv: [], stderr: "tail" }
 * ```
 *
 * @module
 */

// STDERR_MODES and isStderrMode stay inside the library: the rule they state is checkSpec's.
export {
  CHILD_ENV_DEFAULTS,
  ENV_ALLOWLIST,
  isRemote,
  isResultCheck,
  MAX_TOOL_PAGES,
  type RemoteServerSpec,
  type ResolvedRemoteSpec,
  type ResolvedServerSpec,
  type ResolvedStdioSpec,
  RESULT_CHECKS,
  type ResultCheck,
  type Root,
  type ServerSpec,
  type SpecCommon,
  type StderrMode,
  type StdioServerSpec,
  withDefaults,
} from "./server_spec.ts";
export * from "./limits.ts";
// The levels a spec's `logLevel` names: the codec's, the one list of them.
export { isLogLevel, LOG_LEVELS, type LogLevel } from "../codec/server_requests.ts";
export * from "./restart.ts";
export { ERA_MODES, type EraMode, isEraMode, PROBE_TIMEOUT_MS } from "./era.ts";
export { checkSpec, type CheckSpecOptions, type SpecKey, type SpecProblem } from "./check.ts";
export {
  type Authorize,
  isOAuthGrant,
  OAUTH_GRANTS,
  type OAuthGrant,
  type OAuthSettings,
  type Supplied,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type TokenEndpointAuthMethod,
} from "./oauth.ts";

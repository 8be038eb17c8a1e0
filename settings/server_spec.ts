/**
 * What a harness says about one MCP server it wants run: the catalog produces
 * these, the census consumes them.
 *
 * @module
 */

import type { SupportedVersion } from "../codec/protocol.ts";
import type { LogLevel } from "../codec/server_requests.ts";
import type { EraMode } from "./era.ts";
import type { OAuthSettings } from "./oauth.ts";
import type { RestartPolicy } from "./restart.ts";

/** Where a server's stderr goes besides its bounded tail. */
export type StderrMode =
  /** Kept only in the bounded tail (the default). */
  | "tail"
  /** Also forwarded to the harness's stderr, each line prefixed with `[name] `. */
  | "forward";

/** Every {@linkcode StderrMode}, the default first. */
export const STDERR_MODES: readonly StderrMode[] = ["tail", "forward"];

/** Whether a value is a {@linkcode StderrMode}. */
export function isStderrMode(value: unknown): value is StderrMode {
  return (STDERR_MODES as readonly unknown[]).includes(value);
}

/**
 * What a harness does with a result whose `structuredContent` breaks the
 * tool's output schema.
 */
export type ResultCheck =
  /** The call fails as `result_malformed`, naming the path (the default). */
  | "refuse"
  /** The result still arrives, with the mismatch recorded beside it as a warning. */
  | "warn";

/** Every {@linkcode ResultCheck}, the default first. */
export const RESULT_CHECKS: readonly ResultCheck[] = ["refuse", "warn"];

/** Whether a value is a {@linkcode ResultCheck}. */
export function isResultCheck(value: unknown): value is ResultCheck {
  return (RESULT_CHECKS as readonly unknown[]).includes(value);
}

/** What every server spec says, whether the server runs here or is remote. */
export type SpecCommon = {
  /** The server's name: the census key and the generated module's segment. */
  name: string;
  /** Deadline for start (spawn or first request, and the handshake), in milliseconds. */
  connectTimeoutMs?: number;
  /** Default deadline of each call, in milliseconds. */
  callTimeoutMs?: number;
  /**
   * How the protocol era is chosen: `auto` (the default) probes with
   * `server/discover` and falls back to the `initialize` handshake on the
   * same process (or endpoint); `modern` is the modern era with no
   * fallback; `legacy` is the handshake with no probe.
   */
  era?: EraMode;
  /**
   * The protocol versions offered, newest first or not (each era offers its
   * own, newest first); every version in `SUPPORTED_VERSIONS` by default.
   */
  versions?: readonly SupportedVersion[];
  /**
   * The only tools of the server a harness exposes, each by its wire name (or
   * its function's name in the generated module); every listed tool when
   * absent. A tool left out is absent from the module and the surface, and a
   * call to it is refused as `tool_disabled`.
   */
  enabledTools?: readonly string[];
  /**
   * Tools of the server a harness never exposes, named as in
   * `enabledTools`; applied after it (a tool in both is disabled).
   */
  disabledTools?: readonly string[];
  /**
   * What a result whose `structuredContent` breaks the tool's output schema
   * becomes; `"refuse"` (`result_malformed`) when absent.
   */
  resultCheck?: ResultCheck;
  /**
   * Start the server again when it dies after it was ready, only once its
   * exit was witnessed and its process group drained; none when absent.
   */
  restart?: RestartPolicy;
  /**
   * The least level of log messages asked of the server (`logging/setLevel`,
   * or the level in a 2026-07-28 request's `_meta`); the harness's
   * `logLevel` when absent, and none asked when neither says.
   */
  logLevel?: LogLevel;
  /**
   * The roots the client lists when the server asks (`roots/list`), each a
   * `file:` URI; the client declares the `roots` capability only when given
   * (here, or by `boot` and `Census.prepare` for every server with none).
   */
  roots?: readonly { uri: string; name?: string }[];
};

/** One root a client tells a server of: a `file:` URI, and what a person calls it. */
export type Root = {
  /** A `file:` URI. */
  uri: string;
  /** What a person calls it. */
  name?: string;
};

/**
 * One MCP server to run over stdio. Only `name` and `command` are required:
 * `{ name, command, args }` runs with no extra variables, none inherited
 * beyond the allowlist, and stderr kept in the tail
 * ({@linkcode withDefaults} says what each absent field means).
 */
export type StdioServerSpec = SpecCommon & {
  /** The executable, never a shell string. */
  command: string;
  /** Its arguments, one element each; none when absent. */
  args?: readonly string[];
  /** Explicit environment pairs, added on top of the allowlist; none when absent. */
  env?: Readonly<Record<string, string>>;
  /**
   * Names of further variables to copy from the harness's environment when
   * set (proxy variables, for example; they may carry credentials, so they are
   * passed only when asked for); none when absent.
   */
  inheritEnv?: readonly string[];
  /** The child's working directory; the harness's when absent. */
  cwd?: string;
  /** Where stderr goes besides the tail; `"tail"` (the tail only) when absent. */
  stderr?: StderrMode;
  url?: never;
};

/**
 * One remote MCP server, reached over Streamable HTTP: its client's worker
 * owns the HTTP session instead of a child process.
 */
export type RemoteServerSpec = SpecCommon & {
  /** The MCP endpoint, `http:` or `https:`. */
  url: string;
  /**
   * Headers every request carries, an `Authorization` for example (a
   * bearer token); none when absent.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * How the client signs in to a server that needs OAuth; the `oauth` given
   * to `boot` or `Census.prepare` when absent, and no sign-in when neither
   * is (a refusal then fails the start). The sign-in runs on the main
   * thread; the worker sends only the headers it is given.
   */
  oauth?: OAuthSettings;
  command?: never;
};

/** One MCP server: run here over stdio, or remote over Streamable HTTP. */
export type ServerSpec = StdioServerSpec | RemoteServerSpec;

/** A {@linkcode StdioServerSpec} with every default written out. */
export type ResolvedStdioSpec = StdioServerSpec & {
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  inheritEnv: readonly string[];
  stderr: StderrMode;
};

/** A {@linkcode RemoteServerSpec} with every default written out. */
export type ResolvedRemoteSpec = RemoteServerSpec & { headers: Readonly<Record<string, string>> };

/**
 * A {@linkcode ServerSpec} with every default written out: what the catalog
 * yields, and what a client starts from.
 */
export type ResolvedServerSpec = ResolvedStdioSpec | ResolvedRemoteSpec;

/**
 * Writes out the defaults of a spec's absent fields, the one place they are
 * stated: `args` and `inheritEnv` empty, `env` and `headers` empty records
 * (without a prototype, so that a variable may be called `__proto__`), and
 * `stderr` `"tail"`. Checks nothing: {@linkcode checkSpec} does, and then
 * calls this.
 *
 * @example A minimal spec, resolved
 * ```ts
 * import { withDefaults } from "@loom/mcp";
 * const spec = withDefaults({ name: "memory", command: "deno", args: ["run", "server.ts"] });
 * console.log(spec); // { name: "memory", command: "deno", args: [...], env: {}, inheritEnv: [], stderr: "tail" }
 * ```
 */
export function withDefaults(spec: ServerSpec): ResolvedServerSpec {
  if (isRemote(spec)) return { ...spec, headers: spec.headers ?? Object.create(null) };
  return {
    ...spec,
    args: spec.args ?? [],
    env: spec.env ?? Object.create(null),
    inheritEnv: spec.inheritEnv ?? [],
    stderr: spec.stderr ?? "tail",
  };
}

/** Whether a spec names a remote server (a resolved spec stays resolved). */
export function isRemote<T extends ServerSpec>(spec: T): spec is Extract<T, RemoteServerSpec> {
  return typeof spec.url === "string";
}

/**
 * The most `tools/list` pages a client follows before `too_many_pages`: 64.
 * The main thread follows the pages, so this limit lives on its side.
 */
export const MAX_TOOL_PAGES = 64;

/**
 * Variables every child gets unless its spec sets them: `NO_COLOR=1`, so
 * that a server's stderr (and the tail a person reads) holds no colour codes.
 */
export const CHILD_ENV_DEFAULTS: Readonly<Record<string, string>> = { NO_COLOR: "1" };

/** Variables a child inherits from the harness without being asked. */
export const ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "TMPDIR",
  "DENO_DIR",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "DENO_CERT",
];

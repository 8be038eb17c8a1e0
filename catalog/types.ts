/**
 * What a catalog is refused with, and the limits every front end applies.
 *
 * @module
 */

import type { Result } from "../codec/result.ts";
import type { ResolvedServerSpec, ServerSpec } from "../settings/mod.ts";

/** The largest `connect_timeout_ms` or `call_timeout_ms` a catalog may set: one hour. */
export const MAX_CATALOG_TIMEOUT_MS = 3_600_000;

/** The most servers one catalog may list (each runs in its own worker and process). */
export const MAX_CATALOG_SERVERS = 64;

/** The largest catalog file {@linkcode openCatalog} reads: 1 MiB. */
export const MAX_CATALOG_BYTES: number = 1024 * 1024;

/**
 * The most characters one entry's values (command, args, env, cwd; or url,
 * headers and sign-in settings) may hold once their variables are expanded:
 * 1 Mi, more than a process's arguments and environment can carry on Linux.
 * Past it the entry is `invalid_entry`, naming the key.
 */
export const MAX_EXPANDED_CHARS: number = 1024 * 1024;

/** Why a catalog was refused. */
export type CatalogErrorKind =
  /** The file could not be read (the OS error is in the message). */
  | "unreadable_file"
  /** The TOML text does not parse; `line` and `column` say where. */
  | "invalid_toml"
  /** The JSON text does not parse, or repeats a key; `line` and `column` say where. */
  | "invalid_json"
  /** The document parses but is not a catalog (wrong shape, too large, too many servers). */
  | "invalid_catalog"
  /** A server name does not match {@linkcode SERVER_NAME_PATTERN}. */
  | "invalid_name"
  /** Two entries have the same name. */
  | "duplicate_name"
  /** An entry has an unknown key, a missing `command`, or a value of the wrong type. */
  | "invalid_entry"
  /** An entry asks for something this library does not do (a remote server, variable substitution). */
  | "unsupported_entry";

/** A refused catalog: where the mistake is, and a message saying what to write instead. */
export type CatalogError = {
  kind: CatalogErrorKind;
  /** The file as given to {@linkcode readCatalog} or {@linkcode openCatalog}. */
  file: string;
  /** The server's table, such as `mcp.github` or `mcpServers.github`. */
  table?: string;
  /** The offending key within that table, such as `args`. */
  key?: string;
  /** 1-based line of a syntax error or duplicate. */
  line?: number;
  /** 1-based column of a syntax error or duplicate. */
  column?: number;
  /** One line for a person: file, table, key, what was expected and what was found. */
  message: string;
};

/** The two syntaxes a catalog may be written in. */
export type CatalogFormat = "toml" | "json";

/** Why an entry of a catalog was left out although it is enabled. */
export type SkipReason =
  /**
   * A remote server that cannot be served: over the older HTTP+SSE transport
   * or WebSocket, or needing an OAuth sign-in or a command to make its headers.
   */
  | "remote"
  /** The entry is malformed; its {@linkcode CatalogError} says how. */
  | "invalid"
  /**
   * The entry reads variables the reading does not allow (`expand`), in its
   * values or its `inherit_env`: a file found in a project folder reads none
   * by default. `variables` names them.
   */
  | "unexpanded";

/** An entry of a catalog that names a server this library does not start, and why. */
export type SkippedServer = {
  /** The entry's name as written in the file. */
  key: string;
  /** Why it was left out. */
  reason: SkipReason;
  /** One line for a person: the file, the entry and the reason. */
  message: string;
  /** For an `invalid` entry: the mistake, as a `strict` reading refuses the file with. */
  error?: CatalogError;
  /** For an `unexpanded` entry: the variables it reads that were not allowed. */
  variables?: string[];
  /** For an `unexpanded` entry: the server as the file wrote it, its variables unexpanded. */
  written?: ServerSpec;
};

/**
 * An entry its file turns off (`"disabled": true`, or Codex's
 * `enabled = false`): not started, and not a mistake.
 */
export type DisabledServer = {
  /** The entry's name as written in the file. */
  key: string;
  /** Where it is written, as messages name it: `[mcp_servers.docs]`, `mcpServers.GitHub`. */
  table: string;
  /** One line for a person: the file, the entry and the key that turns it off. */
  message: string;
};

/**
 * A value of an entry that holds a variable (`${VAR}`, `${input:id}`,
 * `${workspaceFolder}` ...), as the file wrote it: what a person is shown
 * instead of the expanded value, which may hold a secret.
 */
export type Substitution = {
  /** The server's name (as derived, like the spec's). */
  server: string;
  /**
   * The spec's key holding it: `command`, `args.<index>`, `env.<NAME>`,
   * `cwd`, `url`, `headers.<Name>` or `envFile`.
   */
  key: string;
  /** The value as written. */
  written: string;
  /** The environment variables it reads (`HOME` for `${userHome}`), each once. */
  variables: string[];
};

/** What a catalog yields: the servers to run, and every entry it left out, with the reason. */
export type Catalog = {
  /** The file read (or the name given for a text). */
  file: string;
  /** The syntax it was read as. */
  format: CatalogFormat;
  /** The servers to run, in file order, each with its defaults written out. */
  servers: ResolvedServerSpec[];
  /**
   * Entries left out although enabled (they could not be read or served), in
   * file order, each with its reason.
   */
  skipped: SkippedServer[];
  /** Entries the file turns off, in file order; not started, and not a mistake. */
  disabled: DisabledServer[];
  /**
   * Entries whose name was not a module segment (`"GitHub"`), with the server
   * name derived from it (`github`): the census key and the module `mcp/github.ts`.
   */
  renamed: { key: string; name: string }[];
  /** Things in the file that look like a mistake but refuse nothing, one line each. */
  warnings: string[];
  /**
   * Every value of the servers and the `unexpanded` entries that holds a
   * variable, as written, in file order.
   */
  substitutions: Substitution[];
  /**
   * Where each server (and each `unexpanded` entry) is written, as messages
   * name it: `[mcp.memory]`, `[mcp_servers.docs]`, `mcpServers.GitHub`.
   */
  tables: { server: string; table: string }[];
  /** The env files entries read (VS Code's `envFile`), by server, as resolved paths. */
  envFiles: { server: string; path: string }[];
  /** The SHA-256 of the file's bytes, in hex, when {@linkcode openCatalog} read a file. */
  digest?: string;
};

/**
 * How a catalog is read. Both read every file the way the tool that wrote it
 * does (an entry that cannot be served is skipped and reported, a disabled
 * one listed in `disabled`, a JSON name that is not a server name renamed);
 * they differ on a malformed entry:
 *
 * - `"lenient"` (the default): it is skipped alone, and reported in
 *   `skipped` with its {@linkcode CatalogError};
 * - `"strict"`: it refuses the whole catalog with that error.
 */
export type CatalogMode = "lenient" | "strict";

/** The two readings of a catalog, as {@linkcode CatalogMode} values, the default first. */
export const CATALOG_MODES: readonly CatalogMode[] = ["lenient", "strict"];

/**
 * Options of {@linkcode readCatalog}, and (but `file`) of
 * {@linkcode openCatalog}.
 *
 * @example Read a loom catalog the strict way
 * ```ts
 * import { type CatalogOptions, readCatalog } from "@loom/mcp";
 * const options: CatalogOptions = { file: "loom.toml", mode: "strict" };
 * const read = readCatalog('[mcp.memory]\ncommand = "deno"\n', options);
 * console.log(read.ok && read.value.servers.length); // 1
 * ```
 */
export type CatalogOptions = {
  /** The file name used in messages; `"catalog"` when absent. */
  file?: string;
  /**
   * The syntax; by default inferred from the file name: JSON for a name
   * ending in `.json` (whatever its case), TOML otherwise.
   */
  format?: CatalogFormat;
  /**
   * What a malformed entry does: skipped alone (`"lenient"`, the default) or
   * refuses the whole catalog (`"strict"`); see {@linkcode CatalogMode}.
   */
  mode?: CatalogMode;
  /**
   * The environment `${VAR}`, `${env:VAR}`, `${VAR:-default}` and
   * `${VAR:?message}` read. {@linkcode openCatalog} defaults to the
   * harness's own (`Deno.env`), {@linkcode readCatalog} to none, so that
   * reading text stays pure; a variable with no environment given is
   * refused, named.
   */
  env?: Readonly<Record<string, string>> | ((name: string) => string | undefined);
  /**
   * Which environment variables may be read (expanded, or inherited by a
   * server through `inherit_env`): an entry that reads any other is skipped
   * as `unexpanded`, naming them, and nothing of it is expanded.
   * Every variable of `env` by default, but {@linkcode openCatalog} reading a
   * file it found (no path given) allows none unless told.
   */
  expand?: { allow: readonly string[] };
  /**
   * The values of VS Code's `${input:<id>}`, by id (VS Code prompts for
   * them); an entry using one not given is skipped, naming it.
   */
  inputs?: Readonly<Record<string, string>>;
  /**
   * Reads the env file of an entry's `envFile` (a resolved path), as text or
   * a reason it cannot; {@linkcode openCatalog} reads the file (bounded,
   * UTF-8). Without it, an entry with an `envFile` is skipped, saying so.
   */
  envFile?: (path: string) => Result<string, string>;
  /**
   * The project folder: what `${workspaceFolder}` stands for, and (for
   * {@linkcode openCatalog}) the folder a relative `cwd`, or none, means. By
   * default the folder of the file read, or the parent of `.vscode/` or
   * `.cursor/` for the files kept there; unknown for a text.
   */
  workspaceFolder?: string;
};

/** Options of {@linkcode openCatalog}: those of a text, and where to look for a file. */
export type OpenCatalogOptions = Omit<CatalogOptions, "file" | "envFile"> & {
  /** Where to look for one of `CATALOG_FILES` when no path is given; the current folder by default. */
  folder?: string;
  /**
   * With no path given, look in the user's own files (`userCatalogFiles()`:
   * Claude Code's, Claude Desktop's, Cursor's, Codex's, VS Code's) instead of
   * the project folder, and read the first that lists servers.
   */
  user?: boolean;
};

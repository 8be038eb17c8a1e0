/**
 * What a catalog is refused with, and the limits every front end applies.
 *
 * @module
 */

import type { ResolvedServerSpec } from "../spec/mod.ts";

/** The largest `connect_timeout_ms` or `call_timeout_ms` a catalog may set: one hour. */
export const MAX_CATALOG_TIMEOUT_MS = 3_600_000;

/** The most servers one catalog may list (each runs in its own worker and process). */
export const MAX_CATALOG_SERVERS = 64;

/** The largest catalog file {@linkcode loadCatalog} reads: 1 MiB. */
export const MAX_CATALOG_BYTES: number = 1024 * 1024;

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
  /** The file as given to the parser or loader. */
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

/** Options of {@linkcode parseCatalog} and {@linkcode parseMcpServersJson}. */
export type CatalogOptions = {
  /** The file name used in messages; `"catalog"` when absent. */
  file?: string;
  /**
   * The environment `${VAR}` and `${env:VAR}` read. {@linkcode openCatalog}
   * and {@linkcode loadCatalog} default to the harness's own (`Deno.env`),
   * {@linkcode readCatalog}, {@linkcode parseCatalog} and
   * {@linkcode parseMcpServersJson} to none. The two parsers expand only the
   * `url` and `headers` of remote servers (a token is read from the
   * environment, never written in the file); a variable there with no
   * environment given is refused, named.
   */
  env?: Readonly<Record<string, string>> | ((name: string) => string | undefined);
};

/** The two syntaxes a catalog may be written in. */
export type CatalogFormat = "toml" | "json";

/** Why an entry of a catalog was left out. */
export type SkipReason =
  /** The entry says `"disabled": true`. */
  | "disabled"
  /**
   * A remote server that cannot be served: over the older HTTP+SSE transport
   * or WebSocket, or needing an OAuth sign-in or a command to make its headers.
   */
  | "remote"
  /** The entry is malformed; its {@linkcode CatalogError} says how. */
  | "invalid";

/** An entry of a catalog that names a server this library does not start, and why. */
export type SkippedServer = {
  /** The entry's name as written in the file. */
  key: string;
  /** Why it was left out. */
  reason: SkipReason;
  /** One line for a person: the file, the entry and the reason. */
  message: string;
  /** For an `invalid` entry: the mistake, as {@linkcode parseCatalog} would refuse it. */
  error?: CatalogError;
};

/** What a catalog yields: the servers to run, and every entry it left out, with the reason. */
export type Catalog = {
  /** The file read (or the name given for a text). */
  file: string;
  /** The syntax it was read as. */
  format: CatalogFormat;
  /** The servers to run, in file order, each with its defaults written out. */
  servers: ResolvedServerSpec[];
  /** Entries left out, in file order, each with its reason. */
  skipped: SkippedServer[];
  /**
   * Entries whose name was not a module segment (`"GitHub"`), with the server
   * name derived from it (`github`): the census key and the module `mcp/github.ts`.
   */
  renamed: { key: string; name: string }[];
  /** Things in the file that look like a mistake but refuse nothing, one line each. */
  warnings: string[];
};

/** Options of {@linkcode readCatalog} and {@linkcode openCatalog}. */
export type ReadCatalogOptions = CatalogOptions & {
  /** The syntax; by default JSON for a file name ending in `.json`, else TOML. */
  format?: CatalogFormat;
  /**
   * Refuse the whole catalog at the first malformed entry, as
   * {@linkcode parseCatalog} does; by default a malformed entry is skipped
   * alone and reported.
   */
  strict?: boolean;
  /** What `${workspaceFolder}` stands for; by default the folder the file belongs to. */
  workspaceFolder?: string;
};

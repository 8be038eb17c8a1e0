/**
 * What a catalog is refused with, and the limits every front end applies.
 *
 * @module
 */

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
};

/**
 * The catalog: which MCP servers a harness runs, read from the `[mcp.<name>]`
 * tables of a TOML file, or from the JSON `mcpServers` form that `.mcp.json`,
 * Claude Desktop and VS Code use. Both become the same {@linkcode ServerSpec}s
 * after the same validation; every mistake is a {@linkcode CatalogError} whose
 * message names the file, the table and the key, and says what to write.
 *
 * Parsing is pure; only {@linkcode loadCatalog} touches the file system.
 *
 * @module
 */

import { moduleSegment } from "../codegen/names.ts";
import { parse as parseToml, TomlError } from "smol-toml";
import { fileURLToPath } from "node:url";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { MAX_JSON_DEPTH, parseJson } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ServerSpec, StderrMode } from "../client/spec.ts";
import { findDuplicateKey } from "./_json.ts";
import {
  assignment,
  describe,
  lineColumn,
  quote,
  renderKey,
  splitPlainWords,
  stringArray,
  type Syntax,
} from "./_text.ts";

/**
 * What a server name must look like: a lowercase ASCII letter, then lowercase
 * letters, digits, `_` or `-`, at most 64 characters, and not a name Windows
 * reserves for a device. A name is used verbatim as its generated module's
 * segment (`mcp/<name>.ts`), so two valid names never map to the same module;
 * the rule is the generator's own (`moduleSegment`).
 */
export const SERVER_NAME_PATTERN: RegExp = /^[a-z][a-z0-9_-]{0,63}$/;

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

const DEFAULT_FILE = "catalog";
const KEYS = [
  "command",
  "args",
  "env",
  "inherit_env",
  "cwd",
  "connect_timeout_ms",
  "call_timeout_ms",
  "stderr",
] as const;
const JSON_KEYS: readonly string[] = [...KEYS, "type"];
const REMOTE_TYPES: readonly string[] = [
  "http",
  "sse",
  "streamable-http",
  "streamable_http",
  "streamableHttp",
  "ws",
  "websocket",
];
const STDERR_MODES: readonly StderrMode[] = ["tail", "forward"];
// Portable variable names (POSIX): letters, digits, underscore, no leading digit.
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WHITESPACE = /\s/;
const SUBSTITUTION = /\$\{([^}]*)\}/;
const WHOLE_SUBSTITUTION = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$/;
const TOML_PREFIX = "Invalid TOML document: ";
const TOML_TABLE_HEADER =
  /^\s*\[\s*mcp\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*\]/;
const JSON_PREFIX = /^Cannot parse JSON(?: at offset \d+)?: /;
const JSON_POSITION = / in JSON at position \d+(?: \(line \d+ column \d+\))?/;

/**
 * Tells whether a name is a valid server name ({@linkcode SERVER_NAME_PATTERN}).
 *
 * @example Check names
 * ```ts
 * import { isServerName } from "@loom/mcp";
 * console.log(isServerName("github"), isServerName("My Server")); // true false
 * ```
 */
export function isServerName(name: string): boolean {
  return SERVER_NAME_PATTERN.test(name) && moduleSegment(name).ok;
}

/**
 * Reads the `[mcp.<name>]` tables of a TOML document as server specs, in file
 * order. Other top-level keys are ignored (the catalog may live in a larger
 * file); a document without `mcp` lists no servers. Never throws on bad input:
 * the first mistake comes back as a {@linkcode CatalogError}.
 *
 * @example Parse a catalog
 * ```ts
 * import { parseCatalog } from "@loom/mcp";
 * const result = parseCatalog(`
 * [mcp.memory]
 * command = "deno"
 * args = ["run", "-A", "npm:@modelcontextprotocol/server-memory"]
 * `, { file: "harness.toml" });
 * if (result.ok) console.log(result.value[0]?.name); // "memory"
 * else console.log(result.error.message);
 * ```
 */
export function parseCatalog(
  text: string,
  options: CatalogOptions = {},
): Result<ServerSpec[], CatalogError> {
  if (typeof text !== "string") throw new TypeError("parseCatalog() expects the TOML text");
  const file = options.file ?? DEFAULT_FILE;
  const source = stripByteOrderMark(text);
  let document: Record<string, unknown>;
  try {
    document = parseToml(source, { integersAsBigInt: "asNeeded", maxDepth: MAX_JSON_DEPTH });
  } catch (error) {
    return err(tomlError(file, source, error));
  }
  const mcp = document["mcp"];
  if (mcp === undefined) return ok([]);
  if (!isTable(mcp)) {
    return err({
      kind: "invalid_catalog",
      file,
      key: "mcp",
      message: `${file}: key "mcp": expected a table of [mcp.<name>] tables, found ${
        describe(mcp, "toml")
      }`,
    });
  }
  return readServers(mcp, { file, syntax: "toml", root: "mcp" });
}

/**
 * Reads the JSON `mcpServers` form (`.mcp.json`, Claude Desktop) or VS Code's
 * `servers` form as server specs, with the same validation as
 * {@linkcode parseCatalog}. Only stdio entries are accepted: an entry with a
 * `url`, or a `type` other than `"stdio"`, is refused as `unsupported_entry`.
 * Entries may also use the TOML catalog's keys (`inherit_env`, the timeouts,
 * `stderr`). A repeated key is refused rather than silently dropped.
 *
 * @example Parse an .mcp.json file
 * ```ts
 * import { parseMcpServersJson } from "@loom/mcp";
 * const result = parseMcpServersJson(
 *   '{"mcpServers": {"memory": {"command": "deno", "args": ["run", "-A", "npm:@modelcontextprotocol/server-memory"]}}}',
 *   { file: ".mcp.json" },
 * );
 * if (result.ok) console.log(result.value[0]?.args);
 * ```
 */
export function parseMcpServersJson(
  text: string,
  options: CatalogOptions = {},
): Result<ServerSpec[], CatalogError> {
  if (typeof text !== "string") throw new TypeError("parseMcpServersJson() expects the JSON text");
  const file = options.file ?? DEFAULT_FILE;
  const source = stripByteOrderMark(text);
  const parsed = parseJson(source);
  if (!parsed.ok) {
    const fault = parsed.error;
    if (fault.kind !== "syntax") {
      return err({
        kind: "invalid_json",
        file,
        message: `${file}: invalid JSON: ${sentenceTail(fault.message.replace(JSON_PREFIX, ""))}`,
      });
    }
    const { line, column } = lineColumn(source, fault.offset);
    let reason = sentenceTail(fault.message.replace(JSON_PREFIX, "").replace(JSON_POSITION, ""));
    if (source.charAt(fault.offset) === "/") reason += "; JSON has no comments, remove them";
    return err({
      kind: "invalid_json",
      file,
      line,
      column,
      message: `${file}: invalid JSON at line ${line}, column ${column}: ${reason}`,
    });
  }
  const document = parsed.value;
  if (!isTable(document)) {
    return err({
      kind: "invalid_catalog",
      file,
      message: `${file}: expected a JSON object with an "mcpServers" member, found ${
        describe(document, "json")
      }`,
    });
  }
  const duplicate = findDuplicateKey(source);
  if (duplicate !== undefined) {
    const { line, column } = lineColumn(source, duplicate.offset);
    const [root, ...rest] = duplicate.path;
    if ((root === "mcpServers" || root === "servers") && rest.length === 0) {
      return err({
        kind: "duplicate_name",
        file,
        table: `${root}.${duplicate.key}`,
        line,
        column,
        message: `${file}: ${root}.${
          renderKey(duplicate.key, "toml")
        } is defined twice (again at line ${line}); keep one entry per server`,
      });
    }
    const where = duplicate.path.length === 0 ? "the top level" : duplicate.path.join(".");
    return err({
      kind: "invalid_json",
      file,
      line,
      column,
      message: `${file}: key ${
        quote(duplicate.key)
      } appears twice in ${where} (again at line ${line}, column ${column}); keep one`,
    });
  }
  const hasServers = document["servers"] !== undefined;
  const hasMcpServers = document["mcpServers"] !== undefined;
  if (hasServers && hasMcpServers) {
    return err({
      kind: "invalid_catalog",
      file,
      message:
        `${file}: found both "mcpServers" and "servers"; keep one of them (servers from both would be ambiguous)`,
    });
  }
  if (!hasServers && !hasMcpServers) {
    return err({
      kind: "invalid_catalog",
      file,
      message:
        `${file}: expected an "mcpServers" member (or VS Code's "servers"), found none; write {"mcpServers": {}} for no servers`,
    });
  }
  const root = hasMcpServers ? "mcpServers" : "servers";
  const servers = document[root];
  if (!isTable(servers)) {
    return err({
      kind: "invalid_catalog",
      file,
      key: root,
      message: `${file}: key "${root}": expected an object of servers by name, found ${
        describe(servers, "json")
      }`,
    });
  }
  return readServers(servers, { file, syntax: "json", root });
}

/**
 * Reads a catalog file: `.json` files in the `mcpServers` form
 * ({@linkcode parseMcpServersJson}), any other file as TOML
 * ({@linkcode parseCatalog}). A file that cannot be read, is not a regular
 * file, is larger than {@linkcode MAX_CATALOG_BYTES} or is not UTF-8 is a
 * {@linkcode CatalogError}. A URL other than `file:` throws a `TypeError`.
 *
 * @example Load a catalog
 * ```ts ignore
 * import { loadCatalog } from "@loom/mcp";
 * const catalog = await loadCatalog("harness.toml");
 * if (!catalog.ok) console.error(catalog.error.message);
 * ```
 */
export async function loadCatalog(path: string | URL): Promise<Result<ServerSpec[], CatalogError>> {
  let file: string;
  if (typeof path === "string") {
    file = path;
  } else if (path instanceof URL && path.protocol === "file:") {
    file = fileURLToPath(path);
  } else {
    throw new TypeError(`loadCatalog() expects a file path or a file: URL, got ${String(path)}`);
  }
  const bytes = await readBounded(file);
  if (!bytes.ok) return bytes;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.value);
  } catch {
    return err({
      kind: "invalid_catalog",
      file,
      message: `${file}: the catalog is not UTF-8 text; is this the right file?`,
    });
  }
  const parsed = /\.json$/i.test(file)
    ? parseMcpServersJson(text, { file })
    : parseCatalog(text, { file });
  if (!parsed.ok) return parsed;
  // A relative `cwd` means the catalog's own folder, wherever the harness runs.
  const folder = dirname(resolve(file));
  return ok(
    parsed.value.map((spec) =>
      spec.cwd === undefined || isAbsolute(spec.cwd)
        ? spec
        : { ...spec, cwd: join(folder, spec.cwd) }
    ),
  );
}

async function readBounded(file: string): Promise<Result<Uint8Array, CatalogError>> {
  const unreadable = (error: unknown): Result<Uint8Array, CatalogError> =>
    err({
      kind: "unreadable_file",
      file,
      message: `${file}: cannot read the catalog (${
        error instanceof Error ? error.message : String(error)
      }); check the path and its permissions`,
    });
  // Stat first: opening a FIFO would block, and a device could be endless.
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch (error) {
    return unreadable(error);
  }
  if (!info.isFile) {
    return err({
      kind: "unreadable_file",
      file,
      message: `${file}: cannot read the catalog: it is ${
        info.isDirectory ? "a directory" : "not a regular file"
      }; give the path of the catalog file`,
    });
  }
  const tooLarge = (size: number): Result<Uint8Array, CatalogError> =>
    err({
      kind: "invalid_catalog",
      file,
      message:
        `${file}: the catalog is ${size} bytes, more than the ${MAX_CATALOG_BYTES} allowed; is this the right file?`,
    });
  if (info.size > MAX_CATALOG_BYTES) return tooLarge(info.size);
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(file, { read: true });
  } catch (error) {
    return unreadable(error);
  }
  try {
    // The file may grow between stat and read: read at most one byte past the cap.
    const buffer = new Uint8Array(MAX_CATALOG_BYTES + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const count = await handle.read(buffer.subarray(filled));
      if (count === null) break;
      filled += count;
    }
    if (filled > MAX_CATALOG_BYTES) return tooLarge(filled);
    return ok(buffer.slice(0, filled));
  } catch (error) {
    return unreadable(error);
  } finally {
    handle.close();
  }
}

type Place = { file: string; syntax: Syntax; root: string };
type Problem = { kind: CatalogErrorKind; key?: string; what: string };

function readServers(
  servers: Record<string, unknown>,
  place: Place,
): Result<ServerSpec[], CatalogError> {
  const names = Object.keys(servers);
  if (names.length > MAX_CATALOG_SERVERS) {
    return err({
      kind: "invalid_catalog",
      file: place.file,
      key: place.root,
      message: `${place.file}: ${
        tableName(place.root, place.syntax)
      } lists ${names.length} servers, more than the ${MAX_CATALOG_SERVERS} one catalog may run; split it`,
    });
  }
  const specs: ServerSpec[] = [];
  for (const name of names) {
    const spec = readServer(name, servers[name], place);
    if (!spec.ok) {
      const { kind, key, what } = spec.error;
      const where = serverName(place, name);
      const message = key === undefined
        ? `${place.file}: ${where}: ${what}`
        : `${place.file}: ${where} key "${key}": ${what}`;
      const table = `${place.root}.${name}`;
      return err(
        key === undefined
          ? { kind, file: place.file, table, message }
          : { kind, file: place.file, table, key, message },
      );
    }
    specs.push(spec.value);
  }
  return ok(specs);
}

function tableName(root: string, syntax: Syntax): string {
  return syntax === "toml" ? `[${root}]` : `"${root}"`;
}

function serverName(place: Place, name: string): string {
  const path = `${place.root}.${renderKey(name, "toml")}`;
  return place.syntax === "toml" ? `[${path}]` : path;
}

function readServer(name: string, entry: unknown, place: Place): Result<ServerSpec, Problem> {
  const { syntax } = place;
  if (!isServerName(name)) {
    const suggestion = suggestName(name);
    return err({
      kind: "invalid_name",
      what: `invalid server name ${
        quote(name)
      }: use lowercase letters, digits, underscores and hyphens, starting with a letter, at most 64 characters, not a device name${
        suggestion === undefined ? "" : `, such as ${JSON.stringify(suggestion)}`
      }`,
    });
  }
  if (!isTable(entry)) {
    return err({
      kind: "invalid_entry",
      what: `expected ${syntax === "toml" ? "a table" : "an object"} describing the server, found ${
        describe(entry, syntax)
      }`,
    });
  }
  if (syntax === "json") {
    const refusal = refuseUnsupported(entry);
    if (refusal !== undefined) return err(refusal);
  }
  const known = syntax === "toml" ? KEYS as readonly string[] : JSON_KEYS;
  for (const key of Object.keys(entry)) {
    if (known.includes(key)) continue;
    const near = nearKey(key, known);
    return err({
      kind: "invalid_entry",
      key,
      what: `unknown key${
        near === undefined ? "" : ` (did you mean "${near}"?)`
      }; the known keys are ${known.join(", ")}`,
    });
  }
  const args = readArgs(entry["args"], syntax);
  if (!args.ok) return args;
  const command = readCommand(entry["command"], args.value, syntax);
  if (!command.ok) return command;
  const env = readEnv(entry["env"], syntax);
  if (!env.ok) return env;
  const inheritEnv = readInheritEnv(entry["inherit_env"], syntax);
  if (!inheritEnv.ok) return inheritEnv;
  const stderr = readStderr(entry["stderr"], syntax);
  if (!stderr.ok) return stderr;
  const spec: ServerSpec = {
    name,
    command: command.value,
    args: args.value,
    env: env.value,
    inheritEnv: inheritEnv.value,
    stderr: stderr.value,
  };
  if (entry["cwd"] !== undefined) {
    const cwd = readPath("cwd", entry["cwd"], syntax);
    if (!cwd.ok) return cwd;
    spec.cwd = cwd.value;
  }
  if (entry["connect_timeout_ms"] !== undefined) {
    const timeout = readTimeout("connect_timeout_ms", entry["connect_timeout_ms"], syntax);
    if (!timeout.ok) return timeout;
    spec.connectTimeoutMs = timeout.value;
  }
  if (entry["call_timeout_ms"] !== undefined) {
    const timeout = readTimeout("call_timeout_ms", entry["call_timeout_ms"], syntax);
    if (!timeout.ok) return timeout;
    spec.callTimeoutMs = timeout.value;
  }
  if (syntax === "json") {
    const substitution = refuseSubstitution(spec);
    if (substitution !== undefined) return err(substitution);
  }
  return ok(spec);
}

// Remote servers and VS Code's envFile are refused before the key check, so
// that they get a message about what they are rather than "unknown key".
function refuseUnsupported(entry: Record<string, unknown>): Problem | undefined {
  const type = entry["type"];
  if (entry["url"] !== undefined || (typeof type === "string" && REMOTE_TYPES.includes(type))) {
    return {
      kind: "unsupported_entry",
      key: entry["url"] !== undefined ? "url" : "type",
      what:
        `remote (URL) servers are not supported, only stdio servers started from a "command"; remove this entry or give the command that runs the server locally`,
    };
  }
  if (entry["envFile"] !== undefined) {
    return {
      kind: "unsupported_entry",
      key: "envFile",
      what: `env files are not supported; list the variables in "env" or "inherit_env"`,
    };
  }
  if (type !== undefined && type !== "stdio") {
    return {
      kind: "invalid_entry",
      key: "type",
      what: `expected "stdio", found ${describe(type, "json")}`,
    };
  }
  return undefined;
}

function refuseSubstitution(spec: ServerSpec): Problem | undefined {
  const found = (key: string, value: string): Problem => ({
    kind: "unsupported_entry",
    key,
    what: `variable substitution is not supported, found ${quote(value)}; write the value itself`,
  });
  if (SUBSTITUTION.test(spec.command)) return found("command", spec.command);
  for (const arg of spec.args) if (SUBSTITUTION.test(arg)) return found("args", arg);
  if (spec.cwd !== undefined && SUBSTITUTION.test(spec.cwd)) return found("cwd", spec.cwd);
  for (const [name, value] of Object.entries(spec.env)) {
    if (!SUBSTITUTION.test(value)) continue;
    const variable = WHOLE_SUBSTITUTION.exec(value)?.[1];
    return {
      kind: "unsupported_entry",
      key: "env",
      what: `variable substitution is not supported, found ${quote(value)} for ${quote(name)}; ${
        variable === undefined
          ? "write the value itself"
          : variable === name
          ? `remove it from "env" and write "inherit_env": ["${name}"]`
          : `write the value itself, or set ${name} in the harness's environment and write "inherit_env": ["${name}"]`
      }`,
    };
  }
  return undefined;
}

function readCommand(
  value: unknown,
  args: readonly string[],
  syntax: Syntax,
): Result<string, Problem> {
  const key = "command";
  const example = assignment(key, '"npx"', syntax);
  if (value === undefined) {
    return err({
      kind: "invalid_entry",
      key,
      what: `missing; add the executable to run, such as ${example}`,
    });
  }
  if (typeof value !== "string") {
    const words = Array.isArray(value) && value.length > 0 &&
        value.every((word) => typeof word === "string")
      ? value as string[]
      : undefined;
    return err({
      kind: "invalid_entry",
      key,
      what: `expected a string naming the executable, found ${describe(value, syntax)}${
        words === undefined ? "" : `; write ${splitAdvice(words, args, syntax)}`
      }`,
    });
  }
  if (value.trim() === "") {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected the executable to run, found ${describe(value, syntax)}`,
    });
  }
  if (value.includes("\0")) return err(nulProblem(key, value));
  if (WHITESPACE.test(value)) {
    const words = splitPlainWords(value);
    return err({
      kind: "invalid_entry",
      key,
      what: `expected one executable, found a shell string (${
        quote(value)
      }); no shell runs it, so ${
        words === undefined
          ? "put the executable in command and each argument in its own element of args"
          : `write ${splitAdvice(words, args, syntax)}`
      }`,
    });
  }
  return ok(value);
}

function splitAdvice(words: readonly string[], args: readonly string[], syntax: Syntax): string {
  const [command = "", ...rest] = words;
  const all = [...rest, ...args];
  const head = assignment("command", JSON.stringify(command), syntax);
  return all.length === 0 ? head : `${head} and ${assignment("args", stringArray(all), syntax)}`;
}

function readArgs(value: unknown, syntax: Syntax): Result<string[], Problem> {
  const key = "args";
  if (value === undefined) return ok([]);
  if (!Array.isArray(value)) {
    let fix = "";
    if (typeof value === "string") {
      const words = WHITESPACE.test(value) ? splitPlainWords(value) : [value];
      if (words !== undefined) fix = `; write ${assignment(key, stringArray(words), syntax)}`;
    }
    return err({
      kind: "invalid_entry",
      key,
      what: `expected an array of strings, found ${describe(value, syntax)}${fix}`,
    });
  }
  const args: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== "string") {
      const scalar = typeof item === "number" || typeof item === "bigint" ||
        typeof item === "boolean";
      return err({
        kind: "invalid_entry",
        key,
        what: `expected an array of strings, found ${describe(item, syntax)} at index ${index}${
          scalar ? `; quote it: ${JSON.stringify(String(item))}` : ""
        }`,
      });
    }
    if (item.includes("\0")) return err(nulProblem(key, item));
    args.push(item);
  }
  return ok(args);
}

function readEnv(value: unknown, syntax: Syntax): Result<Record<string, string>, Problem> {
  const key = "env";
  // No prototype: a variable may be called __proto__ without touching one.
  const env: Record<string, string> = Object.create(null);
  if (value === undefined) return ok(env);
  if (!isTable(value)) {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected ${
        syntax === "toml" ? "a table" : "an object"
      } of strings by variable name, found ${describe(value, syntax)}`,
    });
  }
  for (const [name, item] of Object.entries(value)) {
    if (!ENV_NAME.test(name)) return err(envNameProblem(key, name));
    if (typeof item !== "string") {
      const scalar = typeof item === "number" || typeof item === "bigint" ||
        typeof item === "boolean";
      return err({
        kind: "invalid_entry",
        key,
        what: `expected a string for ${quote(name)}, found ${describe(item, syntax)}${
          scalar ? `; write ${assignment(name, JSON.stringify(String(item)), syntax)}` : ""
        }`,
      });
    }
    if (item.includes("\0")) return err(nulProblem(key, item));
    env[name] = item;
  }
  return ok(env);
}

function readInheritEnv(value: unknown, syntax: Syntax): Result<string[], Problem> {
  const key = "inherit_env";
  if (value === undefined) return ok([]);
  if (!Array.isArray(value)) {
    const fix = typeof value === "string" && ENV_NAME.test(value)
      ? `; write ${assignment(key, stringArray([value]), syntax)}`
      : "";
    return err({
      kind: "invalid_entry",
      key,
      what: `expected an array of variable names, found ${describe(value, syntax)}${fix}`,
    });
  }
  const names: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== "string") {
      return err({
        kind: "invalid_entry",
        key,
        what: `expected an array of variable names, found ${
          describe(item, syntax)
        } at index ${index}`,
      });
    }
    if (!ENV_NAME.test(item)) return err(envNameProblem(key, item));
    names.push(item);
  }
  return ok(names);
}

function readPath(key: string, value: unknown, syntax: Syntax): Result<string, Problem> {
  if (typeof value !== "string" || value === "") {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected a directory path, found ${describe(value, syntax)}`,
    });
  }
  if (value.includes("\0")) return err(nulProblem(key, value));
  return ok(value);
}

function readTimeout(key: string, value: unknown, syntax: Syntax): Result<number, Problem> {
  if (
    typeof value === "number" && Number.isInteger(value) && value >= 1 &&
    value <= MAX_CATALOG_TIMEOUT_MS
  ) {
    return ok(value);
  }
  const fix = typeof value === "string" && /^[1-9][0-9]{0,6}$/.test(value) &&
      Number(value) <= MAX_CATALOG_TIMEOUT_MS
    ? `; write ${assignment(key, value, syntax)}`
    : "";
  return err({
    kind: "invalid_entry",
    key,
    what:
      `expected a whole number of milliseconds from 1 to ${MAX_CATALOG_TIMEOUT_MS} (one hour), found ${
        describe(value, syntax)
      }${fix}`,
  });
}

function readStderr(value: unknown, syntax: Syntax): Result<StderrMode, Problem> {
  if (value === undefined) return ok("tail");
  const mode = STDERR_MODES.find((candidate) => candidate === value);
  if (mode !== undefined) return ok(mode);
  return err({
    kind: "invalid_entry",
    key: "stderr",
    what: `expected "tail" or "forward", found ${describe(value, syntax)}`,
  });
}

function nulProblem(key: string, value: string): Problem {
  return {
    kind: "invalid_entry",
    key,
    what: `found a NUL character in ${
      quote(value)
    }, which no process argument or variable can hold`,
  };
}

function envNameProblem(key: string, name: string): Problem {
  return {
    kind: "invalid_entry",
    key,
    what: `invalid variable name ${
      quote(name)
    }: use letters, digits and underscores, not starting with a digit`,
  };
}

// A key that differs from a known one only in case, dashes or camelCase.
function nearKey(key: string, known: readonly string[]): string | undefined {
  const normal = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/-/g, "_").toLowerCase();
  return known.find((candidate) => candidate === normal);
}

function suggestName(name: string): string | undefined {
  let candidate = name.toLowerCase().replace(/[^a-z0-9_-]+/g, "_").replace(/^[_-]+|[_-]+$/g, "");
  if (candidate === "") return undefined;
  if (!/^[a-z]/.test(candidate)) candidate = `server_${candidate}`;
  candidate = candidate.slice(0, 64);
  return isServerName(candidate) ? candidate : undefined;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Date);
}

function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function tomlError(file: string, source: string, error: unknown): CatalogError {
  if (!(error instanceof TomlError)) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      kind: "invalid_toml",
      file,
      message: `${file}: invalid TOML: ${sentenceTail(reason)}`,
    };
  }
  const { line, column } = error;
  const firstLine = error.message.split("\n", 1)[0] ?? "";
  let reason = firstLine.startsWith(TOML_PREFIX) ? firstLine.slice(TOML_PREFIX.length) : firstLine;
  if (reason.includes("excessively nested")) {
    reason = `nested deeper than ${MAX_JSON_DEPTH} levels`;
  }
  if (reason.includes("redefine")) {
    const header = TOML_TABLE_HEADER.exec(source.split("\n")[line - 1] ?? "");
    if (header !== null) {
      const name = header[1] !== undefined
        ? unescapeBasic(header[1])
        : header[2] ?? header[3] ?? "";
      return {
        kind: "duplicate_name",
        file,
        table: `mcp.${name}`,
        line,
        column,
        message: `${file}: [mcp.${
          renderKey(name, "toml")
        }] is defined twice (again at line ${line}); keep one table per server`,
      };
    }
  }
  return {
    kind: "invalid_toml",
    file,
    line,
    column,
    message: `${file}: invalid TOML at line ${line}, column ${column}: ${sentenceTail(reason)}`,
  };
}

// TOML basic-string escapes are JSON's plus \UXXXXXXXX; a name using the
// latter is shown as written.
function unescapeBasic(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
}

// A parser's own sentence, set after a colon in one of ours: lowercase start,
// no trailing period.
function sentenceTail(text: string): string {
  const trimmed = text.trim().replace(/\.+$/, "");
  return trimmed.charAt(0).toLowerCase() + trimmed.slice(1);
}

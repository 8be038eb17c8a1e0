// Private to cli/: the command line of cli/main.ts, parsed with node:util's
// parseArgs into a command or a usage error (one line, saying what to type
// instead). The commands are one table (_help.ts): a new command is one more
// row there and one handler in main.ts.

import { parseArgs as parseOptions } from "node:util";
import { quote } from "../codec/quote.ts";
import { closestNames } from "../codegen/names.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { isLogLevel, LOG_LEVELS, type LogLevel } from "../settings/mod.ts";
import { type CommandName, COMMANDS, HELP_HINT } from "./_help.ts";

export { type CommandName, COMMANDS, USAGE } from "./_help.ts";

/** A server given on the command line rather than in a catalog. */
export type AdHoc =
  | {
    kind: "stdio";
    /** `--stdio "<command> <args>"`. */
    command: string;
    name?: string;
    /** `--env K=V`, in order. */
    env: [string, string][];
    /** `--cwd <folder>`. */
    cwd?: string;
  }
  | {
    kind: "http";
    /** `--http <url>`. */
    url: string;
    name?: string;
    /** `--header 'K: V'`, in order. */
    headers: [string, string][];
  };

/** A tool of a server, as `--allow-tool` and `--deny-tool` name it: `server.tool`. */
export type ToolRef = { server: string; tool: string };

/** What every command shares: where the servers come from, the deadlines, the output form. */
export type Common = {
  /** The catalog named (`--catalog`, or a path among the arguments); absent: the usual places. */
  catalog?: string;
  /** `--stdio` and `--http` servers, in order, each with what was given after it. */
  servers: AdHoc[];
  /** `--user`: the user's own configuration files rather than the project's. */
  user: boolean;
  /** `--trust`: start the servers of a file found in the project folder without asking. */
  trust: boolean;
  /** `--allow-skipped`: entries the catalog skipped do not change the exit status. */
  allowSkipped: boolean;
  /** `--input id=value`: VS Code inputs. */
  inputs: Record<string, string>;
  /** `--connect-timeout`, in milliseconds. */
  connectTimeoutMs?: number;
  /** `--timeout`: each call's deadline, in milliseconds. */
  callTimeoutMs?: number;
  /** `--json`: one JSON document on stdout. */
  json: boolean;
  /** `--quiet`: no progress, only results, warnings and errors. */
  quiet: boolean;
  /** `--strict`: a malformed catalog entry refuses the whole catalog. */
  strict: boolean;
  /** `--allow-tool server.tool`, in order: only these tools of their servers (and the catalog's). */
  allowTools: ToolRef[];
  /** `--deny-tool server.tool`, in order: never these tools. */
  denyTools: ToolRef[];
  /** `--log-level <level>`: the servers' log messages of that level and above, on stderr. */
  logLevel?: LogLevel;
};

/** One parsed invocation. */
export type CliCommand =
  | { command: "help"; topic?: CommandName }
  | { command: "version" }
  | Common & { command: "check" }
  /** `names`: the servers to show, as given; none shows every one. */
  | Common & { command: "surface"; names: string[] }
  | Common & { command: "tools"; names: string[] }
  | Common & { command: "search"; query: string }
  | Common & { command: "describe"; server: string; tool: string }
  | Common & { command: "module"; server: string }
  | Common & { command: "call"; server: string; tool: string; args: string[] }
  | Common & {
    command: "run";
    program: string;
    deadlineMs?: number;
    /** `--approve`: ask on the terminal before each call not marked read-only. */
    approve: boolean;
  }
  | Common & {
    command: "serve";
    deadlineMs?: number;
    /** `--approve`: ask the host before each call not marked read-only. */
    approve: boolean;
    /** `--pins <file>`: where the pinned definitions are read from and kept. */
    pins?: string;
    /** `--max-output <bytes>`: each program's report budget. */
    maxOutputBytes?: number;
    /** `--http <host:port>` (no scheme): serve Streamable HTTP there rather than stdio. */
    listen?: { hostname: string; port: number };
  }
  | Common & { command: "prompts"; server?: string }
  | Common & { command: "prompt"; server: string; name: string; args: string[] }
  | Common & { command: "resources"; server?: string }
  | Common & { command: "read"; server: string; uri: string }
  | Common & { command: "login"; server: string }
  | Common & { command: "logout"; server: string };

const OPTIONS = {
  catalog: { type: "string", multiple: true },
  stdio: { type: "string", multiple: true },
  http: { type: "string", multiple: true },
  name: { type: "string", multiple: true },
  env: { type: "string", multiple: true },
  cwd: { type: "string", multiple: true },
  header: { type: "string", multiple: true },
  input: { type: "string", multiple: true },
  "connect-timeout": { type: "string", multiple: true },
  timeout: { type: "string", multiple: true },
  deadline: { type: "string", multiple: true },
  pins: { type: "string", multiple: true },
  "max-output": { type: "string", multiple: true },
  "allow-tool": { type: "string", multiple: true },
  "deny-tool": { type: "string", multiple: true },
  "log-level": { type: "string", multiple: true },
  approve: { type: "boolean" },
  user: { type: "boolean" },
  trust: { type: "boolean" },
  "allow-skipped": { type: "boolean" },
  json: { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  strict: { type: "boolean" },
  version: { type: "boolean", short: "V" },
  help: { type: "boolean", short: "h" },
} as const;

/** What each option needs, for the message of one given without its value. */
const NEEDS: Readonly<Record<string, string>> = {
  catalog: "--catalog needs a path, as in --catalog loom.toml",
  stdio: '--stdio needs a command, as in --stdio "npx -y some-mcp-server"',
  http: "--http needs a URL, as in --http https://mcp.example.com/mcp",
  name: "--name needs a name, as in --name memory",
  env: "--env needs NAME=value, as in --env MEMORY_FILE_PATH=/tmp/memory.jsonl",
  cwd: "--cwd needs a folder, as in --cwd ./server",
  header: "--header needs 'Name: value', as in --header 'Authorization: Bearer TOKEN'",
  input: "--input needs id=value, as in --input github-token=ghp_xxx",
  "connect-timeout": "--connect-timeout needs a duration, as in --connect-timeout 90s",
  timeout: "--timeout needs a duration, as in --timeout 2m",
  deadline: "--deadline needs a duration, as in --deadline 90s",
  pins: "--pins needs a file, as in --pins pins.json",
  "max-output": "--max-output needs a number of bytes, as in --max-output 65536",
  "allow-tool": "--allow-tool needs server.tool, as in --allow-tool memory.read_graph",
  "deny-tool": "--deny-tool needs server.tool, as in --deny-tool memory.delete_entities",
  "log-level": "--log-level needs a level, as in --log-level info",
};

/** The longest duration an option takes: one hour, as the catalog's deadlines. */
const MAX_DURATION_MS = 3_600_000;

/**
 * A duration as a person writes it: `90`, `90s`, `1500ms`, `2m`, `1.5s`
 * (no unit: seconds), at most an hour.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (match === null) return undefined;
  const scale = match[2] === "ms" ? 1 : match[2] === "m" ? 60_000 : 1000;
  const ms = Math.round(Number(match[1]) * scale);
  return ms >= 1 && ms <= MAX_DURATION_MS ? ms : undefined;
}

// An --http value with no scheme: serve's listen address, not a server.
function isListenAddress(value: string): boolean {
  return value.trim() !== "" && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value);
}

/**
 * `--http`'s listen address for serve: `host:port`, `[v6]:port`, or a bare
 * port on loopback (`127.0.0.1`); the port 0 to 65535, 0 for any free one.
 */
export function listenAddress(
  value: string,
): { hostname: string; port: number } | { error: string } {
  const match = /^(?:(?:\[([^\]]+)\]|([^:[\]\s]+))?:)?(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (match === null || port > 65535) {
    return {
      error:
        `--http ${
          quote(value)
        } is neither a URL nor an address to listen on; give serve host:port, as in ` +
        "--http 127.0.0.1:8931 (or a server's whole URL, as in --http https://mcp.example.com/mcp)",
    };
  }
  return { hostname: match[1] ?? match[2] ?? "127.0.0.1", port };
}

// A path among the arguments is a catalog when it says so by its name.
const CATALOG_NAME = /\.(?:json|jsonc|toml)$/i;

/** Parses the arguments of the command line (a leading `--` is ignored). */
export function parseArgs(argv: readonly string[]): Result<CliCommand, string> {
  // `deno task cli -- <args>` passes the "--" on.
  const args = argv[0] === "--" ? argv.slice(1) : [...argv];
  let tokens;
  try {
    tokens = parseOptions({
      args,
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: OPTIONS,
    }).tokens;
  } catch (error) {
    return err(optionError(error));
  }
  const positional: string[] = [];
  const common: Common = {
    servers: [],
    user: false,
    trust: false,
    allowSkipped: false,
    inputs: Object.create(null),
    json: false,
    quiet: false,
    strict: false,
    allowTools: [],
    denyTools: [],
  };
  let help = false;
  let approve = false;
  let deadlineMs: number | undefined;
  let pins: string | undefined;
  let maxOutputBytes: number | undefined;
  let listen: string | undefined;
  for (const token of tokens) {
    if (token.kind === "positional") {
      positional.push(token.value);
      continue;
    }
    if (token.kind !== "option") continue;
    const name = token.name;
    if (name === "help") help = true;
    else if (name === "version") return ok({ command: "version" });
    else if (name === "approve") approve = true;
    else if (name === "pins") {
      if ((token.value ?? "") === "") return err(NEEDS["pins"] as string);
      if (pins !== undefined) return err("--pins is given twice; keep one");
      pins = token.value;
    } else if (name === "max-output") {
      const bytes = Number(token.value);
      if (!/^\d+$/.test(token.value ?? "") || !Number.isSafeInteger(bytes) || bytes < 1) {
        return err(`--max-output ${quote(token.value ?? "")} is not a positive number of bytes`);
      }
      maxOutputBytes = bytes;
    } else if (name === "http" && isListenAddress(token.value ?? "")) {
      // serve's own address: a value with no scheme; a URL is still a server to front.
      if (listen !== undefined) return err("--http <host:port> is given twice; serve listens once");
      listen = token.value;
    } else if (name === "deadline") {
      deadlineMs = parseDuration(token.value ?? "");
      if (deadlineMs === undefined) return err(durationError(name, token.value));
    } else {
      const problem = applyOption(common, name, token.value);
      if (problem !== undefined) return err(problem);
    }
  }
  if (common.catalog !== undefined && common.servers.length > 0) {
    return err("give either a catalog or --stdio/--http servers, not both");
  }
  if (common.user && (common.catalog !== undefined || common.servers.length > 0)) {
    return err("--user reads the user's own files; give it without a catalog or --stdio/--http");
  }
  const found = commandOf(positional, common);
  if (!found.ok) return found;
  const { command, operands } = found.value;
  if (help || found.value.help === true) {
    return ok(command === undefined ? { command: "help" } : { command: "help", topic: command });
  }
  if (command === undefined) {
    return err(positional.length === 0 ? `no command given; ${HELP_HINT}` : unknown(positional[0]));
  }
  const programs = command === "run" || command === "serve";
  if (deadlineMs !== undefined && !programs) {
    return err("--deadline is the deadline of a program; give it with run or serve");
  }
  if (approve && !programs) {
    return err(
      "--approve asks before each call of a program; give it with run or serve " +
        "(a call you type is already yours)",
    );
  }
  if (command === "serve" && common.json) {
    return err(
      "--json is not for serve: its stdout is the protocol's, and it prints nothing else there",
    );
  }
  if (listen !== undefined && command !== "serve") {
    // An address is serve's; elsewhere a value with no scheme is a URL written short.
    const hint = "error" in listenAddress(listen)
      ? ""
      : " (an address host:port is serve's, where it listens)";
    return err(
      `--http ${
        quote(listen)
      } is not an http or https URL; write it whole, as in --http https://mcp.example.com/mcp` +
        hint,
    );
  }
  if ((pins !== undefined || maxOutputBytes !== undefined) && command !== "serve") {
    return err(`${pins !== undefined ? "--pins" : "--max-output"} is serve's; give it with serve`);
  }
  const address = listen === undefined ? undefined : listenAddress(listen);
  if (address !== undefined && "error" in address) return err(address.error);
  return commandWith(command, operands, common, {
    deadlineMs,
    approve,
    pins,
    maxOutputBytes,
    ...(address === undefined ? {} : { listen: address }),
  });
}

// The command among the positionals, and a catalog named before or after it.
function commandOf(
  positional: readonly string[],
  common: Common,
): Result<{ command?: CommandName; operands: string[]; help?: true }, string> {
  const at = positional.findIndex((word) => Object.hasOwn(COMMANDS, word) || word === "help");
  if (at === -1) return ok({ operands: [] });
  const before = positional.slice(0, at);
  const word = positional[at] as string;
  let operands = positional.slice(at + 1);
  if (word === "help") {
    const topic = operands[0];
    if (topic !== undefined && !Object.hasOwn(COMMANDS, topic)) return err(unknown(topic));
    return ok(
      topic === undefined
        ? { operands: [], help: true }
        : { command: topic as CommandName, operands: [], help: true },
    );
  }
  const command = word as CommandName;
  if (before.length > 1) return err(unknown(before[0]));
  let named = before[0];
  // After the command: the file name of a catalog first or last (a call's
  // argument is key=value or JSON, never such a name), or an operand that a
  // command without operands has not.
  const first = operands[0];
  const last = operands[operands.length - 1];
  const isCatalog = (word: string) => CATALOG_NAME.test(word) && !/[={]/.test(word);
  if (named === undefined && first !== undefined) {
    if (isCatalog(first) || COMMANDS[command].max === 0) {
      named = first;
      operands = operands.slice(1);
    } else if (last !== undefined && operands.length > 1 && isCatalog(last)) {
      named = last;
      operands = operands.slice(0, -1);
    }
  }
  // A URL among the arguments is a remote server, as --http says it.
  if (named !== undefined && /^https?:\/\//i.test(named) && common.catalog === undefined) {
    common.servers.push({ kind: "http", url: named, headers: [] });
    named = undefined;
  }
  if (named !== undefined) {
    if (common.catalog !== undefined) return err("the catalog is given twice; keep one");
    if (common.servers.length > 0) {
      return err(
        before.length > 0
          ? unknown(named)
          : `give either a catalog or --stdio/--http servers, not both (got ${quote(named)})`,
      );
    }
    common.catalog = named;
  }
  return ok({ command, operands });
}

function commandWith(
  name: CommandName,
  operands: string[],
  common: Common,
  run: {
    deadlineMs: number | undefined;
    approve: boolean;
    pins: string | undefined;
    maxOutputBytes: number | undefined;
    listen?: { hostname: string; port: number };
  },
): Result<CliCommand, string> {
  const row = COMMANDS[name];
  if (operands.length < row.min) return err(`${name} needs ${row.needs}, as in: ${row.example}`);
  if (operands.length > row.max) {
    return err(
      row.max === 0
        ? `${name} takes no arguments, got ${quote(operands[0] ?? "")}`
        : `${name} takes ${row.usage.slice(name.length + 1)}, got ${
          quote(operands[row.max] ?? "")
        } too`,
    );
  }
  switch (name) {
    case "check":
      return ok({ command: name, ...common });
    case "surface":
    case "tools":
      return ok({ command: name, names: operands, ...common });
    case "prompts":
    case "resources":
      return ok(
        operands[0] === undefined
          ? { command: name, ...common }
          : { command: name, server: operands[0], ...common },
      );
    case "prompt": {
      const [server, prompt, ...args] = operands as [string, string, ...string[]];
      return ok({ command: name, server, name: prompt, args, ...common });
    }
    case "read": {
      const [server, uri] = operands as [string, string];
      return ok({ command: name, server, uri, ...common });
    }
    case "search":
      return ok({ command: name, query: operands.join(" "), ...common });
    case "describe": {
      const [server, tool] = operands as [string, string];
      return ok({ command: name, server, tool, ...common });
    }
    case "module":
      return ok({ command: name, server: operands[0] as string, ...common });
    case "call": {
      const [server, tool, ...args] = operands as [string, string, ...string[]];
      return ok({ command: name, server, tool, args, ...common });
    }
    case "run":
      return ok({
        command: name,
        program: operands[0] as string,
        ...common,
        ...(run.deadlineMs === undefined ? {} : { deadlineMs: run.deadlineMs }),
        approve: run.approve,
      });
    case "serve":
      return ok({
        command: name,
        ...common,
        ...(run.deadlineMs === undefined ? {} : { deadlineMs: run.deadlineMs }),
        approve: run.approve,
        ...(run.pins === undefined ? {} : { pins: run.pins }),
        ...(run.maxOutputBytes === undefined ? {} : { maxOutputBytes: run.maxOutputBytes }),
        ...(run.listen === undefined ? {} : { listen: run.listen }),
      });
    case "login":
    case "logout":
      return ok({ command: name, server: operands[0] as string, ...common });
  }
}

// One option onto what the command shares; the problem, in one line, if any.
function applyOption(common: Common, name: string, given: string | undefined): string | undefined {
  const value = given ?? "";
  const last = common.servers[common.servers.length - 1];
  switch (name) {
    case "json":
    case "strict":
    case "quiet":
    case "user":
    case "trust":
      common[name] = true;
      return undefined;
    case "allow-skipped":
      common.allowSkipped = true;
      return undefined;
    case "catalog":
      if (value === "") return NEEDS["catalog"];
      if (common.catalog !== undefined) return "the catalog is given twice; keep one";
      common.catalog = value;
      return undefined;
    case "stdio":
      if (value.trim() === "") return NEEDS["stdio"];
      common.servers.push({ kind: "stdio", command: value, env: [] });
      return undefined;
    case "http":
      if (value.trim() === "") return NEEDS["http"];
      if (!/^https?:\/\//i.test(value)) {
        return `--http ${
          quote(value)
        } is not an http or https URL; write it whole, as in --http https://mcp.example.com/mcp`;
      }
      common.servers.push({ kind: "http", url: value, headers: [] });
      return undefined;
    case "name":
      if (last === undefined || last.name !== undefined) {
        return '--name names the --stdio or --http server given before it, as in --stdio "..." --name memory';
      }
      if (value === "") return NEEDS["name"];
      last.name = value;
      return undefined;
    case "env": {
      if (last?.kind !== "stdio") {
        return '--env sets a variable of the --stdio server given before it, as in --stdio "..." --env KEY=value';
      }
      const pair = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(value);
      if (pair === null) return `--env ${quote(value)} is not NAME=value; ${NEEDS["env"]}`;
      last.env.push([pair[1] as string, pair[2] as string]);
      return undefined;
    }
    case "cwd":
      if (last?.kind !== "stdio") {
        return '--cwd is the folder of the --stdio server given before it, as in --stdio "..." --cwd ./server';
      }
      if (value === "") return NEEDS["cwd"];
      if (last.cwd !== undefined) return "--cwd is given twice for one server; keep one";
      last.cwd = value;
      return undefined;
    case "header": {
      if (last?.kind !== "http") {
        return "--header is a header of the --http server given before it, as in --http URL --header 'Authorization: Bearer TOKEN'";
      }
      const pair = /^([^:\s]+)\s*:\s?([\s\S]*)$/.exec(value);
      if (pair === null) return `--header ${quote(value)} is not 'Name: value'; ${NEEDS["header"]}`;
      last.headers.push([pair[1] as string, pair[2] as string]);
      return undefined;
    }
    case "input": {
      const pair = /^([^=]+)=([\s\S]*)$/.exec(value);
      if (pair === null) return `--input ${quote(value)} is not id=value; ${NEEDS["input"]}`;
      common.inputs[pair[1] as string] = pair[2] as string;
      return undefined;
    }
    case "allow-tool":
    case "deny-tool": {
      const ref = toolRef(name, value);
      if (typeof ref === "string") return ref;
      (name === "allow-tool" ? common.allowTools : common.denyTools).push(ref);
      return undefined;
    }
    case "log-level":
      if (value === "") return NEEDS["log-level"];
      if (!isLogLevel(value)) {
        return `--log-level ${quote(value)} is not a level; write one of ${LOG_LEVELS.join(", ")}`;
      }
      common.logLevel = value;
      return undefined;
    case "connect-timeout":
    case "timeout": {
      const ms = parseDuration(value);
      if (ms === undefined) return durationError(name, value);
      if (name === "timeout") common.callTimeoutMs = ms;
      else common.connectTimeoutMs = ms;
      return undefined;
    }
  }
  return `unknown option ${quote(`--${name}`)}; ${HELP_HINT}`;
}

// `server.tool`, split at the first dot: a server's name never holds one,
// a tool's may.
function toolRef(name: "allow-tool" | "deny-tool", value: string): ToolRef | string {
  const needs = NEEDS[name] as string;
  const dot = value.indexOf(".");
  const server = value.slice(0, dot);
  const tool = value.slice(dot + 1);
  if (dot > 0 && server.trim() !== "" && tool.trim() !== "") return { server, tool };
  if (value === "") return needs;
  return `--${name} ${quote(value)} is not server.tool; ${
    needs.replace(/^--\S+ needs /, "write ")
  }`;
}

function durationError(name: string, value: string | undefined): string {
  return `--${name} ${quote(value ?? "")} is not a duration; write seconds (90, 90s, 1.5s), ` +
    "milliseconds (1500ms) or minutes (2m), at most an hour";
}

function unknown(word: string | undefined): string {
  const close = closestNames(word ?? "", [...Object.keys(COMMANDS), "help"]);
  return `unknown command ${quote(word ?? "")}; ${
    close.length === 0 ? HELP_HINT : `did you mean ${close.join(" or ")}? (${HELP_HINT})`
  }`;
}

function optionError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const option = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option !== undefined) {
    return `unknown option ${quote(option)}; ${HELP_HINT}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option !== undefined) {
    if (message.includes("does not take an argument")) return `${option} takes no value`;
    const name = option.replace(/^-+/, "").split(/[ ,]/)[0] ?? "";
    return NEEDS[name] ?? `${option} needs a value; ${HELP_HINT}`;
  }
  return `${message.split("\n")[0]}; ${HELP_HINT}`;
}

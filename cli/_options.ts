// Private to cli/: the command line's options: the table node:util's
// parseArgs reads, what each needs when given without its value, and each
// value checked onto what the commands share, or the problem in one line
// saying what to type instead.

import { quote } from "../codec/quote.ts";
import { isLogLevel, LOG_LEVELS } from "../settings/mod.ts";
import { HELP_HINT } from "./_help.ts";
import type { Common, ToolRef } from "./_invocation.ts";

export const OPTIONS = {
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
export const NEEDS: Readonly<Record<string, string>> = {
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
export function isListenAddress(value: string): boolean {
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

// One option onto what the command shares; the problem, in one line, if any.
export function applyOption(
  common: Common,
  name: string,
  given: string | undefined,
): string | undefined {
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

export function durationError(name: string, value: string | undefined): string {
  return `--${name} ${quote(value ?? "")} is not a duration; write seconds (90, 90s, 1.5s), ` +
    "milliseconds (1500ms) or minutes (2m), at most an hour";
}

export function optionError(error: unknown): string {
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

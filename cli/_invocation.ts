// Private to cli/: what one parsed command line is: the servers given on it,
// what every command shares, and each command's own operands and options.

import type { LogLevel } from "../settings/mod.ts";
import type { CommandName } from "./_help.ts";

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
  | { command: "version"; json: boolean }
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

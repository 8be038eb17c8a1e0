// Private to cli/: the command line of cli/main.ts, parsed with node:util's
// parseArgs into a command or a usage error (one line, saying what to type
// instead). The commands are one table: a new command is one more row here
// and one handler in main.ts.

import { parseArgs as parseOptions } from "node:util";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";

/** What every command shares: where the servers come from, and the output form. */
export type Common = {
  /** `--catalog <path>`; absent when the default places apply. */
  catalog?: string;
  /** `--stdio "<command> <args>"`, in order, each with its `--name` when given. */
  stdio: { command: string; name?: string }[];
  /** `--json`: one JSON document on stdout. */
  json: boolean;
  /** `--strict`: a malformed catalog entry refuses the whole catalog. */
  strict: boolean;
};

/** One parsed invocation. */
export type CliCommand =
  | { command: "help" }
  | Common & { command: "check" }
  | Common & { command: "surface" }
  | Common & { command: "tools"; server?: string }
  | Common & { command: "module"; server: string }
  | Common & { command: "call"; server: string; tool: string; args: string[] }
  | Common & { command: "run"; program: string }
  | Common & { command: "login"; server: string }
  | Common & { command: "logout"; server: string };

/** The name of a command of the table. */
export type CommandName = Exclude<CliCommand["command"], "help">;

type Row = {
  usage: string;
  summary: string;
  /** What the operands are, for "needs ...". */
  needs: string;
  min: number;
  max: number;
  example: string;
};

/** The commands, in the order the help shows them. */
export const COMMANDS: Readonly<Record<CommandName, Row>> = {
  check: {
    needs: "nothing",
    usage: "check",
    summary: "boot every server, report each one as it settles, retire them all",
    min: 0,
    max: 0,
    example: "check",
  },
  tools: {
    needs: "a server name at most",
    usage: "tools [<server>]",
    summary: "list each tool: wire name, generated name, description, input schema",
    min: 0,
    max: 1,
    example: "tools memory",
  },
  surface: {
    needs: "nothing",
    usage: "surface",
    summary: "print the surface a model reads (every server's functions)",
    min: 0,
    max: 0,
    example: "surface",
  },
  module: {
    needs: "a server name",
    usage: "module <server>",
    summary: "print the TypeScript module generated for one server",
    min: 1,
    max: 1,
    example: "module memory",
  },
  call: {
    needs: "a server and a tool",
    usage: "call <server> <tool> [args]",
    summary: "call one tool; args: one JSON object, or key=value pairs",
    min: 2,
    max: Infinity,
    example: "call memory search_nodes query=readme",
  },
  run: {
    needs: "a program",
    usage: "run <program.ts | ->",
    summary:
      "run a program (a file, or - for stdin) against the servers it imports, booting only those",
    min: 1,
    max: 1,
    example: "run program.ts",
  },
  login: {
    needs: "a remote server",
    usage: "login <server>",
    summary: "sign in to a remote server (prints the URL, opens $BROWSER) and keep its tokens",
    min: 1,
    max: 1,
    example: "login notion",
  },
  logout: {
    needs: "a remote server",
    usage: "logout <server>",
    summary: "forget the tokens a login kept for a remote server",
    min: 1,
    max: 1,
    example: "logout notion",
  },
};

const HELP_HINT = "run with --help to see the commands";

function usageText(): string {
  const rows = Object.values(COMMANDS);
  const width = Math.max(...rows.map((row) => row.usage.length)) + 2;
  return `Usage: loom-mcp [options] <command> [arguments]

Boots MCP servers, shows what a model would read, calls tools, and retires
every server with evidence that it exited (or what was done with the
session of a remote one).

Commands:
${rows.map((row) => `  ${row.usage.padEnd(width)}${row.summary}`).join("\n")}

Options:
  --catalog <path>   the catalog: [mcp.<name>] tables of a TOML file, or a JSON
                     file with "mcpServers" (or VS Code's "servers"); it may also
                     be the first argument. Default: the first of loom.toml,
                     .mcp.json, .vscode/mcp.json, .cursor/mcp.json here
  --stdio <command>  run this server instead of a catalog, as "<command> <args>"
                     (quotes group words; no shell runs it); repeatable
  --name <name>      the name of the --stdio server given before it
  --strict           refuse the whole catalog at its first malformed entry
  --json             print one JSON document on stdout instead of text
  -h, --help         print this help

Ctrl-C stops the command, says what it was doing, and retires every server.

Exit status: 0 when everything worked, 1 when a server or a call failed,
2 for a usage or catalog mistake (a catalog that yields no server included),
130 when interrupted.

Examples:
${rows.map((row) => `  loom-mcp ${row.example}`).join("\n")}
  loom-mcp --stdio "npx -y @modelcontextprotocol/server-memory" --name memory tools
`;
}

/** The help text. */
export const USAGE: string = usageText();

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
      options: {
        catalog: { type: "string", multiple: true },
        stdio: { type: "string", multiple: true },
        name: { type: "string", multiple: true },
        json: { type: "boolean" },
        strict: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).tokens;
  } catch (error) {
    return err(optionError(error));
  }
  const positional: string[] = [];
  const common: Common = { stdio: [], json: false, strict: false };
  for (const token of tokens) {
    if (token.kind === "positional") {
      positional.push(token.value);
      continue;
    }
    if (token.kind !== "option") continue;
    const value = token.value;
    switch (token.name) {
      case "help":
        return ok({ command: "help" });
      case "json":
        common.json = true;
        break;
      case "strict":
        common.strict = true;
        break;
      case "catalog":
        if (value === undefined || value === "") {
          return err("--catalog needs a path, as in --catalog loom.toml");
        }
        if (common.catalog !== undefined) return err("--catalog is given twice; keep one");
        common.catalog = value;
        break;
      case "stdio":
        if (value === undefined || value.trim() === "") {
          return err('--stdio needs a command, as in --stdio "npx -y some-mcp-server"');
        }
        common.stdio.push({ command: value });
        break;
      case "name": {
        const last = common.stdio[common.stdio.length - 1];
        if (last === undefined || last.name !== undefined) {
          return err(
            '--name names the --stdio server given before it, as in --stdio "..." --name memory',
          );
        }
        if (value === undefined || value === "") {
          return err("--name needs a name, as in --name memory");
        }
        last.name = value;
        break;
      }
    }
  }
  if (common.catalog !== undefined && common.stdio.length > 0) {
    return err("give either --catalog or --stdio, not both");
  }
  const leading = positional[0];
  if (leading !== undefined && leading !== "help" && !(leading in COMMANDS)) {
    if (common.catalog !== undefined || common.stdio.length > 0 || positional.length === 1) {
      return err(`unknown command ${quote(leading)}; ${HELP_HINT}`);
    }
    common.catalog = leading;
    positional.shift();
  }
  const [command, ...operands] = positional;
  if (command === undefined) return err(`no command given; ${HELP_HINT}`);
  if (command === "help") return ok({ command: "help" });
  if (!(command in COMMANDS)) return err(`unknown command ${quote(command)}; ${HELP_HINT}`);
  const name = command as CommandName;
  const row = COMMANDS[name];
  if (operands.length < row.min) {
    return err(`${name} needs ${row.needs}, as in: ${row.example}`);
  }
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
      return ok({ command: name, ...common });
    case "tools":
      return ok(
        operands[0] === undefined
          ? { command: name, ...common }
          : { command: name, server: operands[0], ...common },
      );
    case "module":
      return ok({ command: name, server: operands[0] as string, ...common });
    case "call": {
      const [server, tool, ...args] = operands as [string, string, ...string[]];
      return ok({ command: name, server, tool, args, ...common });
    }
    case "run":
      return ok({ command: name, program: operands[0] as string, ...common });
    case "login":
    case "logout":
      return ok({ command: name, server: operands[0] as string, ...common });
  }
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
    const name = option.replace(/^-+/, "").split(/[ ,]/)[0];
    if (name === "catalog") return "--catalog needs a path, as in --catalog loom.toml";
    if (name === "stdio") return '--stdio needs a command, as in --stdio "npx -y some-mcp-server"';
    if (name === "name") return "--name needs a name, as in --name memory";
    return `${option} needs a value; ${HELP_HINT}`;
  }
  return `${message.split("\n")[0]}; ${HELP_HINT}`;
}

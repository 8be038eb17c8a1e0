// Private to cli/: the command line of cli/main.ts, parsed into a
// command or a usage error (one line, saying what to type instead).

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";

/** One parsed invocation. `catalog` is absent when the default applies. */
export type CliCommand =
  | { command: "help" }
  | { command: "check"; catalog?: string }
  | { command: "surface"; catalog?: string }
  | { command: "module"; catalog?: string; server: string }
  | { command: "call"; catalog?: string; server: string; tool: string; args: string }
  | { command: "run"; catalog?: string; program: string; json: boolean };

const COMMANDS: ReadonlySet<string> = new Set([
  "check",
  "surface",
  "module",
  "call",
  "run",
  "help",
]);
const HELP_HINT = "run with --help to see the commands";

export const USAGE = `Usage: loom-mcp [--catalog <path>] <command> [arguments]

Boots the MCP servers of a catalog, shows what a model would read, calls tools,
and retires every server with evidence that it exited.

Commands:
  check                          boot every server, report each one, retire them all
  surface                        print the surface a model reads (every server's functions)
  module <server>                print the TypeScript module generated for one server
  call <server> <tool> [<json>]  call one tool with a JSON object of arguments (default {});
                                 the tool by its name on the server or in the module
  run <program.ts | ->           run a program (a file, or - for standard input) against the
                                 servers it imports, booting only those; print its result,
                                 logs and calls

Options:
  --catalog <path>  the catalog: [mcp.<name>] tables of a TOML file, or an
                    mcpServers JSON file (.json); the catalog may also be given
                    as the first argument. Default: loom.toml in the current
                    folder, else .mcp.json
  --json            (run) print the whole report as JSON
  -h, --help        print this help

Exit status: 0 when everything worked, 1 when a server, a call or a program
failed, 2 for a usage or catalog mistake.

Examples:
  loom-mcp check
  loom-mcp --catalog harness.toml surface
  loom-mcp call memory read_graph '{}'
  loom-mcp run program.ts
`;

/** Parses the arguments of the command line (a leading `--` is ignored). */
export function parseArgs(argv: readonly string[]): Result<CliCommand, string> {
  let catalog: string | undefined;
  let json = false;
  const positional: string[] = [];
  let rest = false;
  // `deno task cli -- <args>` passes the "--" on.
  const first = argv[0] === "--" ? 1 : 0;
  for (let index = first; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (rest || !arg.startsWith("-") || arg === "-") {
      positional.push(arg);
    } else if (arg === "--") {
      rest = true;
    } else if (arg === "--json") {
      json = true;
    } else if (arg === "-h" || arg === "--help") {
      return ok({ command: "help" });
    } else if (arg === "--catalog" || arg.startsWith("--catalog=")) {
      const value = arg === "--catalog" ? argv[++index] : arg.slice("--catalog=".length);
      if (value === undefined || value === "") {
        return err("--catalog needs a path, as in --catalog loom.toml");
      }
      if (catalog !== undefined) return err("--catalog is given twice; keep one");
      catalog = value;
    } else if (positional.length >= 3 && positional[positional.length - 3] === "call") {
      // A call's JSON arguments may start with "-" (a negative number): let the
      // command's own check refuse it with the right message.
      positional.push(arg);
    } else {
      return err(`unknown option ${quote(arg)}; ${HELP_HINT}`);
    }
  }
  const leading = positional[0];
  if (leading !== undefined && !COMMANDS.has(leading)) {
    if (catalog !== undefined || positional.length === 1) {
      return err(`unknown command ${quote(leading)}; ${HELP_HINT}`);
    }
    catalog = leading;
    positional.shift();
  }
  const [command, ...operands] = positional;
  const where = catalog === undefined ? {} : { catalog };
  if (json && command !== "run" && command !== "help") {
    return err(`--json applies to run only; ${HELP_HINT}`);
  }
  switch (command) {
    case undefined:
      return err(`no command given; ${HELP_HINT}`);
    case "help":
      return ok({ command: "help" });
    case "check":
    case "surface":
      if (operands.length > 0) {
        return err(`${command} takes no arguments, got ${quote(operands[0] ?? "")}`);
      }
      return ok({ command, ...where });
    case "module": {
      const [server, extra] = operands;
      if (server === undefined) return err("module needs a server name, as in: module memory");
      if (extra !== undefined) {
        return err(`module takes one server name, got ${quote(extra)} too`);
      }
      return ok({ command, server, ...where });
    }
    case "call": {
      const [server, tool, args = "{}", extra] = operands;
      if (server === undefined || tool === undefined) {
        return err(`call needs a server and a tool, as in: call memory read_graph '{}'`);
      }
      if (extra !== undefined) {
        return err(
          `call takes one JSON argument, got ${quote(extra)} too; quote the JSON object`,
        );
      }
      return ok({ command, server, tool, args, ...where });
    }
    case "run": {
      const [program, extra] = operands;
      if (program === undefined) {
        return err("run needs a program, as in: run program.ts (or - for standard input)");
      }
      if (extra !== undefined) return err(`run takes one program, got ${quote(extra)} too`);
      return ok({ command, program, json, ...where });
    }
    default:
      return err(`unknown command ${quote(command)}; ${HELP_HINT}`);
  }
}

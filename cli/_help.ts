// Private to cli/: the commands of the command line, one row each, and the
// help made from them: the whole usage (--help) and each command's own
// (`call --help`).

import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS } from "../settings/mod.ts";
import { DEFAULT_RUN_TIMEOUT_MS } from "../harness/mod.ts";

/** The name of a command of the table. */
export type CommandName =
  | "check"
  | "tools"
  | "surface"
  | "search"
  | "describe"
  | "module"
  | "call"
  | "run"
  | "serve"
  | "prompts"
  | "prompt"
  | "resources"
  | "read"
  | "login"
  | "logout";

type Row = {
  usage: string;
  summary: string;
  /** What the operands are, for "needs ...". */
  needs: string;
  min: number;
  max: number;
  example: string;
  /** More about the command, for its own help. */
  details: string;
  /** Examples beyond `example`, for its own help. */
  examples: string[];
};

/** How to see the commands, said at the end of every usage mistake. */
export const HELP_HINT = "run with --help to see the commands";

/** The commands, in the order the help shows them. */
export const COMMANDS: Readonly<Record<CommandName, Row>> = {
  check: {
    needs: "nothing",
    usage: "check",
    summary: "boot every server, report each one as it settles, retire them all",
    min: 0,
    max: 0,
    example: "check",
    details: "Each server's line is printed as its start settles, then the retirement evidence.",
    examples: ["check claude_desktop_config.json", "check --user", "check --json"],
  },
  tools: {
    needs: "server names",
    usage: "tools [<server>...]",
    summary: "list each tool: wire name, generated name, and its signature with its types",
    min: 0,
    max: Infinity,
    example: "tools memory",
    details: "Boots only the servers named (every server when none is). Each tool is shown as " +
      "the module declares it: its description, its argument and result types, indented. " +
      "With --json, each tool carries every field of the server's listing (the input schema " +
      "as JSON).",
    examples: ['--stdio "npx -y @modelcontextprotocol/server-everything" tools --json'],
  },
  surface: {
    needs: "server names",
    usage: "surface [<server>...]",
    summary: "print the surface a model reads (every server's functions, or those named)",
    min: 0,
    max: Infinity,
    example: "surface",
    details: "The same text a harness hands its model: how to write a program, then one line " +
      "per tool. Boots only the servers named (every server when none is): the surface of " +
      "a harness of those servers alone.",
    examples: ["surface memory", "surface --catalog loom.toml memory github"],
  },
  search: {
    needs: "a query",
    usage: "search <query>",
    summary: "find the tools that best match a query, across every server",
    min: 1,
    max: Infinity,
    example: "search create an issue",
    details: "The words of the query are one query (quotes are not needed). Each match is the " +
      "server and tool, its score and its line of the surface, best first, ten at most: " +
      "the same matches a harness's search() and a program's search() of ./tools.ts give.",
    examples: ["search list files in a folder --json"],
  },
  describe: {
    needs: "a server and a tool",
    usage: "describe <server> <tool>",
    summary: "print one tool's whole block of its module: signature, types, description",
    min: 2,
    max: 2,
    example: "describe memory search_nodes",
    details: "Boots only that server. The tool is named by its wire name or its function's " +
      "name; a tool the lists or pins leave out is refused, saying why.",
    examples: ["describe github create_issue --json"],
  },
  module: {
    needs: "a server name",
    usage: "module <server>",
    summary: "print the TypeScript module generated for one server",
    min: 1,
    max: 1,
    example: "module memory",
    details: "The server is named as the catalog names it or by its module name.",
    examples: [],
  },
  call: {
    needs: "a server and a tool",
    usage: "call <server> <tool> [args]",
    summary: "call one tool; args: one JSON object, or key=value pairs",
    min: 2,
    max: Infinity,
    example: "call memory search_nodes query=readme",
    details: "key=value values take the type the tool's input schema gives the key (text=123 " +
      'sends the string "123" to a string property, the number to a number one); a key ' +
      "the schema does not describe is JSON when it parses as JSON, else a string, and is " +
      "warned about when the schema lists every parameter (a misspelt key). Through --via " +
      "the values are typed by the schema the serve's describe_tool gives. The tool is " +
      "named by its wire name or its function's name (get-sum or get_sum). --timeout sets " +
      `the call's deadline (default ${DEFAULT_CALL_TIMEOUT_MS / 1000} s). A long call's ` +
      "progress, when the server reports it, is one line on stderr. A tool that asks you " +
      "something (elicitation) asks on the terminal, as said below.",
    examples: [
      "call memory read_graph '{}'",
      'call "GitHub-Like Everything" echo message=hi --timeout 90s',
    ],
  },
  run: {
    needs: "a program",
    usage: "run <program.ts | ->",
    summary:
      "run a program (a file, or - for stdin) against the servers it imports, booting only those",
    min: 1,
    max: 1,
    example: "run program.ts",
    details: "The program runs in a sandbox with no permission; --deadline is its wall-clock " +
      `deadline (default ${DEFAULT_RUN_TIMEOUT_MS / 1000} s), --timeout each call's. ` +
      "--approve asks on the terminal before each of its calls that the server does not mark " +
      "read-only ([y] yes, [a] yes to every call of that tool in this run, [N] no: the " +
      "program sees a denied McpCallError); asking, a call's deadline is 5 min and the " +
      "program's 15 min unless set. Without a terminal (or with the program on stdin) such " +
      "calls are denied at once.",
    examples: [
      "run - < program.ts",
      "run program.ts --deadline 2m --json",
      "run program.ts --approve --deny-tool fs.write_file",
    ],
  },
  serve: {
    needs: "nothing",
    usage: "serve",
    summary: "serve every server to MCP hosts (stdio, or --http), as code mode's three tools",
    min: 0,
    max: 0,
    example: "serve --catalog loom.toml",
    details: "An MCP server for hosts (Claude Code, Cursor, VS Code, Codex): its tools are " +
      "search_tools, describe_tool and run_program, never one per server tool. Every server " +
      "boots once and stays warm until the host leaves (stdin closed, SIGINT, SIGTERM); then " +
      "every one is retired and the evidence printed on stderr. stdout is the protocol: " +
      "nothing else is written there. --approve asks the host (form elicitation) before each " +
      "call not marked read-only; a host that cannot be asked gets such calls denied. " +
      "--pins <file> keeps the tools' pinned definitions across sessions; --deadline is each " +
      "program's, --max-output <bytes> the size of its report. --http <host:port> (a value " +
      "with no scheme) serves Streamable HTTP there instead of stdio, loopback unless another " +
      'address is given, and says "listening on <url>" on stderr; every request needs ' +
      "Authorization: Bearer <token>, the token being LOOM_MCP_TOKEN or, unset, one made and " +
      "printed once on stderr; it serves until SIGINT or SIGTERM. A --http value with a " +
      "scheme (https://...) is still a server to front. The other commands reach it with " +
      "--via <url>.",
    examples: [
      "serve --user --approve",
      "serve --catalog loom.toml --http 127.0.0.1:8931",
      'serve --stdio "npx -y @modelcontextprotocol/server-memory" --pins pins.json',
    ],
  },
  prompts: {
    needs: "a server name at most",
    usage: "prompts [<server>]",
    summary: "list each prompt a server offers, with its arguments",
    min: 0,
    max: 1,
    example: "prompts everything",
    details: "Lists the prompts of the server named, or of every server that declared prompts; " +
      "a required argument is marked with *. With --json, every field of the listing.",
    examples: ["prompts --json"],
  },
  prompt: {
    needs: "a server and a prompt",
    usage: "prompt <server> <name> [key=value...]",
    summary: "get one prompt with its arguments filled, and print its messages",
    min: 2,
    max: Infinity,
    example: "prompt everything args-prompt city=Lyon",
    details: "Each key=value is one of the prompt's arguments, checked against its listing " +
      "before it is sent: a key the prompt has not, or a required one left out, is refused, " +
      "naming the arguments it takes. Each message is printed as its role, then its content.",
    examples: ["prompt everything simple-prompt --json"],
  },
  resources: {
    needs: "a server name at most",
    usage: "resources [<server>]",
    summary: "list each resource and resource template a server offers",
    min: 0,
    max: 1,
    example: "resources everything",
    details: "Lists the resources of the server named, or of every server that declared " +
      "resources, then its templates (RFC 6570 URI templates).",
    examples: ["resources everything --json"],
  },
  read: {
    needs: "a server and a URI",
    usage: "read <server> <uri>",
    summary: "read one resource and print its contents",
    min: 2,
    max: 2,
    example: "read everything demo://resource/static/document/architecture.md",
    details: "A text content is printed as text; a blob is named with its type and size. " +
      "With --json, the contents as the server sent them.",
    examples: ["read everything demo://resource/dynamic/text/1 --json"],
  },
  login: {
    needs: "a remote server",
    usage: "login <server>",
    summary: "sign in to a remote server (prints the URL, opens $BROWSER) and keep its tokens",
    min: 1,
    max: 1,
    example: "login notion",
    details: "The browser comes back to a loopback redirect URI the command listens on; the " +
      "tokens go to a file of mode 0600 under $XDG_CONFIG_HOME/loom-mcp/ (or " +
      "~/.config/loom-mcp/), where every later command finds them. A headless grant " +
      "(client credentials, a JWT) needs no browser. A server with no sign-in settings that " +
      "answers without a sign-in is said to need none, and nothing is kept.",
    // An ad hoc server is named after its host: mcp.example.com is "example".
    examples: ["--http https://mcp.example.com/mcp login example"],
  },
  logout: {
    needs: "a remote server",
    usage: "logout <server>",
    summary: "forget the tokens a login kept for a remote server",
    min: 1,
    max: 1,
    example: "logout notion",
    details: "Removes the server's tokens from the store; the next command signs in again.",
    examples: ["--http https://mcp.example.com/mcp logout example"],
  },
};

const OPTIONS_TEXT = `Servers:
  --catalog <path>      the catalog: [mcp.<name>] tables of a TOML file (or Codex's
                        [mcp_servers.<name>]), or a JSON file with "mcpServers" (or VS
                        Code's "servers"), comments allowed; it may also be given
                        before or after the command. Default: the first of loom.toml,
                        .mcp.json, .vscode/mcp.json, .cursor/mcp.json here, which is
                        not trusted: its servers start only once you say so
  --user                the user's own file instead: the first of ~/.claude.json,
                        Claude Desktop's, ~/.cursor/mcp.json, ~/.codex/config.toml,
                        VS Code's and Windsurf's that lists servers
  --stdio <command>     run this server instead of a catalog, as "<command> <args>"
                        (quotes group words; no shell runs it); repeatable
    --env <NAME=value>  a variable of the --stdio server before it; repeatable
    --cwd <folder>      the folder it runs in
  --http <url>          a remote server (Streamable HTTP); repeatable; for serve, a
                        value with no scheme (host:port) is where it listens
    --header 'N: v'     a header of the --http server before it; repeatable
  --name <name>         the name of the --stdio or --http server before it (default:
                        from its package, executable or host)
  --input <id=value>    the value of a VS Code \${input:id}; repeatable
  --trust               start the servers of a file found here without asking
  --strict              refuse the whole catalog at its first malformed entry
  --allow-skipped       exit 0 even when the catalog skipped enabled entries
  --via <url>           tools, call, run, search, describe: through a running
                        loom-mcp serve --http (its servers stay warm), token in
                        LOOM_MCP_TOKEN
    --token-file <path> or the first line of this file

Tools:
  --allow-tool <s.t>    only this tool of server s (by wire or function name), with
                        the catalog's enabled_tools; repeatable
  --deny-tool <s.t>     never this tool of server s, whatever allows it; repeatable
  --approve             run, serve: ask before each call not marked read-only
  --pins <file>         serve: judge tools against the pins kept in this file, and keep
                        them there across sessions

Logs:
  --log-level <level>   ask each server for its log messages of this level and above
                        (debug, info, notice, warning, error, critical, alert,
                        emergency) and print them on stderr, quoted

Questions from servers (elicitation):
  A server may ask you something during a call. On a terminal (stdin and stderr)
  it is asked on stderr, field by field: Enter takes the default in [brackets],
  n declines, Ctrl-C (or Ctrl-D) cancels the question and the command goes on.
  A URL to visit is shown quoted, opened with $BROWSER when set; d says you are
  done. Without a terminal it is declined at once, saying why. The call's
  deadline is held while you answer: only the server's own time counts against
  --timeout (a program's run --deadline keeps running).
  No sampling is declared (the command line has no model), nor roots: a server
  may hide the tools that need them.

Deadlines (90, 90s, 1500ms, 2m):
  --connect-timeout <d> each server's start (default ${DEFAULT_CONNECT_TIMEOUT_MS / 1000} s)
  --timeout <d>         each call (default ${DEFAULT_CALL_TIMEOUT_MS / 1000} s)
  --deadline <d>        run's or serve's program (default ${DEFAULT_RUN_TIMEOUT_MS / 1000} s)
  --max-output <bytes>  serve: the bytes a program's report may take

Output:
  --json                print one JSON document on stdout instead of text
  -q, --quiet           print results, warnings and errors only
  -V, --version         print the version
  -h, --help            print this help (after a command: that command's)`;

const EXIT_TEXT = `Exit status: 0 when everything worked, 1 when a server or a call failed,
2 for a usage or catalog mistake (a catalog that yields no server included),
3 when the catalog skipped enabled entries (unless --allow-skipped), 4 when a file
found here was not trusted, 130 when interrupted.`;

function usageText(): string {
  const rows = Object.values(COMMANDS);
  const width = Math.max(...rows.map((row) => row.usage.length)) + 2;
  return `Usage: loom-mcp [options] <command> [arguments]

Boots MCP servers, shows what a model would read, calls tools, and retires
every server with evidence that it exited (or what was done with the
session of a remote one).

Commands:
${rows.map((row) => `  ${row.usage.padEnd(width)}${row.summary}`).join("\n")}

${OPTIONS_TEXT}

Ctrl-C stops the command at once: servers still starting are cancelled, and
every server is retired; what was retired is listed.

${EXIT_TEXT}

Examples:
${rows.map((row) => `  loom-mcp ${row.example}`).join("\n")}
  loom-mcp --stdio "npx -y @modelcontextprotocol/server-memory" tools
  loom-mcp --http https://mcp.example.com/mcp --header 'Authorization: Bearer TOKEN' tools
`;
}

/** The help text. */
export const USAGE: string = usageText();

/** One command's help: its usage, what it does, the options, examples. */
export function commandUsage(name: CommandName): string {
  const row = COMMANDS[name];
  return `Usage: loom-mcp [options] ${row.usage}

${row.summary.charAt(0).toUpperCase()}${row.summary.slice(1)}.
${row.details}

${OPTIONS_TEXT}

${EXIT_TEXT}

Examples:
${[row.example, ...row.examples].map((example) => `  loom-mcp ${example}`).join("\n")}
`;
}

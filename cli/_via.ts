// Private to cli/: `--via <url>`, the commands `tools`, `call`, `run`,
// `search` and `describe` through a running `loom-mcp serve --http` instead
// of booting servers, so that servers with state keep it between commands.
// The server offers exactly three tools, and each command is one of them:
//   tools                 -> its listing (tools/list): the three tools, run_program's description
//                            carrying the surface the host's model reads
//   search <query>        -> search_tools { query }
//   describe <srv> <tool> -> describe_tool { server, tool }
//   call <srv> <tool> ... -> run_program { code }, a one-line program that imports the server's
//                            module and calls the tool by its wire name
//   run <program>         -> run_program { code: the program's text }
// The token is LOOM_MCP_TOKEN, or the first line of --token-file. One client
// connects (its worker owns the HTTP session) and is retired before the
// command returns.

import { Client } from "../client/client.ts";
import { isJsonObject, type JsonObject, type JsonValue, stringifyJson } from "../codec/json.ts";
import { type CallToolResult, decodeContentBlock } from "../codec/protocol.ts";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { moduleSegment } from "../codegen/names.ts";
import type { CliCommand } from "./_args.ts";
import { callArguments, PAIR } from "./_call.ts";
import { printJson } from "./_commands.ts";
import type { Output } from "./_output.ts";
import { printable, printableLine, renderResult } from "./_render.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

/** The environment variable that holds the token of a `serve --http`. */
export const TOKEN_VARIABLE = "LOOM_MCP_TOKEN";

/** Where `--via` sends the command, and with which token file. */
export type Via = { url: string; tokenFile?: string };

/** The arguments with `--via` and `--token-file` taken out, and what they said. */
export type ViaArgs = { via?: Via; rest: string[] };

const COMMANDS_VIA: ReadonlySet<string> = new Set(["tools", "call", "run", "search", "describe"]);

/**
 * Takes `--via <url>` and `--token-file <path>` (or `--via=<url>`) out of
 * `args`, leaving the rest for the usual parser: a usage error for either
 * given twice or without its value, or a token file without `--via`.
 */
export function takeVia(args: readonly string[]): Result<ViaArgs, string> {
  const rest: string[] = [];
  let url: string | undefined;
  let tokenFile: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    const match = /^--(via|token-file)(?:=(.*))?$/.exec(arg);
    if (match === null) {
      rest.push(arg);
      continue;
    }
    const flag = match[1];
    const value = match[2] ?? args[++i];
    if (value === undefined || value === "" || (match[2] === undefined && value.startsWith("--"))) {
      return err(
        flag === "via"
          ? "--via needs the URL of a running serve, as in --via http://127.0.0.1:8765/mcp"
          : "--token-file needs a path, as in --token-file ~/.loom-mcp-token",
      );
    }
    if (flag === "via") {
      if (url !== undefined) return err("--via is given twice; give one URL");
      url = value;
    } else {
      if (tokenFile !== undefined) return err("--token-file is given twice; give one path");
      tokenFile = value;
    }
  }
  if (url === undefined) {
    return tokenFile === undefined
      ? ok({ rest })
      : err("--token-file is for --via; give --via <url> beside it");
  }
  return ok({ via: tokenFile === undefined ? { url } : { url, tokenFile }, rest });
}

/** What a command via a server is given besides its command. */
export type ViaContext = { output: Output; program: string };

type Served = Exclude<CliCommand, { command: "help" | "version" }>;

/** Runs `command` through the serve at `via`, and returns the exit status. */
export async function viaCommand(
  command: Served,
  via: Via,
  context: ViaContext,
): Promise<number> {
  const { output } = context;
  const usage = (message: string): number => {
    output.error(message);
    if (command.json) printJson(output, { ok: false, error: { kind: "usage", message } });
    return EXIT_USAGE;
  };
  if (!COMMANDS_VIA.has(command.command)) {
    return usage(
      `--via serves tools, call, run, search and describe; ${command.command} boots its own servers, so drop --via`,
    );
  }
  if (command.catalog !== undefined || command.servers.length > 0 || command.user) {
    return usage(
      "--via uses the servers of the running serve; drop --catalog, --user, --stdio and --http",
    );
  }
  let url: URL;
  try {
    url = new URL(via.url);
  } catch {
    return usage(`--via ${quote(via.url)} is not a URL; give one as in http://127.0.0.1:8765/mcp`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return usage(`--via ${quote(via.url)} is not http: or https:; give the serve's endpoint`);
  }
  const token = await tokenOf(via);
  if (!token.ok) return usage(token.error);
  const request = requestOf(command, context.program);
  if (!request.ok) return usage(request.error);
  const client = new Client({
    name: "via",
    url: url.href,
    headers: { Authorization: `Bearer ${token.value}` },
    ...(command.callTimeoutMs === undefined ? {} : { callTimeoutMs: command.callTimeoutMs }),
  });
  try {
    return await send(client, command, request.value, output, url);
  } finally {
    await client.retire();
  }
}

async function tokenOf(via: Via): Promise<Result<string, string>> {
  if (via.tokenFile !== undefined) {
    try {
      const line = (await Deno.readTextFile(via.tokenFile)).split("\n")[0]?.trim() ?? "";
      if (line !== "") return ok(line);
      return err(`--token-file ${quote(via.tokenFile)} is empty; write the serve's token in it`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return err(`Cannot read --token-file ${quote(via.tokenFile)}: ${reason}`);
    }
  }
  const token = Deno.env.get(TOKEN_VARIABLE)?.trim();
  if (token === undefined || token === "") {
    return err(
      `--via needs the serve's token: set ${TOKEN_VARIABLE}, or give --token-file <path>`,
    );
  }
  return ok(token);
}

// The one tool call a command is, or the listing for `tools`.
/** What goes to the serve; `typed` when a call's pairs were typed by the tool's schema. */
type Request = { kind: "list" } | { kind: "call"; tool: string; args: JsonObject; typed?: true };

function requestOf(command: Served, program: string): Result<Request, string> {
  switch (command.command) {
    case "tools":
      return command.names.length === 0
        ? ok({ kind: "list" })
        : err("tools --via lists what the serve offers; search or describe finds a server's tools");
    case "search":
      return ok({ kind: "call", tool: "search_tools", args: { query: command.query } });
    case "describe":
      return ok({
        kind: "call",
        tool: "describe_tool",
        args: { server: command.server, tool: command.tool },
      });
    case "run":
      return ok({ kind: "call", tool: "run_program", args: { code: program } });
    case "call":
      return callRequest(command);
    default:
      return err(`${command.command} cannot go through --via`);
  }
}

/**
 * The one-line program that calls `tool` of `server` with `args` through
 * `run_program`: it imports the server's module, so the check knows the
 * server, and calls by the wire name, so no generated name is needed. A
 * result the tool marked `isError` is returned as it came, not thrown, so
 * that its output is printed as a call's is; a refused call still throws.
 */
export function callProgram(
  server: string,
  tool: string,
  args: JsonObject,
): Result<string, string> {
  const segment = moduleSegment(server);
  if (!segment.ok) {
    return err(
      `${segment.error.message}; give the server as the serve's surface names its module (mcp/<name>.ts)`,
    );
  }
  const json = stringifyJson(args);
  if (!json.ok) return err(`the arguments cannot be said in JSON: ${json.error.message}`);
  return ok(
    `import "./mcp/${server}.ts"; import { invoke, McpToolError } from "@loom/mcp/cap"; ` +
      `let result: unknown; try { result = await invoke(${JSON.stringify(server)}, ${
        JSON.stringify(tool)
      }, ${json.value}); } catch (error) { if (!(error instanceof McpToolError)) throw error; ` +
      "result = { content: error.content, structuredContent: error.structuredContent, " +
      "isError: true }; } export default result;\n",
  );
}

async function send(
  client: Client,
  command: Served,
  request: Request,
  output: Output,
  url: URL,
): Promise<number> {
  const started = await client.connect();
  if (!started.ok) {
    // A wrong token is the likely mistake: say which, not how a sign-in would go.
    const refused = /refused with HTTP 401\b/.test(started.error.message);
    return failed(output, command.json, {
      kind: started.error.kind,
      message: refused
        ? `The serve at ${url.href} refused the token (HTTP 401): give the token it printed ` +
          `when it started (or the ${TOKEN_VARIABLE} it was started with) in ${TOKEN_VARIABLE} ` +
          "or --token-file"
        : `Cannot reach the serve at ${url.href}: ${started.error.message}`,
    });
  }
  if (request.kind === "list") {
    const listed = await client.listTools();
    if (!listed.ok) return failed(output, command.json, listed.error);
    if (command.json) {
      printJson(output, {
        ok: true,
        via: url.href,
        tools: listed.value.map(({ name, description }) => ({ name, description })),
      });
      return EXIT_OK;
    }
    for (const tool of listed.value) {
      output.result(output.paint(printableLine(tool.name), "head", "out"));
      for (const line of printable(tool.description ?? "").split("\n")) output.result(`  ${line}`);
    }
    return EXIT_OK;
  }
  const typed = command.command === "call" ? await typedCall(client, command) : undefined;
  if (typed !== undefined && !typed.ok) {
    return failed(output, command.json, { kind: "usage", message: typed.error }, EXIT_USAGE);
  }
  const sent = typed?.value ?? request;
  const result = await client.callTool(sent.tool, sent.args);
  if (!result.ok) return failed(output, command.json, result.error);
  return shown(command, sent, result.value, output);
}

/**
 * A call's `key=value` arguments typed by the tool's input schema, which the
 * serve's `describe_tool` gives, as a local call types them; undefined when
 * the arguments are one JSON object, or the serve gives no schema (the call
 * then goes as `requestOf` made it, and the serve says what is wrong).
 */
async function typedCall(
  client: Client,
  command: Extract<Served, { command: "call" }>,
): Promise<Result<Request & { kind: "call" }, string> | undefined> {
  if (command.args.length === 0 || !command.args.every((arg) => PAIR.test(arg))) return undefined;
  const described = await client.callTool("describe_tool", {
    server: command.server,
    tool: command.tool,
  });
  if (!described.ok || described.value.isError === true) return undefined;
  const data = described.value.structuredContent;
  const schema = isJsonObject(data) ? data.inputSchema : undefined;
  if (!isJsonObject(schema)) return undefined;
  return callRequest(command, schema);
}

// The run_program request of a call, its arguments typed by `schema` when one is given.
function callRequest(
  command: Extract<Served, { command: "call" }>,
  schema?: JsonObject,
): Result<Request & { kind: "call" }, string> {
  const args = callArguments(command.args, schema);
  if (!args.ok) return args;
  const code = callProgram(command.server, command.tool, args.value);
  if (!code.ok) return code;
  const request = { kind: "call" as const, tool: "run_program", args: { code: code.value } };
  return ok(schema === undefined ? request : { ...request, typed: true as const });
}

function shown(command: Served, request: Request, result: CallToolResult, output: Output): number {
  const structured = isJsonObject(result.structuredContent) ? result.structuredContent : undefined;
  if (command.command === "call") {
    const said = callShown(command, structured, request.kind === "call" && request.typed === true);
    if (said !== undefined) return said(output);
  }
  const status = result.isError === true ? EXIT_FAILED : EXIT_OK;
  if (command.json) {
    printJson(output, {
      ok: status === EXIT_OK,
      ...(structured ?? { text: textOf(result) }),
      ...(status === EXIT_OK ? {} : { error: { kind: "tool_error", message: textOf(result) } }),
    });
    return status;
  }
  if (status !== EXIT_OK) {
    output.error(
      `${request.kind === "call" ? request.tool : "the serve"} failed: ${
        namedProgram(command, textOf(result))
      }`,
    );
    return status;
  }
  // A call's value is the tool's own result, which renders as a call's result does.
  const value: JsonValue | undefined = structured?.value;
  if (command.command === "call" && isJsonObject(value) && Array.isArray(value.content)) {
    output.result(renderResult(asResult(value)));
    return status;
  }
  for (const log of Array.isArray(structured?.logs) ? structured.logs : []) {
    if (typeof log === "string") output.detail(`log: ${printableLine(log)}`);
  }
  // run_program's text repeats the logs and calls after the value; a command shows the value.
  if (command.command === "run" && structured !== undefined) {
    output.result(
      value === undefined
        ? "(no value: the program has no export default)"
        : JSON.stringify(value, null, 2),
    );
    return status;
  }
  output.result(renderResult(result));
  return status;
}

// Failures a call through run_program meets, said as the same call said here would say them:
// a refusal before any call (no such tool or server, arguments its schema refuses) is a usage
// mistake; a tool's isError result is printed as its output, then said to be a failure.
const USAGE_KINDS: ReadonlySet<string> = new Set([
  "unknown_tool",
  "invalid_arguments",
  "tool_disabled",
  "task_required",
]);

function callShown(
  command: Extract<Served, { command: "call" }>,
  structured: JsonObject | undefined,
  typed: boolean,
): ((output: Output) => number) | undefined {
  const tool = quote(command.tool);
  const server = quote(command.server);
  const value = structured?.value;
  if (isJsonObject(value) && value.isError === true && Array.isArray(value.content)) {
    const message = `tool ${tool} of ${server} reported a failure (isError); ` +
      `its output is ${command.json ? "in the document" : "above"}`;
    return (output) => {
      if (command.json) {
        printJson(output, { ...structured, ok: false, error: { kind: "tool_error", message } });
      } else {
        output.result(renderResult(asResult(value)));
      }
      output.error(message);
      return EXIT_FAILED;
    };
  }
  const threw = structured?.threw;
  const calls = Array.isArray(structured?.calls) ? structured.calls : [];
  const first = isJsonObject(calls[0]) ? calls[0] : undefined;
  if (isJsonObject(threw) && threw.name === "McpCallError" && typeof threw.message === "string") {
    const kind = typeof first?.error === "string" ? first.error : "call_failed";
    // A serve that gives no schema has a pair's value typed as JSON says it.
    const pair = PAIR.exec(command.args[0] ?? "");
    const typedHere = kind === "invalid_arguments" && pair !== null && !typed
      ? "; through --via, a key=value value is JSON when it parses as JSON (42 is a number, " +
        "true a boolean): give one JSON object instead, as in " +
        `'${JSON.stringify({ [pair[1] ?? ""]: pair[2] ?? "" })}'`
      : "";
    const error = { kind, message: printableLine(threw.message) + typedHere };
    const status = USAGE_KINDS.has(kind) ? EXIT_USAGE : EXIT_FAILED;
    return (output) => failed(output, command.json, error, status);
  }
  const diagnostics = Array.isArray(structured?.diagnostics) ? structured.diagnostics : [];
  const refused = diagnostics.find((diagnostic) =>
    isJsonObject(diagnostic) && typeof diagnostic.message === "string" &&
    diagnostic.message.startsWith('Cannot import "./mcp/')
  );
  if (isJsonObject(refused)) {
    const error = {
      kind: "unknown_server",
      message: `the serve has no server ${server}: ${printableLine(String(refused.message))}`,
    };
    return (output) => failed(output, command.json, error, EXIT_USAGE);
  }
  return undefined;
}

// The ToolResult a program returned, as JSON sees it, back into a call's result.
function asResult(value: JsonObject): CallToolResult {
  const content = (Array.isArray(value.content) ? value.content : []).flatMap((block) => {
    const decoded = decodeContentBlock(block);
    return typeof decoded === "string" ? [] : [decoded];
  });
  const isError = value.isError === true;
  return value.structuredContent === undefined
    ? { content, isError }
    : { content, structuredContent: value.structuredContent, isError };
}

// The serve names the program it was handed program.ts; a program read from a file is named by
// it in its diagnostics, as a run here names it.
function namedProgram(command: Served, text: string): string {
  if (command.command !== "run" || command.program === "-") return text;
  const name = printableLine(command.program);
  return text.replace(
    /^(\s*(?:related: )?)program\.ts:(?=\d+:\d+)/gm,
    (_, head) => `${head}${name}:`,
  );
}

function textOf(result: CallToolResult): string {
  return result.content.flatMap((block) => block.type === "text" ? [block.text] : []).join("\n");
}

function failed(
  output: Output,
  json: boolean,
  error: { kind: string; message: string },
  status: number = EXIT_FAILED,
): number {
  output.error(error.message);
  if (json) printJson(output, { ok: false, error: { kind: error.kind, message: error.message } });
  return status;
}

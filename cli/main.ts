/**
 * The command line of `@loom/mcp`: boot the servers of a catalog (or of
 * `--stdio` commands), see what a model would read, list tools, call one,
 * check that every server starts and retires.
 *
 * ```sh
 * deno run -A jsr:@loom/mcp/cli check
 * deno run -A jsr:@loom/mcp/cli tools memory --json
 * deno run -A jsr:@loom/mcp/cli --catalog harness.toml surface
 * deno run -A jsr:@loom/mcp/cli call memory search_nodes query=readme
 * deno run -A jsr:@loom/mcp/cli prompt everything args-prompt city=Lyon
 * deno run -A jsr:@loom/mcp/cli read everything demo://resource/dynamic/text/1
 * deno run -A jsr:@loom/mcp/cli --stdio "npx -y @modelcontextprotocol/server-memory" tools
 * deno run -A jsr:@loom/mcp/cli --http https://mcp.example.com/mcp --header "Authorization: Bearer T" tools
 * deno run -A jsr:@loom/mcp/cli run program.ts --deadline 2m
 * deno run -A jsr:@loom/mcp/cli --catalog loom.toml serve --approve
 * deno run -A jsr:@loom/mcp/cli login notion
 * ```
 *
 * The catalog is `--catalog <path>` (or a path before or after the command),
 * `--user` for the user's own files, else the first of `loom.toml`,
 * `.mcp.json`, `.vscode/mcp.json` and `.cursor/mcp.json` in the current
 * folder, whose servers start only once trusted (asked on a terminal,
 * `--trust` otherwise); the command says which file it read. Every command
 * retires every server it booted before it returns, with evidence that each
 * one exited, Ctrl-C included.
 *
 * Unlike the library modules, this is a program: it prints (but `serve`,
 * whose stdout is the protocol's, says everything on stderr). Results go to
 * stdout (as text, or one JSON document with `--json`); progress and errors
 * go to stderr, one line each, saying what to do. Exit status:
 * {@linkcode EXIT_OK}, {@linkcode EXIT_FAILED}, {@linkcode EXIT_USAGE},
 * {@linkcode EXIT_SKIPPED}, {@linkcode EXIT_UNTRUSTED}, {@linkcode EXIT_INTERRUPTED}.
 *
 * @module
 */

import { type CliCommand, parseArgs, USAGE } from "./_args.ts";
import { commandUsage } from "./_help.ts";
import { call } from "./_call.ts";
import { check, type Context, fail, moduleOf, progress, surface, tools } from "./_commands.ts";
import { describe, search } from "./_discover.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_SKIPPED, EXIT_USAGE } from "./exit_codes.ts";
import { type Doing, withHarness } from "./_with_harness.ts";
import { readProgram, runCommand } from "./_run.ts";
import { serversOf } from "./_source.ts";
import { Output } from "./_output.ts";
import { startMessage } from "./_messages.ts";
import { login, logout } from "./_login.ts";
import { prompt, prompts, read, resources } from "./_prompts.ts";
import { takeVia, viaCommand } from "./_via.ts";
import { serveCommand } from "./_serve.ts";

export {
  EXIT_FAILED,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_SKIPPED,
  EXIT_UNTRUSTED,
  EXIT_USAGE,
} from "./exit_codes.ts";
export { CATALOG_FILES, userCatalogFiles, type UserPlaces } from "../catalog/mod.ts";

/**
 * The version of the command line: the package's own (`deno.json`'s
 * `version`; a test holds them equal, since a room cannot import the
 * package's metadata).
 */
export const VERSION = "0.1.0";

/**
 * Runs the command line with `args` (as `Deno.args`) and returns the exit
 * status. Never throws for a server's failure or a usage mistake; prints
 * results to stdout and progress and errors to stderr.
 *
 * @example Check a catalog
 * ```ts ignore
 * import { main } from "@loom/mcp/cli";
 * const status = await main(["--catalog", "loom.toml", "check"]);
 * console.log(status === 0 ? "every server works" : "see above");
 * ```
 */
export async function main(args: string[]): Promise<number> {
  const via = takeVia(args);
  if (!via.ok) {
    new Output().error(via.error);
    return EXIT_USAGE;
  }
  const parsed = parseArgs(via.value.rest);
  if (!parsed.ok) {
    new Output().error(parsed.error);
    return EXIT_USAGE;
  }
  const command: CliCommand = parsed.value;
  if (command.command === "help") {
    new Output().result(
      (command.topic === undefined ? USAGE : commandUsage(command.topic)).trimEnd(),
    );
    return EXIT_OK;
  }
  if (command.command === "version") {
    new Output().result(
      command.json ? JSON.stringify({ name: "loom-mcp", version: VERSION }) : `loom-mcp ${VERSION}`,
    );
    return EXIT_OK;
  }
  const output = new Output({ quiet: command.quiet });
  // The program is read first: a missing program is a usage mistake, found before any boot.
  let program = "";
  if (command.command === "run") {
    const read = await readProgram(command.program);
    if ("error" in read) {
      return fail(output, command.json, { kind: "usage", message: read.error }, EXIT_USAGE);
    }
    program = read.source;
  }
  // Through a running serve nothing boots here: the serve's servers answer.
  if (via.value.via !== undefined) {
    return await viaCommand(command, via.value.via, { output, program });
  }
  const source = await serversOf(command, output);
  if (!source.ok) {
    return fail(
      output,
      command.json,
      { kind: "catalog", message: source.error.message },
      source.error.status,
    );
  }
  const doing: Doing = { now: "reading the catalog" };
  const context: Context = { source: source.value, output, doing };
  const status = await dispatch(command, context, program);
  // Entries the catalog left out mean the file does not do all it says, for
  // a command that uses the whole of it.
  const skipped = source.value.catalog?.skipped.length ?? 0;
  const whole = command.command === "check" ||
    ((command.command === "surface" || command.command === "tools") && command.names.length === 0);
  if (status === EXIT_OK && whole && skipped > 0 && !command.allowSkipped) {
    output.warn(
      `${skipped} entr${skipped === 1 ? "y" : "ies"} of ${source.value.origin} ${
        skipped === 1 ? "was" : "were"
      } skipped (said above); exiting ${EXIT_SKIPPED}, or pass --allow-skipped to exit 0`,
      "note",
    );
    return EXIT_SKIPPED;
  }
  return status;
}

// One case per command of the table in _help.ts.
function dispatch(
  command: Exclude<CliCommand, { command: "help" | "version" }>,
  context: Context,
  program: string,
): Promise<number> {
  switch (command.command) {
    case "check":
      return check(command, context);
    case "tools":
      return tools(command, context);
    case "surface":
      return surface(command, context);
    case "search":
      return search(command, context);
    case "describe":
      return describe(command, context);
    case "module":
      return moduleOf(command, context);
    case "call":
      return call(command, context);
    case "run":
      context.doing.now = "running the program";
      return runCommand(program, context.source.specs, {
        program: command.program,
        json: command.json,
        ...(command.deadlineMs === undefined ? {} : { deadlineMs: command.deadlineMs }),
        approve: command.approve,
        codes: { ok: EXIT_OK, failed: EXIT_FAILED, usage: EXIT_USAGE },
        output: context.output,
        doing: context.doing,
        startMessage: (report) => startMessage(report, context.source.knobs.get(report.name)),
        // The checker's process and the program's sandbox start while the
        // servers do, rather than once the program is sent after them.
        withHarness: (specs, body) =>
          withHarness(specs, context.doing, body, {
            ...progress(command, context),
            boot: { prepareRunner: true },
          }),
      });
    case "serve":
      return serveCommand(command, context, { name: "loom-mcp", version: VERSION });
    case "prompts":
      return prompts(command, context);
    case "prompt":
      return prompt(command, context);
    case "resources":
      return resources(command, context);
    case "read":
      return read(command, context);
    case "login":
      return login(context, command);
    case "logout":
      return logout(context, command);
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));

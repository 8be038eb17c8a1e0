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
 * deno run -A jsr:@loom/mcp/cli --stdio "npx -y @modelcontextprotocol/server-memory" tools
 * deno run -A jsr:@loom/mcp/cli run program.ts
 * deno run -A jsr:@loom/mcp/cli login notion
 * ```
 *
 * The catalog is `--catalog <path>` (or the first argument), else the first
 * of `loom.toml`, `.mcp.json`, `.vscode/mcp.json` and `.cursor/mcp.json` in
 * the current folder; the command says which file it read. Every command
 * retires every server it booted before it returns, with evidence that each
 * one exited, Ctrl-C included.
 *
 * Unlike the library modules, this is a program: it prints. Results go to
 * stdout (as text, or one JSON document with `--json`); progress and errors
 * go to stderr, one line each, saying what to do. Exit status:
 * {@linkcode EXIT_OK}, {@linkcode EXIT_FAILED}, {@linkcode EXIT_USAGE},
 * {@linkcode EXIT_INTERRUPTED}.
 *
 * @module
 */

import { oneLine } from "./_render.ts";
import { type CliCommand, parseArgs, USAGE } from "./_args.ts";
import { call } from "./_call.ts";
import { check, fail, moduleOf, progress, surface, tools } from "./_commands.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { type Doing, withHarness } from "./_with_harness.ts";
import { readProgram, runCommand } from "./_run.ts";
import { serversOf } from "./_source.ts";
import { login, logout } from "./_login.ts";

export { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
export { CATALOG_FILES } from "../catalog/mod.ts";

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
  const parsed = parseArgs(args);
  if (!parsed.ok) {
    console.error(`error: ${parsed.error}`);
    return EXIT_USAGE;
  }
  const command: CliCommand = parsed.value;
  if (command.command === "help") {
    console.log(USAGE.trimEnd());
    return EXIT_OK;
  }
  // The program is read first: a missing program is a usage mistake, found before any boot.
  let program = "";
  if (command.command === "run") {
    const read = await readProgram(command.program);
    if ("error" in read) {
      return fail(command.json, { kind: "usage", message: read.error }, EXIT_USAGE);
    }
    program = read.source;
  }
  const source = await serversOf(command);
  if (!source.ok) {
    return fail(command.json, { kind: "catalog", message: oneLine(source.error, 400) }, EXIT_USAGE);
  }
  const doing: Doing = { now: "reading the catalog" };
  // One case per command of the table in _args.ts.
  switch (command.command) {
    case "check":
      return await check(source.value, command, doing);
    case "tools":
      return await tools(source.value, command, doing);
    case "surface":
      return await surface(source.value, command, doing);
    case "module":
      return await moduleOf(source.value, command, doing);
    case "call":
      return await call(source.value, command, doing);
    case "run":
      doing.now = "running the program";
      return await runCommand(program, source.value.specs, {
        json: command.json,
        codes: { ok: EXIT_OK, failed: EXIT_FAILED, usage: EXIT_USAGE },
        programName: command.program === "-" ? undefined : command.program,
        withHarness: (specs, body) =>
          withHarness(specs, doing, body, progress(command, source.value)),
      });
    case "login":
      return await login(source.value, command);
    case "logout":
      return await logout(source.value, command);
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));

// Private to cli/: `search <query>` and `describe <server> <tool>`, the
// harness's discovery from the command line. `search` boots the whole source
// (its matches span every ready server) and prints each match: the server
// and tool, its score, and its line of the surface; `describe` boots only the
// server it names and prints the tool's whole block, as a program's
// `describe` of `./tools.ts` reads it. Server text is printed as printable
// lines, as everywhere on the command line.

import type { Harness } from "../harness/harness.ts";
import type { CliCommand } from "./_args.ts";
import {
  type Context,
  fail,
  failedJson,
  pick,
  printJson,
  progress,
  showFailures,
} from "./_commands.ts";
import { quote } from "../codec/quote.ts";
import { leftOutBy } from "./_governance.ts";
import { oneLine, printable, printableLine } from "./_render.ts";
import { withHarness } from "./_with_harness.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

type Command<Name extends CliCommand["command"]> = Extract<CliCommand, { command: Name }>;

/** `search <query>`: the tools of every ready server that best match the query. */
export async function search(command: Command<"search">, context: Context): Promise<number> {
  const { output } = context;
  return await withHarness(context.source.specs, context.doing, (harness) => {
    const failed = showFailures(harness, context);
    let matches: ReturnType<Harness["search"]>;
    try {
      matches = harness.search(command.query);
    } catch (error) {
      // A query the search refuses (empty, or too long): the message says which.
      const message = error instanceof Error ? error.message : String(error);
      return fail(output, command.json, { kind: "invalid_query", message }, EXIT_USAGE);
    }
    if (command.json) {
      printJson(output, {
        query: command.query,
        matches,
        failed: failedJson(harness).servers,
      });
    } else if (matches.length === 0) {
      output.warn(`no tool of a ready server matches ${quote(command.query)}`);
    } else {
      for (const match of matches) {
        output.result(output.paint(
          `${match.server}.${printableLine(match.tool)}  (score ${match.score.toFixed(2)})`,
          "head",
          "out",
        ));
        output.result(`  ${printableLine(match.line)}`);
      }
    }
    return failed > 0 ? EXIT_FAILED : EXIT_OK;
  }, progress(command, context));
}

/** `describe <server> <tool>`: one tool's whole block of its server's module. */
export async function describe(command: Command<"describe">, context: Context): Promise<number> {
  const { output } = context;
  const picked = pick(context, command.server, command.json);
  if (picked === undefined) return EXIT_USAGE;
  return await withHarness(picked.specs, context.doing, (harness) => {
    const described = harness.describe(picked.name, command.tool);
    if (!described.ok) {
      const { error } = described;
      if (error.kind === "server_failed") showFailures(harness, context);
      // A tool the flags or the catalog leave out is said in their words, as `call` says it.
      const spec = picked.specs[0];
      const message = error.kind === "tool_disabled" && spec !== undefined
        ? leftOutBy(spec, error.tool, context.source.toolFlags, context.source.where.get(spec.name))
        : error.kind === "unknown_tool" && error.suggestions.length === 0
        ? `${printable(error.message)}; its tools: ${toolNames(harness, picked.name)}`
        : printable(error.message);
      return fail(
        output,
        command.json,
        { kind: error.kind, message },
        error.kind === "server_failed" ? EXIT_FAILED : EXIT_USAGE,
      );
    }
    if (command.json) {
      printJson(output, { server: picked.name, tool: command.tool, block: described.value });
    } else {
      output.result(described.value.trimEnd());
    }
    return EXIT_OK;
  }, progress(command, context));
}

// The wire names a ready server listed, sorted, for a message naming what it has.
function toolNames(harness: Harness, server: string): string {
  const report = harness.reports.get(server);
  const names = report?.state === "ready" ? report.tools.map((tool) => tool.name).sort() : [];
  return names.length === 0 ? "none" : oneLine(names.join(", "), Infinity);
}

// Private to cli/: the `call` command. Its arguments are one JSON object or
// key=value pairs; its output is the tool's result, rendered for a person or
// as one JSON document.

import { isJsonObject, type JsonObject, parseJson } from "../codec/json.ts";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { CliCommand } from "./_args.ts";
import { fail, failedJson, pick, printJson, progress, showFailures } from "./_commands.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { type Doing, withHarness } from "./_with_harness.ts";
import type { Source } from "./_source.ts";
import { oneLine, renderResult, tailLines } from "./_render.ts";

/** `call <server> <tool> [args]`: one tool call and its output. */
export async function call(
  source: Source,
  command: Extract<CliCommand, { command: "call" }>,
  doing: Doing,
): Promise<number> {
  const args = callArguments(command.args);
  if (!args.ok) {
    return fail(command.json, { kind: "invalid_arguments", message: args.error }, EXIT_USAGE);
  }
  const specs = pick(source, command.server, command.json);
  if (specs === undefined) return EXIT_USAGE;
  return await withHarness(specs, doing, async (harness) => {
    if (showFailures(harness) > 0) {
      if (command.json) printJson({ ok: false, error: failedJson(harness) });
      return EXIT_FAILED;
    }
    doing.now = `calling ${command.tool} of ${command.server}`;
    if (!command.json) console.error(`${doing.now}…`);
    const result = await harness.call(command.server, command.tool, args.value);
    // After Ctrl-C the call ends because its server is being retired: nothing to say.
    if (doing.interrupted === true) return EXIT_FAILED;
    if (!result.ok) {
      const error = result.error;
      if (error.kind === "unknown_tool") {
        const report = harness.reports.get(command.server);
        const names = report?.state === "ready"
          ? report.tools.map((tool) => tool.name).sort().join(", ")
          : "";
        const guess = error.suggestions.length === 0
          ? ""
          : ` (did you mean ${error.suggestions.join(" or ")}?)`;
        return fail(command.json, {
          kind: error.kind,
          message: `server ${quote(command.server)} has no tool ${quote(command.tool)}${guess}; ` +
            `its tools: ${oneLine(names === "" ? "none" : names, 600)}`,
        }, EXIT_USAGE);
      }
      if (error.kind === "task_required") {
        return fail(command.json, {
          kind: error.kind,
          message: `${oneLine(error.message, 400)}; it is left out of the surface too`,
        }, EXIT_USAGE);
      }
      const tail = "stderrTail" in error ? tailLines(error.stderrTail, 1)[0] : undefined;
      return fail(command.json, {
        kind: error.kind,
        message: oneLine(error.message, 400) +
          (tail === undefined ? "" : `; the server's stderr ends with: ${tail}`),
      }, EXIT_FAILED);
    }
    if (command.json) {
      printJson({ server: command.server, tool: command.tool, result: result.value });
    } else {
      console.log(renderResult(result.value));
    }
    if (result.value.isError === true) {
      console.error(
        `error: tool ${quote(command.tool)} of ${quote(command.server)} reported a failure ` +
          `(isError); its output is ${command.json ? "in the document" : "above"}`,
      );
      return EXIT_FAILED;
    }
    return EXIT_OK;
  }, progress(command, source));
}

const PAIR = /^([^=\s]+)=([\s\S]*)$/;

/**
 * A call's arguments: none (`{}`), one JSON object, or `key=value` pairs
 * whose values are JSON when they parse as JSON, else strings.
 */
export function callArguments(args: readonly string[]): Result<JsonObject, string> {
  const [first] = args;
  if (first === undefined) return ok({});
  if (args.length === 1 && !PAIR.test(first)) {
    const parsed = parseJson(first);
    if (parsed.ok && isJsonObject(parsed.value)) return ok(parsed.value);
    const why = parsed.ok
      ? "are not a JSON object"
      : `are not JSON (${oneLine(parsed.error.message.replace(/^Cannot parse JSON /, ""), 120)})`;
    return err(
      `the arguments ${quote(oneLine(first, 60))} ${why}; ` +
        `pass one quoted JSON object, as in '{"text": "hi"}', or key=value pairs`,
    );
  }
  const object: JsonObject = Object.create(null);
  for (const arg of args) {
    const pair = PAIR.exec(arg);
    if (pair === null) {
      return err(
        `the argument ${quote(oneLine(arg, 60))} is not key=value; write each as key=value`,
      );
    }
    const [, key = "", text = ""] = pair;
    if (Object.hasOwn(object, key)) return err(`the key ${quote(key)} is given twice; keep one`);
    const value = parseJson(text);
    object[key] = value.ok ? value.value : text;
  }
  return ok(object);
}

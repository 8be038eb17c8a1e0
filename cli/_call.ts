// Private to cli/: the `call` command. Its arguments are one JSON object or
// key=value pairs; its output is the tool's result, rendered for a person or
// as one JSON document.

import { isJsonObject, type JsonObject, type JsonValue, parseJson } from "../codec/json.ts";
import type { Harness } from "../harness/mod.ts";
import { type Pair, typedArguments } from "./_typed_args.ts";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
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
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { withHarness } from "./_with_harness.ts";
import { callMessage } from "./_messages.ts";
import { oneLine, printableLine, renderResult, tailLines } from "./_render.ts";
import { leftOutBy } from "./_governance.ts";
import { ProgressLine } from "./_progress_line.ts";
import { closestNames } from "../codegen/names.ts";
import { describedTool } from "../gateway/_described.ts";
import type { ServerSpec } from "../settings/mod.ts";

// A server may list a tool only to a client that can answer what the tool
// asks (server-everything hides its sampling and roots tools from the
// command line); the command line answers elicitations only.
const HIDDEN_HINT = " (a server may list some tools only to a client that declares " +
  "sampling or roots, which the command line does not: it has no model to sample and " +
  "lists no roots)";

/** `call <server> <tool> [args]`: one tool call and its output. */
export async function call(
  command: Extract<CliCommand, { command: "call" }>,
  context: Context,
): Promise<number> {
  const { output, doing, source } = context;
  const args = callArguments(command.args);
  if (!args.ok) {
    return fail(
      output,
      command.json,
      { kind: "invalid_arguments", message: args.error },
      EXIT_USAGE,
    );
  }
  const picked = pick(context, command.server, command.json);
  if (picked === undefined) return EXIT_USAGE;
  const server = picked.name;
  return await withHarness(picked.specs, doing, async (harness, signal) => {
    if (showFailures(harness, context) > 0) {
      if (command.json) printJson(output, { ok: false, error: failedJson(harness) });
      return EXIT_FAILED;
    }
    doing.now = `calling ${command.tool} of ${server}`;
    if (!command.json) output.progress(`${doing.now}…`);
    // Checked before the boot; typed now that the tool's schema is known.
    const schema = inputSchemaOf(harness, server, command.tool);
    const typed = callArguments(command.args, schema);
    const given = typed.ok ? typed.value : args.value;
    const strays = strayKeys(given, schema);
    if (strays !== undefined) output.warn(strays(command.tool));
    // Progress is asked for only where it is shown: the status line of a terminal.
    const shown = !command.json && !output.quiet && output.statusInPlace;
    const line = shown ? new ProgressLine(output) : undefined;
    const label = `${server}.${printableLine(command.tool)}`;
    const result = await harness.call(server, command.tool, given, {
      signal,
      ...(line === undefined ? {} : { onProgress: (progress) => line.report(label, progress) }),
    });
    line?.end();
    // After Ctrl-C the call ends because it was cancelled: the interruption says so.
    if (doing.interrupted === true) return EXIT_FAILED;
    if (!result.ok) {
      const error = result.error;
      if (error.kind === "unknown_tool") {
        const report = harness.reports.get(server);
        const names = report?.state === "ready"
          ? report.tools.map((tool) => tool.name).sort().join(", ")
          : "";
        const guess = error.suggestions.length === 0
          ? ""
          : ` (did you mean ${error.suggestions.join(" or ")}?)`;
        return fail(output, command.json, {
          kind: error.kind,
          message: `server ${quote(server)} has no tool ${quote(command.tool)}${guess}; ` +
            `its tools: ${oneLine(names === "" ? "none" : names, Infinity)}` + HIDDEN_HINT,
        }, EXIT_USAGE);
      }
      if (error.kind === "tool_disabled") {
        const spec = picked.specs[0] as ServerSpec;
        return fail(output, command.json, {
          kind: error.kind,
          message: leftOutBy(spec, error.tool, source.toolFlags, source.where.get(server)),
        }, EXIT_USAGE);
      }
      if (error.kind === "invalid_arguments") {
        // Refused here, before any call: arguments the schema refuses are a usage mistake.
        return fail(output, command.json, {
          kind: error.kind,
          message: oneLine(error.message, Infinity),
        }, EXIT_USAGE);
      }
      if (error.kind === "task_required") {
        return fail(output, command.json, {
          kind: error.kind,
          message: `${oneLine(error.message, Infinity)}; it is left out of the surface too`,
        }, EXIT_USAGE);
      }
      const tail = "stderrTail" in error ? tailLines(error.stderrTail, 1)[0] : undefined;
      const message = "method" in error || error.kind === "unavailable"
        ? callMessage(error, server, source.knobs.get(server))
        : oneLine(error.message, Infinity);
      return fail(output, command.json, {
        kind: error.kind,
        message: message + (tail === undefined ? "" : `; the server's stderr ends with: ${tail}`),
      }, EXIT_FAILED);
    }
    if (command.json) {
      printJson(output, { server, tool: command.tool, result: result.value });
    } else {
      output.result(renderResult(result.value));
    }
    if (result.value.isError === true) {
      output.error(
        `tool ${quote(command.tool)} of ${quote(server)} reported a failure ` +
          `(isError); its output is ${command.json ? "in the document" : "above"}`,
      );
      return EXIT_FAILED;
    }
    return EXIT_OK;
  }, progress(command, context));
}

/** A `key=value` argument: the key, then everything after its first `=`. */
export const PAIR = /^([^=\s]+)=([\s\S]*)$/;

/**
 * A call's arguments: none (`{}`), one JSON object, or `key=value` pairs,
 * each value typed by the property's schema in `inputSchema` where it says
 * (`_typed_args.ts`), else JSON when it parses as JSON, else a string.
 */
export function callArguments(
  args: readonly string[],
  inputSchema: JsonValue = {},
): Result<JsonObject, string> {
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
  const pairs: Pair[] = [];
  for (const arg of args) {
    const pair = PAIR.exec(arg);
    if (pair === null) {
      return err(
        `the argument ${quote(oneLine(arg, 60))} is not key=value; write each as key=value`,
      );
    }
    const [, key = "", text = ""] = pair;
    if (pairs.some((given) => given.key === key)) {
      return err(`the key ${quote(key)} is given twice; keep one`);
    }
    pairs.push({ key, text });
  }
  return ok(typedArguments(pairs, inputSchema));
}

/**
 * What to say of the keys of `args` that `inputSchema` names no property for,
 * when its properties are all it takes (no `additionalProperties` or
 * `patternProperties` that let others in): a server that drops them would
 * make a misspelt key silently absent. `undefined` when there is none.
 */
export function strayKeys(
  args: JsonObject,
  inputSchema: JsonValue,
): ((tool: string) => string) | undefined {
  if (!isJsonObject(inputSchema) || !isJsonObject(inputSchema.properties)) return undefined;
  const extra = inputSchema.additionalProperties;
  if (isJsonObject(extra) || extra === true || inputSchema.patternProperties !== undefined) {
    return undefined;
  }
  const properties = Object.keys(inputSchema.properties);
  const strays = Object.keys(args).filter((key) => !properties.includes(key));
  if (strays.length === 0) return undefined;
  const names = strays.map((key) => {
    // A key of a letter or two is close to every short name: no guess for it.
    const close = key.length < 3 ? [] : closestNames(key, properties);
    return quote(oneLine(key, 60)) +
      (close[0] === undefined ? "" : ` (did you mean ${quote(close[0])}?)`);
  });
  const takes = properties.length === 0
    ? "it takes no arguments"
    : `its parameters: ${oneLine(properties.join(", "), 200)}`;
  return (tool) =>
    `tool ${quote(tool)} has no parameter ${names.join(", ")}; ${takes}; ` +
    `${strays.length === 1 ? "it is" : "they are"} sent as given, and the server may ignore ` +
    (strays.length === 1 ? "it" : "them");
}

/** The input schema of `tool` (by wire or function name) of a ready server, if listed. */
function inputSchemaOf(harness: Harness, server: string, tool: string): JsonValue {
  return describedTool(harness, server, tool)?.inputSchema ?? {};
}

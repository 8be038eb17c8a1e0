// Private to harness/: a call's values checked against its tool's schemas,
// with validators made once per tool of a listing (boot or re-listing), on
// the tool's first call, never per call: made at boot for every tool, they
// held about 5 MiB of a harness of 584 tools that calls a few (BENCHMARKS.md,
// "Footprint"). Arguments that break the input schema are
// refused before anything is sent (`invalid_arguments`, with the path and
// the rule); a result that is not an error and whose structured content
// breaks the output schema is `result_malformed`, naming the path, or, for a
// server whose spec says `resultCheck: "warn"`, still arrives, with the
// mismatch among its warnings. What the validator cannot check (a schema too
// large or too deep, a costly pattern) is let through: the check is bounded
// and never throws (`codegen/validate.ts`).

import type { JsonObject } from "../codec/json.ts";
import type { CallToolResult, ToolDescriptor } from "../codec/protocol.ts";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { type ValueValidator, valueValidator } from "../codegen/validate.ts";
import type { ClientError } from "../client/errors.ts";
import type { ResultCheck } from "../settings/mod.ts";
import type { CallResult } from "../runner/host/run.ts";
import type { CallDenial } from "./types.ts";

/** One tool's validators, of the listing it was taken from, each made on its first use. */
export class ToolSchemas {
  readonly #tool: ToolDescriptor;
  #input: ValueValidator | undefined;
  #output: ValueValidator | null | undefined;

  /** The validators of `tool`'s schemas, none made yet. */
  constructor(tool: ToolDescriptor) {
    this.#tool = tool;
  }

  /** The validator of the tool's input schema. */
  get input(): ValueValidator {
    return this.#input ??= valueValidator(this.#tool.inputSchema);
  }

  /** The validator of the tool's output schema, when it declares one. */
  get output(): ValueValidator | undefined {
    if (this.#output === undefined) {
      const schema = this.#tool.outputSchema;
      this.#output = schema === undefined ? null : valueValidator(schema);
    }
    return this.#output ?? undefined;
  }
}

/** The validators of every tool of a listing, by wire name, each made on its first use. */
export function prepareSchemas(tools: readonly ToolDescriptor[]): Map<string, ToolSchemas> {
  return new Map(tools.map((tool) => [tool.name, new ToolSchemas(tool)]));
}

/** The refusal of arguments that break the tool's input schema, or `undefined`. */
export function checkArguments(
  server: string,
  tool: string,
  schemas: ToolSchemas | undefined,
  args: JsonObject,
): CallDenial | undefined {
  const checked = schemas?.input.validate(args);
  if (checked === undefined || checked.ok) return undefined;
  const { path, rule, message } = checked.error;
  return {
    kind: "invalid_arguments",
    server,
    tool,
    path,
    rule,
    message: `Cannot call tool ${quote(tool)} of ${quote(server)}: its arguments break its ` +
      `input schema: ${message}`,
  };
}

/** A result checked against the tool's output schema (see the module doc). */
export function checkResult(
  server: string,
  tool: string,
  schemas: ToolSchemas | undefined,
  result: CallToolResult,
  mode: ResultCheck,
): Result<CallResult, ClientError> {
  const output = schemas?.output;
  if (output === undefined || result.isError || result.structuredContent === undefined) {
    return ok(result);
  }
  const checked = output.validate(result.structuredContent);
  if (checked.ok) return ok(result);
  const what = `the structured content of tool ${quote(tool)} of ${quote(server)} breaks its ` +
    `output schema: ${checked.error.message}`;
  if (mode === "warn") return ok({ ...result, warnings: [what] });
  return err({
    kind: "result_malformed",
    method: "tools/call",
    message: `Server ${quote(server)} sent a malformed result: ${what}`,
  });
}

// Private to server/: what a tool's `run` returned (a JavaScript caller can
// return anything), checked and rendered as the wire's `CallToolResult`.

import { type JsonObject, type JsonValue, stringifyJson } from "../codec/json.ts";
import { describeValue } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";

const BLOCK_TYPES = new Set(["text", "image", "audio", "resource_link", "resource"]);

/**
 * Checks what a tool's `run` returned (a JavaScript caller can return
 * anything) and renders it as the wire's `CallToolResult`. A tool that
 * declares an output schema (`structured`) owes structured content in every
 * result but an error: clients refuse such a result without it.
 */
export function normalizeOutput(
  tool: string,
  output: unknown,
  options: { structured?: boolean } = {},
): Result<JsonObject, string> {
  const normalized = normalizeAny(tool, output);
  if (
    options.structured === true && normalized.ok && normalized.value.isError !== true &&
    normalized.value.structuredContent === undefined
  ) {
    return err(
      `Tool ${JSON.stringify(tool)} declares an outputSchema but returned no ` +
        `"structuredContent"; return structured content that matches the schema`,
    );
  }
  return normalized;
}

function normalizeAny(tool: string, output: unknown): Result<JsonObject, string> {
  if (typeof output === "string") return ok({ content: [{ type: "text", text: output }] });
  if (typeof output !== "object" || output === null || Array.isArray(output)) {
    return err(
      `Tool ${JSON.stringify(tool)} returned ${describeValue(output)}, not a result or a string`,
    );
  }
  const record = output as Record<string, unknown>;
  const { content, structuredContent, isError, _meta } = record;
  const result: JsonObject = {};
  if (structuredContent !== undefined) {
    if (!isPlainObject(structuredContent)) {
      return err(
        `Tool ${JSON.stringify(tool)} returned "structuredContent" that is ${
          describeValue(structuredContent)
        }, not an object`,
      );
    }
    result.structuredContent = structuredContent as JsonObject;
  }
  if (content === undefined) {
    result.content = [];
    if (structuredContent !== undefined) {
      const text = stringifyJson(structuredContent as JsonObject);
      if (!text.ok) {
        return err(
          `Tool ${JSON.stringify(tool)} returned a result JSON cannot say: ${text.error.message}`,
        );
      }
      result.content = [{ type: "text", text: text.value }];
    }
  } else {
    if (!Array.isArray(content)) {
      return err(
        `Tool ${JSON.stringify(tool)} returned "content" that is ${
          describeValue(content)
        }, not an array`,
      );
    }
    for (let index = 0; index < content.length; index++) {
      const block: unknown = content[index];
      const type = isPlainObject(block) ? (block as Record<string, unknown>).type : undefined;
      if (typeof type !== "string" || !BLOCK_TYPES.has(type)) {
        return err(
          `Tool ${JSON.stringify(tool)} returned content block ${index} whose "type" is ${
            describeValue(type)
          }`,
        );
      }
    }
    result.content = content as JsonValue[];
  }
  if (isError !== undefined) {
    if (typeof isError !== "boolean") {
      return err(
        `Tool ${JSON.stringify(tool)} returned "isError" that is ${
          describeValue(isError)
        }, not a boolean`,
      );
    }
    if (isError) result.isError = true;
  }
  if (_meta !== undefined) {
    if (!isPlainObject(_meta)) {
      return err(
        `Tool ${JSON.stringify(tool)} returned "_meta" that is ${
          describeValue(_meta)
        }, not an object`,
      );
    }
    result._meta = _meta as JsonObject;
  }
  const { content: blocks, ...rest } = result;
  return ok({ content: blocks as JsonValue, ...rest });
}

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

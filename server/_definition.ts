// Private to server/: the check of a server definition that `serve()` makes
// before it reads a line; a malformed one is caller misuse (`TypeError`).

import { isJsonObject } from "../codec/json.ts";
import { describeValue } from "../codec/quote.ts";
import type { ServerDefinition, Tool } from "./tool.ts";

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

// The annotations the spec names, each a boolean when present.
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

// The definition's tools by name; throws TypeError naming what is malformed.
export function checkDefinition(server: ServerDefinition): Map<string, Tool> {
  if (typeof server.name !== "string" || server.name === "") {
    throw new TypeError(
      `Cannot serve: the server name is ${describeValue(server.name)}; give a non-empty string`,
    );
  }
  if (typeof server.version !== "string" || server.version === "") {
    throw new TypeError(
      `Cannot serve ${JSON.stringify(server.name)}: the version is ${
        describeValue(server.version)
      }; give a non-empty string`,
    );
  }
  if (!Array.isArray(server.tools)) {
    throw new TypeError(`Cannot serve ${JSON.stringify(server.name)}: "tools" is not an array`);
  }
  const tools = new Map<string, Tool>();
  for (const tool of server.tools) {
    const name: unknown = tool?.name;
    if (typeof name !== "string" || !TOOL_NAME.test(name)) {
      throw new TypeError(
        `Cannot serve tool ${
          describeValue(name)
        }: a tool name is 1 to 128 characters of A-Z a-z 0-9 _ - .`,
      );
    }
    if (tools.has(name)) {
      throw new TypeError(`Cannot serve two tools named ${JSON.stringify(name)}`);
    }
    if (typeof tool.description !== "string") {
      throw new TypeError(
        `Cannot serve tool ${JSON.stringify(name)}: "description" is not a string`,
      );
    }
    if (!isJsonObject(tool.inputSchema) || tool.inputSchema.type !== "object") {
      throw new TypeError(
        `Cannot serve tool ${
          JSON.stringify(name)
        }: "inputSchema" must be an object with type "object"`,
      );
    }
    // The official SDK client refuses a whole listing whose one outputSchema is not of this shape.
    if (
      tool.outputSchema !== undefined &&
      (!isJsonObject(tool.outputSchema) || tool.outputSchema.type !== "object")
    ) {
      throw new TypeError(
        `Cannot serve tool ${
          JSON.stringify(name)
        }: "outputSchema" must be an object with type "object"; leave it out for a tool ` +
          "without structured results",
      );
    }
    const shape = shapeProblem(tool);
    if (shape !== undefined) {
      throw new TypeError(`Cannot serve tool ${JSON.stringify(name)}: ${shape}`);
    }
    if (typeof tool.run !== "function") {
      throw new TypeError(`Cannot serve tool ${JSON.stringify(name)}: "run" is not a function`);
    }
    tools.set(name, tool);
  }
  return tools;
}

// What in a tool's title or annotations a client's listing decoder refuses, if anything: the
// official SDK client refuses a whole listing for one such tool.
function shapeProblem(tool: Tool): string | undefined {
  if (tool.title !== undefined && typeof tool.title !== "string") {
    return `"title" is ${describeValue(tool.title)}, not a string`;
  }
  const annotations = tool.annotations;
  if (annotations === undefined) return undefined;
  if (!isJsonObject(annotations)) {
    return `"annotations" is ${describeValue(annotations)}, not an object`;
  }
  if (annotations.title !== undefined && typeof annotations.title !== "string") {
    return `"annotations.title" is ${describeValue(annotations.title)}, not a string`;
  }
  for (const hint of HINTS) {
    const value = annotations[hint];
    if (value !== undefined && typeof value !== "boolean") {
      return `"annotations.${hint}" is ${describeValue(value)}, not a boolean`;
    }
  }
  return undefined;
}

// Private to server/: the check of a server definition that `serve()` makes
// before it reads a line; a malformed one is caller misuse (`TypeError`).

import { isJsonObject } from "../codec/json.ts";
import { describeValue } from "../codec/quote.ts";
import type { ServerDefinition, Tool } from "./tool.ts";

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

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
    if (typeof tool.run !== "function") {
      throw new TypeError(`Cannot serve tool ${JSON.stringify(name)}: "run" is not a function`);
    }
    tools.set(name, tool);
  }
  return tools;
}

/**
 * Corpus documents too large to keep as files: built here, each with its
 * expected outcome. `text` documents go through the whole decoding pipeline;
 * `tools` documents hold values no JSON text this library accepts could make.
 *
 * @module
 */

import type { ToolDescriptor } from "../../codec/protocol.ts";
import type { JsonObject, JsonValue } from "../../codec/json.ts";

/** What a corpus document must come to. */
export type Expectation = {
  outcome:
    | "generated"
    | "codec_refused"
    | "too_many_tools"
    | "tool_name_collision"
    | "surface_too_large";
  collision?: [string, string];
  whole_value?: string[];
  structured?: string[];
  /** `tool/param` whose type is not `JsonValue`, or `tool` whose plan is typed. */
  typed?: string[];
  manifest_keys_plain?: string[];
};

/** One corpus document built in code. */
export type LargeDocument =
  & { name: string; about: string; expect: Expectation }
  & ({ text: string } | { tools: ToolDescriptor[] });

const MEGABYTE = 1024 * 1024;

function nested(depth: number): JsonObject {
  let schema: JsonObject = { type: "string" };
  for (let i = 0; i < depth; i++) {
    schema = { type: "object", properties: { inner: schema }, required: ["inner"] };
  }
  return schema;
}

function floodTools(): JsonValue[] {
  const tools: JsonValue[] = [];
  for (let i = 0; i < 200; i++) {
    const properties: JsonObject = {};
    for (let j = 0; j < 40; j++) properties[`parameter_number_${j}`] = { type: "string" };
    tools.push({ name: `flood${i}`, inputSchema: { type: "object", properties } });
  }
  return tools;
}

/** The built documents, in a fixed order. */
export const LARGE_DOCUMENTS: readonly LargeDocument[] = [
  {
    name: "megabyte_description",
    about: "A 1 MB description, title and parameter description: capped, never copied whole.",
    expect: { outcome: "generated" },
    text: JSON.stringify({
      tools: [{
        name: "huge",
        title: "T".repeat(MEGABYTE),
        description: "*/ ".repeat(MEGABYTE / 3) + "end",
        inputSchema: {
          type: "object",
          properties: { p: { type: "string", description: "\u202e".repeat(MEGABYTE) } },
        },
      }],
    }),
  },
  {
    name: "deep_schema_values",
    about: "A schema nested 1,000 objects deep, as values: planned to a bounded depth.",
    expect: { outcome: "generated" },
    tools: [{ name: "deep", inputSchema: nested(1000) }],
  },
  {
    name: "deep_schema_text",
    about: "A schema nested 1,000 objects deep, as JSON text: the parser refuses it.",
    expect: { outcome: "codec_refused" },
    text: JSON.stringify({ tools: [{ name: "deep", inputSchema: nested(1000) }] }),
  },
  {
    name: "surface_flood",
    about: "200 tools of 40 parameters each: the surface passes 64 KiB.",
    expect: { outcome: "surface_too_large" },
    text: JSON.stringify({ tools: floodTools() }),
  },
];

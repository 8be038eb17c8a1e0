/**
 * An example MCP server built on `@loom/mcp/server`.
 *
 *     deno run --no-prompt --allow-ffi --allow-run examples/echo_server.ts
 *
 * `--allow-ffi` lets each tool run's own stderr (`console.error`) be
 * captured and returned with its result; `--allow-run` is for `noisy`, which
 * also runs a child. Without them the server still serves: `noisy` then
 * reports what it could not do.
 *
 * @module
 */

import { serve, type Tool } from "../server/mod.ts";

const tools: Tool[] = [
  {
    name: "echo",
    title: "Echo",
    description: "Returns the text it is given.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", description: "The text to return." } },
      required: ["text"],
    },
    annotations: { readOnlyHint: true },
    run(args) {
      if (typeof args.text !== "string") {
        return { content: [{ type: "text", text: 'echo needs a string "text"' }], isError: true };
      }
      return {
        content: [{ type: "text", text: args.text }],
        structuredContent: { text: args.text },
      };
    },
  },
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    run(args) {
      const { a, b } = args;
      if (typeof a !== "number" || typeof b !== "number") {
        return {
          content: [{ type: "text", text: 'add needs numbers "a" and "b"' }],
          isError: true,
        };
      }
      return {
        content: [{ type: "text", text: String(a + b) }],
        structuredContent: { sum: a + b },
      };
    },
  },
  {
    name: "fail",
    description: "Fails, to show what a failing tool looks like.",
    inputSchema: { type: "object", properties: {} },
    run() {
      throw new Error("fail was asked to fail");
    },
  },
  {
    name: "noisy",
    description: "Writes to stderr itself and from a child process, then answers.",
    inputSchema: { type: "object", properties: {} },
    async run(_args, context) {
      console.error("noisy: a line from the tool itself");
      context.stderr("noisy: a line through the tool context\n");
      const child = await context.output(Deno.execPath(), {
        args: ["eval", "console.error('noisy: a line from a child')"],
      });
      return child.success ? "done" : `the child failed with code ${child.code}`;
    },
  },
];

const end = await serve({ name: "echo-example", version: "1.0.0", tools });
if (end.kind === "channel_dead") Deno.exit(1);

// Private to cli/: the commands that ask servers for what is not a tool:
// `prompts`, `prompt`, `resources` and `read`. Server text (names,
// descriptions, messages, contents) is made printable before it is shown;
// with --json, one document carries what the server sent.

import type { PromptDescriptor } from "../client/prompts.ts";
import type { ContentBlock } from "../codec/protocol.ts";
import { quote } from "../codec/quote.ts";
import type { Harness } from "../harness/mod.ts";
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
import { oneLine, printable, table } from "./_render.ts";
import { withHarness } from "./_with_harness.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

type Command<Name extends CliCommand["command"]> = Extract<CliCommand, { command: Name }>;

/** The servers a command boots: the one it names, or every one. */
function serversOf(context: Context, server: string | undefined, json: boolean) {
  return server === undefined
    ? { name: undefined, specs: context.source.specs }
    : pick(context, server, json);
}

/** Says every server that failed at boot; true when one did. */
function bootFailed(harness: Harness, context: Context, json: boolean): boolean {
  if (showFailures(harness, context) === 0) return false;
  if (json) printJson(context.output, { ok: false, error: failedJson(harness) });
  return true;
}

/** `prompts [<server>]`: each prompt with its arguments. */
export async function prompts(command: Command<"prompts">, context: Context): Promise<number> {
  const picked = serversOf(context, command.server, command.json);
  if (picked === undefined) return EXIT_USAGE;
  return await withHarness(picked.specs, context.doing, async (harness) => {
    if (picked.name !== undefined && bootFailed(harness, context, command.json)) return EXIT_FAILED;
    const listed = await harness.listPrompts(picked.name);
    if (!listed.ok) return fail(context.output, command.json, listed.error, EXIT_FAILED);
    if (command.json) {
      printJson(context.output, { prompts: listed.value });
      return EXIT_OK;
    }
    if (listed.value.length === 0) {
      context.output.result("no prompts");
      return EXIT_OK;
    }
    context.output.result(table([
      ["server", "prompt", "arguments", "description"],
      ...listed.value.map((prompt) => [
        oneLine(prompt.server, 40),
        oneLine(prompt.name, 60),
        prompt.arguments.map((arg) => `${oneLine(arg.name, 40)}${arg.required ? "*" : ""}`)
          .join(" ") || "-",
        oneLine(prompt.description ?? prompt.title ?? "", 100),
      ]),
    ]));
    return EXIT_OK;
  }, progress(command, context));
}

/** `prompt <server> <name> [key=value...]`: one prompt's messages. */
export async function prompt(command: Command<"prompt">, context: Context): Promise<number> {
  const { output } = context;
  const pairs = promptPairs(command.args);
  if (typeof pairs === "string") {
    return fail(output, command.json, { kind: "invalid_arguments", message: pairs }, EXIT_USAGE);
  }
  const picked = pick(context, command.server, command.json);
  if (picked === undefined) return EXIT_USAGE;
  const server = picked.name;
  return await withHarness(picked.specs, context.doing, async (harness) => {
    if (bootFailed(harness, context, command.json)) return EXIT_FAILED;
    const listed = await harness.listPrompts(server);
    if (!listed.ok) return fail(output, command.json, listed.error, EXIT_FAILED);
    const found = listed.value.find((entry) => entry.name === command.name);
    if (found === undefined) {
      const names = listed.value.map((entry) => entry.name).join(", ") || "none";
      return fail(output, command.json, {
        kind: "unknown_prompt",
        message: `server ${quote(server)} has no prompt ${quote(command.name)}; ` +
          `its prompts: ${oneLine(names)}`,
      }, EXIT_USAGE);
    }
    const problem = argumentProblem(found, pairs);
    if (problem !== undefined) {
      return fail(
        output,
        command.json,
        { kind: "invalid_arguments", message: problem },
        EXIT_USAGE,
      );
    }
    context.doing.now = `getting prompt ${command.name} of ${server}`;
    const got = await harness.getPrompt(server, command.name, pairs);
    if (!got.ok) return fail(output, command.json, got.error, EXIT_FAILED);
    if (command.json) {
      printJson(output, { server, prompt: command.name, result: got.value });
      return EXIT_OK;
    }
    const lines = got.value.messages.map((message) =>
      `[${message.role}] ${contentText(message.content)}`
    );
    output.result(lines.length === 0 ? "(no messages)" : lines.join("\n"));
    return EXIT_OK;
  }, progress(command, context));
}

/** `resources [<server>]`: each resource, then each template. */
export async function resources(command: Command<"resources">, context: Context): Promise<number> {
  const picked = serversOf(context, command.server, command.json);
  if (picked === undefined) return EXIT_USAGE;
  return await withHarness(picked.specs, context.doing, async (harness) => {
    if (picked.name !== undefined && bootFailed(harness, context, command.json)) return EXIT_FAILED;
    const listed = await harness.listResources(picked.name);
    if (!listed.ok) return fail(context.output, command.json, listed.error, EXIT_FAILED);
    const templates = await harness.listResourceTemplates(picked.name);
    if (!templates.ok) return fail(context.output, command.json, templates.error, EXIT_FAILED);
    if (command.json) {
      printJson(context.output, { resources: listed.value, templates: templates.value });
      return EXIT_OK;
    }
    const rows = [
      ...listed.value.map((entry) => [entry.server, entry.uri, entry.name, entry.mimeType ?? ""]),
      ...templates.value.map((entry) => [
        entry.server,
        entry.uriTemplate,
        `${entry.name} (template)`,
        entry.mimeType ?? "",
      ]),
    ];
    context.output.result(
      rows.length === 0 ? "no resources" : table([
        ["server", "uri", "name", "type"],
        ...rows.map((row) => row.map((cell) => oneLine(cell, 100))),
      ]),
    );
    return EXIT_OK;
  }, progress(command, context));
}

/** `read <server> <uri>`: one resource's contents. */
export async function read(command: Command<"read">, context: Context): Promise<number> {
  const picked = pick(context, command.server, command.json);
  if (picked === undefined) return EXIT_USAGE;
  const server = picked.name;
  return await withHarness(picked.specs, context.doing, async (harness, signal) => {
    if (bootFailed(harness, context, command.json)) return EXIT_FAILED;
    context.doing.now = `reading ${command.uri} of ${server}`;
    const got = await harness.readResource(server, command.uri, { signal });
    if (!got.ok) return fail(context.output, command.json, got.error, EXIT_FAILED);
    if (command.json) {
      printJson(context.output, { server, uri: command.uri, result: got.value });
      return EXIT_OK;
    }
    const parts = got.value.contents.map((content) =>
      "text" in content
        ? printable(content.text)
        : `[blob ${oneLine(content.mimeType ?? "of no type", 60)}, ${content.blob.length} base64 ` +
          `characters, ${oneLine(content.uri, 200)}]`
    );
    context.output.result(parts.length === 0 ? "(no contents)" : parts.join("\n"));
    return EXIT_OK;
  }, progress(command, context));
}

const PAIR = /^([^=\s]+)=([\s\S]*)$/;

/** A prompt's key=value arguments (each a string, as every prompt argument is), or what is wrong. */
export function promptPairs(args: readonly string[]): Record<string, string> | string {
  const pairs: Record<string, string> = Object.create(null);
  for (const arg of args) {
    const pair = PAIR.exec(arg);
    if (pair === null) {
      return `the argument ${quote(oneLine(arg, 60))} is not key=value; write each as key=value`;
    }
    const [, key = "", value = ""] = pair;
    if (key in pairs) return `the key ${quote(key)} is given twice; keep one`;
    pairs[key] = value;
  }
  return pairs;
}

/** Why `pairs` do not fit a prompt's arguments, naming the ones it takes; undefined when they do. */
export function argumentProblem(
  prompt: PromptDescriptor,
  pairs: Readonly<Record<string, string>>,
): string | undefined {
  const takes = prompt.arguments.map((arg) => `${arg.name}${arg.required ? " (required)" : ""}`)
    .join(", ") || "none";
  const names = new Set(prompt.arguments.map((arg) => arg.name));
  const unknown = Object.keys(pairs).find((key) => !names.has(key));
  if (unknown !== undefined) {
    return `prompt ${quote(prompt.name)} has no argument ${quote(unknown)}; its arguments: ` +
      oneLine(takes);
  }
  const missing = prompt.arguments.find((arg) => arg.required === true && !(arg.name in pairs));
  if (missing !== undefined) {
    return `prompt ${quote(prompt.name)} needs ${quote(missing.name)}=...; its arguments: ` +
      oneLine(takes);
  }
  return undefined;
}

/** A message's content for a person: text as text, any other block named. */
function contentText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return printable(block.text);
    case "image":
    case "audio":
      return `[${block.type} ${oneLine(block.mimeType, 60)}]`;
    case "resource_link":
      return `[resource link ${oneLine(block.uri, 200)}]`;
    case "resource":
      return "text" in block.resource
        ? `[resource ${oneLine(block.resource.uri, 200)}]\n${printable(block.resource.text)}`
        : `[resource ${oneLine(block.resource.uri, 200)}]`;
    case "other":
      return `[${oneLine(block.originalType, 60)} block]`;
  }
}

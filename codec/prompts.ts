/**
 * Prompts and completions as a server offers them: a `prompts/list` page,
 * a `prompts/get` result and a `completion/complete` result. Every decoder is
 * total: a value, or an `invalid_result` fault naming what is wrong and
 * where.
 *
 * Strict envelope, tolerant content, as for tools: a field this library
 * relies on is checked; unknown fields are ignored; server text (names,
 * titles, descriptions, messages) is carried as the server wrote it and is
 * untrusted downstream.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "./json.ts";
import { type ContentBlock, decodeContentBlock, type ProtocolFault } from "./protocol.ts";
import { describeValue } from "./quote.ts";
import { ok, type Result } from "./result.ts";
import { decodePage, invalid } from "./_page.ts";

/** The most values a completion result may carry (the specification's own cap). */
export const MAX_COMPLETION_VALUES = 100;

/** One argument a prompt takes; every argument's value is a string. */
export type PromptArgument = {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
};

/** One prompt as a server lists it. */
export type PromptDescriptor = {
  name: string;
  title?: string;
  description?: string;
  arguments: PromptArgument[];
};

/** One `prompts/list` page. */
export type PromptsPage = { prompts: PromptDescriptor[]; nextCursor?: string };

/** One message of a prompt: who says it and what. */
export type PromptMessage = { role: "user" | "assistant"; content: ContentBlock };

/** A decoded `prompts/get` result. */
export type GetPromptResult = { description?: string; messages: PromptMessage[] };

/** What a completion refers to: a prompt by name, or a resource template by URI. */
export type CompletionReference =
  | { type: "ref/prompt"; name: string }
  | { type: "ref/resource"; uri: string };

/** A decoded `completion/complete` result. */
export type CompleteResult = { values: string[]; total?: number; hasMore?: boolean };

/**
 * Decodes a `prompts/list` page. One prompt without a non-empty string name,
 * or with arguments that are not a list of named arguments, fails the page,
 * naming its index.
 *
 * @example
 * ```ts
 * import { decodePromptsPage } from "@loom/mcp/codec";
 * const page = decodePromptsPage({ prompts: [{ name: "greet", arguments: [{ name: "who" }] }] });
 * if (page.ok) console.log(page.value.prompts[0]?.arguments.length); // 1
 * ```
 */
export function decodePromptsPage(value: JsonValue): Result<PromptsPage, ProtocolFault> {
  const where = "Cannot decode prompts/list page";
  const decoded = decodePage(where, value, "prompts", decodePrompt, "prompt");
  if (!decoded.ok) return decoded;
  const { entries, nextCursor } = decoded.value;
  return ok(nextCursor === undefined ? { prompts: entries } : { prompts: entries, nextCursor });
}

function decodePrompt(value: JsonValue): PromptDescriptor | string {
  if (!isJsonObject(value)) return `is ${describeValue(value)}, not an object`;
  const name = value.name;
  if (typeof name !== "string" || name.length === 0) {
    return `has no non-empty string "name" (it is ${describeValue(name)})`;
  }
  const list = value.arguments ?? [];
  if (!Array.isArray(list)) {
    return `${describeValue(name)} has "arguments" ${describeValue(list)}, not an array`;
  }
  const args: PromptArgument[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < list.length; index++) {
    const arg = list[index] as JsonValue;
    if (!isJsonObject(arg) || typeof arg.name !== "string" || arg.name.length === 0) {
      return `${describeValue(name)} has argument ${index} without a non-empty string "name"`;
    }
    if (seen.has(arg.name)) {
      return `${describeValue(name)} lists argument ${describeValue(arg.name)} twice`;
    }
    seen.add(arg.name);
    const out: PromptArgument = { name: arg.name };
    if (typeof arg.title === "string") out.title = arg.title;
    if (typeof arg.description === "string") out.description = arg.description;
    if (typeof arg.required === "boolean") out.required = arg.required;
    args.push(out);
  }
  const prompt: PromptDescriptor = { name, arguments: args };
  if (typeof value.title === "string") prompt.title = value.title;
  if (typeof value.description === "string") prompt.description = value.description;
  return prompt;
}

/**
 * Decodes a `prompts/get` result: its messages, each with a role of `user`
 * or `assistant` and one content block.
 *
 * @example
 * ```ts
 * import { decodeGetPromptResult } from "@loom/mcp/codec";
 * const got = decodeGetPromptResult({
 *   messages: [{ role: "user", content: { type: "text", text: "Hello" } }],
 * });
 * if (got.ok) console.log(got.value.messages[0]?.role); // user
 * ```
 */
export function decodeGetPromptResult(value: JsonValue): Result<GetPromptResult, ProtocolFault> {
  const where = "Cannot decode prompts/get result";
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  const list = value.messages;
  if (!Array.isArray(list)) {
    return invalid(`${where}: "messages" is ${describeValue(list)}, not an array`);
  }
  const messages: PromptMessage[] = [];
  for (let index = 0; index < list.length; index++) {
    const message = list[index] as JsonValue;
    if (!isJsonObject(message)) {
      return invalid(
        `${where}: message ${index} is ${describeValue(message)}, not an object`,
        index,
      );
    }
    const role = message.role;
    if (role !== "user" && role !== "assistant") {
      return invalid(
        `${where}: message ${index} has role ${describeValue(role)}, not "user" or "assistant"`,
        index,
      );
    }
    const content = decodeContentBlock(message.content as JsonValue);
    if (typeof content === "string") {
      return invalid(`${where}: message ${index}'s content ${content}`, index);
    }
    messages.push({ role, content });
  }
  const result: GetPromptResult = { messages };
  if (typeof value.description === "string") result.description = value.description;
  return ok(result);
}

/**
 * Decodes a `completion/complete` result: at most
 * {@linkcode MAX_COMPLETION_VALUES} string values, and the optional `total`
 * (never fewer than the values sent) and `hasMore`.
 *
 * @example
 * ```ts
 * import { decodeCompleteResult } from "@loom/mcp/codec";
 * const done = decodeCompleteResult({ completion: { values: ["python", "pytorch"], hasMore: true } });
 * if (done.ok) console.log(done.value.values); // ["python", "pytorch"]
 * ```
 */
export function decodeCompleteResult(value: JsonValue): Result<CompleteResult, ProtocolFault> {
  const where = "Cannot decode completion/complete result";
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  const completion = value.completion;
  if (!isJsonObject(completion)) {
    return invalid(`${where}: "completion" is ${describeValue(completion)}, not an object`);
  }
  const values = completion.values;
  if (!Array.isArray(values)) {
    return invalid(`${where}: "values" is ${describeValue(values)}, not an array`);
  }
  if (values.length > MAX_COMPLETION_VALUES) {
    return invalid(
      `${where}: it has ${values.length} values, past the ${MAX_COMPLETION_VALUES} a result may carry`,
    );
  }
  const out: string[] = [];
  for (let index = 0; index < values.length; index++) {
    const item = values[index];
    if (typeof item !== "string") {
      return invalid(`${where}: value ${index} is ${describeValue(item)}, not a string`, index);
    }
    out.push(item);
  }
  const result: CompleteResult = { values: out };
  const total = completion.total;
  if (total !== undefined) {
    if (typeof total !== "number" || !Number.isSafeInteger(total) || total < 0) {
      return invalid(`${where}: "total" is ${describeValue(total)}, not a count`);
    }
    if (total < out.length) {
      return invalid(`${where}: "total" is ${total}, fewer than the ${out.length} values it sent`);
    }
    result.total = total;
  }
  const more = completion.hasMore;
  if (more !== undefined) {
    if (typeof more !== "boolean") {
      return invalid(`${where}: "hasMore" is ${describeValue(more)}, not a boolean`);
    }
    result.hasMore = more;
  }
  return ok(result);
}

/**
 * What a server asks of a client, or tells it, beyond the answers to its
 * requests: an elicitation (`elicitation/create`, in form or URL mode), a
 * sampling request (`sampling/createMessage`), a log message
 * (`notifications/message`) and a resource update
 * (`notifications/resources/updated`). Every decoder is total: the request,
 * or a `bad_request` fault saying what is wrong, so that a client refuses a
 * malformed request instead of passing it on to a person or a model.
 *
 * A form's fields are decoded into {@linkcode ElicitField}s, the flat,
 * primitive shape the specification allows (strings, numbers, booleans and
 * choices of strings); a form that asks for anything else is refused. Server
 * text (messages, titles, descriptions, choices) is carried as written and
 * is untrusted wherever it is shown.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "./json.ts";
import { type ContentBlock, decodeContentBlock } from "./protocol.ts";
import { describeValue, quote } from "./quote.ts";
import { err, ok, type Result } from "./result.ts";

/** The most fields one elicitation form may ask for. */
export const MAX_ELICIT_FIELDS = 64;

/** The most choices one field of a form may offer. */
export const MAX_ELICIT_CHOICES = 256;

/** The most messages one sampling request may carry. */
export const MAX_SAMPLING_MESSAGES = 1_000;

/** Log levels, least severe first, as RFC 5424 and the specification name them. */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** A log level. */
export type LogLevel = typeof LOG_LEVELS[number];

/** Why a server's request or notification is refused. */
export type ServerRequestFault = { kind: "bad_request"; message: string };

/** One choice of a choice field: the value sent, and what a person reads. */
export type ElicitChoice = { value: string; title?: string };

/** What every field of a form has. */
export type ElicitFieldBase = {
  name: string;
  title?: string;
  description?: string;
  required: boolean;
};

/** One field of an elicitation form, in the shapes the specification allows. */
export type ElicitField =
  | ElicitFieldBase & {
    type: "string";
    minLength?: number;
    maxLength?: number;
    format?: string;
    default?: string;
  }
  | ElicitFieldBase & {
    type: "number" | "integer";
    minimum?: number;
    maximum?: number;
    default?: number;
  }
  | ElicitFieldBase & { type: "boolean"; default?: boolean }
  | ElicitFieldBase & { type: "choice"; choices: ElicitChoice[]; default?: string }
  | ElicitFieldBase & {
    type: "choices";
    choices: ElicitChoice[];
    minItems?: number;
    maxItems?: number;
    default?: string[];
  };

/** A decoded `elicitation/create` request. */
export type ElicitRequest =
  | {
    mode: "form";
    message: string;
    /** The schema as the server sent it, for a validator. */
    requestedSchema: JsonObject;
    fields: ElicitField[];
  }
  | {
    mode: "url";
    message: string;
    url: string;
    /** Always there in the handshake era; the 2026-07-28 shape has none. */
    elicitationId?: string;
  };

/** One message of a sampling request: who says it and what. */
export type SamplingMessage = {
  role: "user" | "assistant";
  /** One block, or several (2025-11-25); tool use and tool results are kept as `other`. */
  content: ContentBlock | ContentBlock[];
};

/** A decoded `sampling/createMessage` request. */
export type CreateMessageRequest = {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  stopSequences?: string[];
  /** Carried raw: hints and priorities the client may weigh. */
  modelPreferences?: JsonValue;
  metadata?: JsonValue;
  /** Tools the model may use (2025-11-25), raw. */
  tools?: JsonValue;
  toolChoice?: JsonValue;
};

/** A decoded `notifications/message`. */
export type LogMessage = { level: LogLevel; logger?: string; data: JsonValue };

function bad(message: string): { ok: false; error: ServerRequestFault } {
  return err({ kind: "bad_request", message });
}

function count(value: JsonValue | undefined): number | undefined | string {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    return `is ${describeValue(value)}, not a count`;
  }
  return value;
}

function finite(value: JsonValue | undefined): number | undefined | string {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return `is ${describeValue(value)}, not a number`;
  }
  return value;
}

/** Copies the counts or bounds named in `keys`, or says which one is wrong. */
function bounds(
  schema: JsonObject,
  keys: readonly string[],
  read: (value: JsonValue | undefined) => number | undefined | string,
): Record<string, number> | string {
  const out: Record<string, number> = {};
  for (const key of keys) {
    const value = read(schema[key]);
    if (typeof value === "string") return `has "${key}" that ${value}`;
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function choicesOf(list: JsonValue | undefined, titles?: JsonValue): ElicitChoice[] | string {
  if (!Array.isArray(list) || list.length === 0) return "offers no choices";
  if (list.length > MAX_ELICIT_CHOICES) {
    return `offers ${list.length} choices, past the ${MAX_ELICIT_CHOICES} a field may offer`;
  }
  const names = Array.isArray(titles) ? titles : [];
  const out: ElicitChoice[] = [];
  for (let index = 0; index < list.length; index++) {
    const item = list[index] as JsonValue;
    if (typeof item === "string") {
      const title = names[index];
      out.push(typeof title === "string" ? { value: item, title } : { value: item });
    } else if (isJsonObject(item) && typeof item.const === "string") {
      out.push(
        typeof item.title === "string"
          ? { value: item.const, title: item.title }
          : { value: item.const },
      );
    } else return `has choice ${index} that is ${describeValue(item)}, not a string`;
  }
  return out;
}

function decodeField(name: string, schema: JsonValue, required: boolean): ElicitField | string {
  if (!isJsonObject(schema)) return `is ${describeValue(schema)}, not a schema object`;
  const base: ElicitFieldBase = { name, required };
  if (typeof schema.title === "string") base.title = schema.title;
  if (typeof schema.description === "string") base.description = schema.description;
  const fallback = schema.default;
  switch (schema.type) {
    case "string": {
      if ("enum" in schema || "oneOf" in schema) {
        const choices = choicesOf(schema.enum ?? schema.oneOf, schema.enumNames);
        if (typeof choices === "string") return choices;
        const field: ElicitField = { ...base, type: "choice", choices };
        if (typeof fallback === "string") field.default = fallback;
        return field;
      }
      const limits = bounds(schema, ["minLength", "maxLength"], count);
      if (typeof limits === "string") return limits;
      const field: ElicitField = { ...base, type: "string", ...limits };
      if (typeof schema.format === "string") field.format = schema.format;
      if (typeof fallback === "string") field.default = fallback;
      return field;
    }
    case "number":
    case "integer": {
      const limits = bounds(schema, ["minimum", "maximum"], finite);
      if (typeof limits === "string") return limits;
      const field: ElicitField = { ...base, type: schema.type, ...limits };
      if (typeof fallback === "number" && Number.isFinite(fallback)) field.default = fallback;
      return field;
    }
    case "boolean": {
      const field: ElicitField = { ...base, type: "boolean" };
      if (typeof fallback === "boolean") field.default = fallback;
      return field;
    }
    case "array": {
      const items = schema.items;
      if (!isJsonObject(items)) return "is a list with no item schema";
      const choices = choicesOf(items.enum ?? items.anyOf);
      if (typeof choices === "string") return `is a list whose items ${choices}`;
      const limits = bounds(schema, ["minItems", "maxItems"], count);
      if (typeof limits === "string") return limits;
      const field: ElicitField = { ...base, type: "choices", choices, ...limits };
      if (Array.isArray(fallback) && fallback.every((item) => typeof item === "string")) {
        field.default = fallback as string[];
      }
      return field;
    }
    default:
      return `has type ${describeValue(schema.type)}, not one a form may ask for ` +
        `("string", "number", "integer", "boolean" or "array" of choices)`;
  }
}

function decodeForm(
  message: string,
  schema: JsonValue | undefined,
): Result<ElicitRequest, ServerRequestFault> {
  const where = "Cannot accept elicitation/create";
  if (!isJsonObject(schema)) {
    return bad(`${where}: "requestedSchema" is ${describeValue(schema)}, not an object`);
  }
  if (schema.type !== undefined && schema.type !== "object") {
    return bad(`${where}: "requestedSchema" has type ${describeValue(schema.type)}, not "object"`);
  }
  const properties = schema.properties ?? {};
  if (!isJsonObject(properties)) {
    return bad(`${where}: "properties" is ${describeValue(properties)}, not an object`);
  }
  const names = Object.keys(properties);
  if (names.length > MAX_ELICIT_FIELDS) {
    return bad(`${where}: it asks for ${names.length} fields, past ${MAX_ELICIT_FIELDS}`);
  }
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) {
    return bad(`${where}: "required" is ${describeValue(required)}, not a list of names`);
  }
  const unknown = required.find((name) => !names.includes(name as string));
  if (unknown !== undefined) {
    return bad(`${where}: "required" names ${describeValue(unknown)}, which is not a field`);
  }
  const fields: ElicitField[] = [];
  for (const name of names) {
    const field = decodeField(name, properties[name] as JsonValue, required.includes(name));
    if (typeof field === "string") return bad(`${where}: field ${describeValue(name)} ${field}`);
    fields.push(field);
  }
  return ok({ mode: "form", message, requestedSchema: schema, fields });
}

/**
 * Decodes the params of an `elicitation/create` request. A form (no `mode`,
 * or `"form"`) must ask only for flat, primitive fields; a URL request must
 * carry an `http:` or `https:` URL with no user name or password in it
 * (`https://bank.example@evil.example/` leads to `evil.example`) and an
 * `elicitationId` (one the 2026-07-28 shape may leave out, when
 * `options.elicitationId` is `"optional"`), and its URL is handed on as
 * parsed (`URL.href`), the one a browser would open.
 *
 * @example
 * ```ts
 * import { decodeElicitRequest } from "@loom/mcp/codec";
 * const asked = decodeElicitRequest({
 *   message: "Your name?",
 *   requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
 * });
 * if (asked.ok && asked.value.mode === "form") console.log(asked.value.fields[0]?.required); // true
 * ```
 */
export function decodeElicitRequest(
  params: JsonValue | undefined,
  options: { elicitationId?: "required" | "optional" } = {},
): Result<ElicitRequest, ServerRequestFault> {
  const where = "Cannot accept elicitation/create";
  if (!isJsonObject(params)) return bad(`${where}: its params are ${describeValue(params)}`);
  const message = params.message;
  if (typeof message !== "string") {
    return bad(`${where}: "message" is ${describeValue(message)}, not a string`);
  }
  const mode = params.mode ?? "form";
  if (mode === "form") return decodeForm(message, params.requestedSchema);
  if (mode !== "url") {
    return bad(`${where}: "mode" is ${describeValue(mode)}, not "form" or "url"`);
  }
  const { url, elicitationId } = params;
  const absent = elicitationId === undefined && options.elicitationId === "optional";
  if (!absent && (typeof elicitationId !== "string" || elicitationId === "")) {
    return bad(`${where}: "elicitationId" is ${describeValue(elicitationId)}, not a string`);
  }
  if (typeof url !== "string" || !URL.canParse(url)) {
    return bad(`${where}: "url" is ${describeValue(url)}, not a URL`);
  }
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return bad(
      `${where}: the URL's scheme is ${describeValue(parsed.protocol)}, not https: or http:`,
    );
  }
  // `https://accounts.example@evil.example/` leads to evil.example: a name or
  // password before the host makes a link read as another site's, and a URL
  // to visit must carry no credentials (the specification's words).
  if (parsed.username !== "" || parsed.password !== "") {
    return bad(
      `${where}: the URL carries a user name or password before its host ` +
        `(${quote(parsed.host)}), which makes it read as another site's; it is not shown`,
    );
  }
  // As parsed: the tabs and line breaks a parser drops, which could make the
  // text shown differ from where it leads, are gone.
  const asked: ElicitRequest = { mode: "url", message, url: parsed.href };
  if (typeof elicitationId === "string") asked.elicitationId = elicitationId;
  return ok(asked);
}

function samplingMessage(value: JsonValue, index: number): SamplingMessage | string {
  if (!isJsonObject(value)) return `message ${index} is ${describeValue(value)}, not an object`;
  const role = value.role;
  if (role !== "user" && role !== "assistant") {
    return `message ${index} has role ${describeValue(role)}, not "user" or "assistant"`;
  }
  const raw = value.content;
  const blocks = Array.isArray(raw) ? raw : [raw as JsonValue];
  const content: ContentBlock[] = [];
  for (const block of blocks) {
    const decoded = decodeContentBlock(block as JsonValue);
    if (typeof decoded === "string") return `message ${index}'s content ${decoded}`;
    content.push(decoded);
  }
  return { role, content: Array.isArray(raw) ? content : content[0]! };
}

/**
 * Decodes the params of a `sampling/createMessage` request: its messages,
 * `maxTokens`, and the optional fields the specification names (tools and
 * preferences raw).
 *
 * @example
 * ```ts
 * import { decodeCreateMessageRequest } from "@loom/mcp/codec";
 * const asked = decodeCreateMessageRequest({
 *   messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
 *   maxTokens: 100,
 * });
 * if (asked.ok) console.log(asked.value.maxTokens); // 100
 * ```
 */
export function decodeCreateMessageRequest(
  params: JsonValue | undefined,
): Result<CreateMessageRequest, ServerRequestFault> {
  const where = "Cannot accept sampling/createMessage";
  if (!isJsonObject(params)) return bad(`${where}: its params are ${describeValue(params)}`);
  const list = params.messages;
  if (!Array.isArray(list)) {
    return bad(`${where}: "messages" is ${describeValue(list)}, not an array`);
  }
  if (list.length > MAX_SAMPLING_MESSAGES) {
    return bad(`${where}: it carries ${list.length} messages, past ${MAX_SAMPLING_MESSAGES}`);
  }
  const messages: SamplingMessage[] = [];
  for (let index = 0; index < list.length; index++) {
    const message = samplingMessage(list[index] as JsonValue, index);
    if (typeof message === "string") return bad(`${where}: ${message}`);
    messages.push(message);
  }
  const maxTokens = params.maxTokens;
  if (typeof maxTokens !== "number" || !Number.isSafeInteger(maxTokens) || maxTokens < 1) {
    return bad(`${where}: "maxTokens" is ${describeValue(maxTokens)}, not a positive integer`);
  }
  const request: CreateMessageRequest = { messages, maxTokens };
  if (params.systemPrompt !== undefined) {
    if (typeof params.systemPrompt !== "string") {
      return bad(`${where}: "systemPrompt" is ${describeValue(params.systemPrompt)}`);
    }
    request.systemPrompt = params.systemPrompt;
  }
  const context = params.includeContext;
  if (context !== undefined) {
    if (context !== "none" && context !== "thisServer" && context !== "allServers") {
      return bad(`${where}: "includeContext" is ${describeValue(context)}`);
    }
    request.includeContext = context;
  }
  const temperature = finite(params.temperature);
  if (typeof temperature === "string") return bad(`${where}: "temperature" ${temperature}`);
  if (temperature !== undefined) request.temperature = temperature;
  const stops = params.stopSequences;
  if (stops !== undefined) {
    if (!Array.isArray(stops) || !stops.every((stop) => typeof stop === "string")) {
      return bad(`${where}: "stopSequences" is ${describeValue(stops)}, not a list of strings`);
    }
    request.stopSequences = stops as string[];
  }
  for (const key of ["modelPreferences", "metadata", "tools", "toolChoice"] as const) {
    if (key in params) request[key] = params[key] as JsonValue;
  }
  return ok(request);
}

/**
 * Decodes the params of a `notifications/message`: a known level, an
 * optional logger name, and any JSON data.
 *
 * @example
 * ```ts
 * import { decodeLogMessage } from "@loom/mcp/codec";
 * const log = decodeLogMessage({ level: "info", logger: "db", data: "connected" });
 * if (log.ok) console.log(log.value.level); // info
 * ```
 */
export function decodeLogMessage(
  params: JsonValue | undefined,
): Result<LogMessage, ServerRequestFault> {
  const where = "Cannot accept notifications/message";
  if (!isJsonObject(params)) return bad(`${where}: its params are ${describeValue(params)}`);
  const level = params.level;
  if (!isLogLevel(level)) {
    return bad(`${where}: "level" is ${describeValue(level)}, not a log level`);
  }
  const out: LogMessage = { level, data: (params.data ?? null) as JsonValue };
  if (params.logger !== undefined) {
    if (typeof params.logger !== "string") {
      return bad(`${where}: "logger" is ${describeValue(params.logger)}, not a string`);
    }
    out.logger = params.logger;
  }
  return ok(out);
}

/**
 * Tells whether a value names a log level.
 *
 * @example
 * ```ts
 * import { isLogLevel } from "@loom/mcp/codec";
 * console.log(isLogLevel("warning"), isLogLevel("warn")); // true false
 * ```
 */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * Decodes the params of a `notifications/resources/updated`: the URI of the
 * resource that changed.
 *
 * @example
 * ```ts
 * import { decodeResourceUpdated } from "@loom/mcp/codec";
 * console.log(decodeResourceUpdated({ uri: "file:///a.txt" })); // { ok: true, value: "file:///a.txt" }
 * ```
 */
export function decodeResourceUpdated(
  params: JsonValue | undefined,
): Result<string, ServerRequestFault> {
  if (!isJsonObject(params) || typeof params.uri !== "string" || params.uri === "") {
    return bad(
      `Cannot accept notifications/resources/updated: it names no resource URI ` +
        `(its params are ${describeValue(params)})`,
    );
  }
  return ok(params.uri);
}

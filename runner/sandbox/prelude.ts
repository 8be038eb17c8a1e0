/**
 * The sandbox room's worker prelude: the module the bootstrap starts as a Web
 * Worker inside the sandbox process. It installs the capability channel,
 * routes the program's console to the bootstrap, takes away what would
 * compile a string past V8's ban (Workers, Node's built-in modules through
 * `process`, the runtime's internals), waits for the bootstrap's
 * `start` (it is loaded before its program exists), then imports the program
 * and reports how it ended.
 *
 * It runs only inside the sandbox: the runner writes it as JavaScript
 * (`prelude.js`, made by `deno task generate`, `tags.ts` folded in, carried in
 * `_generated/sandbox_sources.ts`) into the build root beside `cap.js` and
 * `tools.js`, which its imports of `./cap.ts` and `./tools.ts` are renamed to,
 * as they resolve to `runner/sandbox/` here. Like every file of this folder,
 * it imports nothing outside it.
 *
 * Messages to the bootstrap are plain data with a `kind`: `call`, `read` (of
 * a resource, by its URI), `discover` (a request of `tools.ts`), `log`,
 * `done`, `threw`, `exited`. Values cross in the tagged form of `tags.ts`, so
 * that what JSON cannot say reaches the host intact enough to be refused
 * there with its path. A reply from the host arrives as the line the host
 * wrote, parsed here once.
 *
 * @module
 */

import { type CapReply, installChannel, type JsonObject } from "./cap.ts";
import { TAG, type TagName, TAGS, UNREPRESENTABLE } from "./tags.ts";
import { type DiscoveryReply, type DiscoveryRequest, installDiscovery } from "./tools.ts";

type Scope = {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
};

/**
 * Program nesting past this travels as a `too_deep` tag. The host takes such a
 * tag only this deep or deeper (`MIN_TOO_DEEP_DEPTH` of `runner/host/_tagged.ts`,
 * one past the interchange's `MAX_JSON_DEPTH`), where its container is refused.
 */
const MAX_VALUE_DEPTH = 257;

const scope = globalThis as unknown as Scope;
const post = scope.postMessage.bind(scope);
const objectKeys = Object.keys;
const hasOwn = Object.hasOwn;
const parse = JSON.parse;
const getPrototypeOf = Object.getPrototypeOf;
const isArray = Array.isArray;
const inspect = Deno.inspect;

type Encoded = null | boolean | number | string | Encoded[] | { [key: string]: Encoded };

function tag(name: TagName, fields: { [key: string]: Encoded } = {}): Encoded {
  return { [TAG]: name, ...fields };
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return btoa(binary);
}

function encode(value: unknown, ancestors: object[] = []): Encoded {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : tag(TAGS.number, { v: String(value) });
    case "bigint":
      return tag(TAGS.bigint, { v: value.toString() });
    case "undefined":
      return tag(TAGS.undefined);
    case "function":
      return tag(TAGS.function, { name: functionName(value) });
    case "symbol":
      return tag(TAGS.symbol, { v: String(value.description ?? "") });
  }
  if (value === null) return null;
  const object = value as object;
  const seen = ancestors.indexOf(object);
  if (seen >= 0) return tag(TAGS.cycle, { up: ancestors.length - seen });
  if (ancestors.length >= MAX_VALUE_DEPTH) return tag(TAGS.too_deep);
  ancestors.push(object);
  try {
    return encodeObject(object, ancestors);
  } catch (error) {
    return tag(TAGS.unreadable, { message: describe(error) });
  } finally {
    ancestors.pop();
  }
}

function encodeObject(object: object, ancestors: object[]): Encoded {
  if (isArray(object)) {
    const items: Encoded[] = [];
    for (let index = 0; index < object.length; index++) {
      items.push(encode(object[index], ancestors));
    }
    if (getPrototypeOf(object) === Array.prototype) return items;
    return tag(TAGS.instance, { name: constructorName(object), array: items });
  }
  if (object instanceof Map) {
    const entries: Encoded[] = [];
    for (const [key, item] of object) {
      entries.push([encode(key, ancestors), encode(item, ancestors)]);
    }
    return tag(TAGS.map, { entries });
  }
  if (object instanceof Set) {
    const values: Encoded[] = [];
    for (const item of object) values.push(encode(item, ancestors));
    return tag(TAGS.set, { values });
  }
  if (object instanceof Date) {
    const time = object.getTime();
    return tag(TAGS.date, { v: Number.isFinite(time) ? time : null });
  }
  if (object instanceof ArrayBuffer) {
    return tag(TAGS.binary, { name: "ArrayBuffer", base64: base64(new Uint8Array(object)) });
  }
  if (ArrayBuffer.isView(object)) {
    const bytes = new Uint8Array(object.buffer, object.byteOffset, object.byteLength);
    return tag(TAGS.binary, { name: constructorName(object), base64: base64(bytes) });
  }
  const proto = getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) {
    return tag(TAGS.instance, { name: constructorName(object) });
  }
  if (Object.getOwnPropertySymbols(object).length > 0) return tag(TAGS.symbol_keys);
  const record = object as Record<string, unknown>;
  const keys = objectKeys(record);
  if (keys.includes(TAG)) {
    const entries: Encoded[] = [];
    for (const key of keys) entries.push([key, encode(record[key], ancestors)]);
    return tag(TAGS.object, { entries });
  }
  const out: { [key: string]: Encoded } = {};
  for (const key of keys) out[key] = encode(record[key], ancestors);
  return out;
}

/** A function's name, or "" when reading it throws (a getter of the program's). */
function functionName(fn: { name?: unknown }): string {
  try {
    return String(fn.name);
  } catch {
    return "";
  }
}

function constructorName(object: object): string {
  try {
    const name = (object.constructor as { name?: unknown } | undefined)?.name;
    return typeof name === "string" ? name : "";
  } catch {
    return "";
  }
}

function marker(what: string): { [key: string]: string } {
  return { [UNREPRESENTABLE]: what };
}

function describeInstance(object: object): string {
  const name = constructorName(object) || "an anonymous class";
  if (object instanceof Map) return `instance of ${name} (${object.size} entries)`;
  if (object instanceof Set) return `instance of ${name} (${object.size} members)`;
  if (object instanceof ArrayBuffer) return `instance of ${name} (${object.byteLength} bytes)`;
  if (ArrayBuffer.isView(object)) return `instance of ${name} (${object.byteLength} bytes)`;
  if (object instanceof Error) return `instance of ${name}: ${describe(object)}`;
  return `instance of ${name}`;
}

/**
 * What a program's result (or a logged value) becomes before it crosses, as
 * `JSON.stringify` would see it, but never silently: `toJSON` is honoured (a
 * `ToolResult` becomes `{ content, structuredContent?, text }`, a Date its ISO
 * string), bigints stay exact, an `undefined` property is absent, and
 * whatever else JSON cannot say becomes a marker naming it:
 * `{ "$unrepresentable": "instance of Map (2 entries)" }`.
 */
function crossing(value: unknown, ancestors: object[] = [], key = ""): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "bigint":
    case "undefined":
      return value;
    case "number":
      return Number.isFinite(value) ? value : marker(`number ${value}`);
    case "function":
      return marker(`function ${functionName(value) || "(anonymous)"}`);
    case "symbol":
      return marker(`symbol ${String(value.description ?? "")}`);
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.includes(object)) return marker("cycle: a reference to an enclosing value");
  if (ancestors.length >= MAX_VALUE_DEPTH) {
    return marker(`value nested deeper than ${MAX_VALUE_DEPTH} levels`);
  }
  ancestors.push(object);
  try {
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return crossing(toJSON.call(object, key), ancestors, key);
    if (isArray(object)) {
      const items: unknown[] = [];
      for (let index = 0; index < object.length; index++) {
        const item = crossing(object[index], ancestors, String(index));
        items.push(item === undefined ? marker("undefined") : item);
      }
      return items;
    }
    const proto = getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) return marker(describeInstance(object));
    const record = object as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const name of objectKeys(record)) {
      const item = crossing(record[name], ancestors, name);
      if (item !== undefined) {
        Object.defineProperty(out, name, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return out;
  } catch (error) {
    return marker(`unreadable: ${describe(error)}`);
  } finally {
    ancestors.pop();
  }
}

// Whether a parsed reply holds no tagged node, as most do: then it is already
// what `decode` would copy it into, and is taken as it is.
function untagged(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (isArray(value)) {
    for (const item of value) if (!untagged(item)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  if (hasOwn(record, TAG)) return false;
  for (const key of objectKeys(record)) if (!untagged(record[key])) return false;
  return true;
}

/** Rebuilds a host reply: JSON with bigints tagged (and objects holding the tag key wrapped). */
function decode(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isArray(value)) return value.map(decode);
  const record = value as Record<string, unknown>;
  if (record[TAG] === TAGS.bigint && typeof record.v === "string") return BigInt(record.v);
  const entries: unknown[] = record[TAG] === TAGS.object && isArray(record.entries)
    ? record.entries
    : objectKeys(record).map((key) => [key, record[key]]);
  const out: Record<string, unknown> = {};
  for (const entry of entries) {
    if (!isArray(entry) || typeof entry[0] !== "string") continue;
    Object.defineProperty(out, entry[0], {
      value: decode(entry[1]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return "(unprintable)";
  }
}

// A logged value with `toJSON` (a ToolResult) shows what it is as JSON; a Date
// keeps its own rendering, and anything else is inspected as it is.
function loggable(arg: unknown): unknown {
  if (typeof arg !== "object" || arg === null || arg instanceof Date) return arg;
  return typeof (arg as { toJSON?: unknown }).toJSON === "function" ? crossing(arg) : arg;
}

function render(args: unknown[]): string {
  const parts: string[] = [];
  for (const arg of args) {
    try {
      parts.push(
        typeof arg === "string" ? arg : inspect(loggable(arg), { colors: false, depth: 4 }),
      );
    } catch (error) {
      parts.push(`(unprintable: ${describe(error)})`);
    }
  }
  return parts.join(" ");
}

// Calls and discovery requests share one id space: each reply names its id.
const pending = new Map<number, (reply: unknown) => void>();
let nextId = 0;

function channel(server: string, tool: string, args: JsonObject): Promise<CapReply> {
  const id = nextId++;
  const reply = new Promise<CapReply>((resolve) =>
    pending.set(id, (value) => resolve(value as CapReply))
  );
  post({ kind: "call", id, server, tool, args: encode(args) });
  return reply;
}

function read(server: string, uri: string): Promise<CapReply> {
  const id = nextId++;
  const reply = new Promise<CapReply>((resolve) =>
    pending.set(id, (value) => resolve(value as CapReply))
  );
  post({ kind: "read", id, server, uri });
  return reply;
}

function discover(request: DiscoveryRequest): Promise<DiscoveryReply> {
  const id = nextId++;
  const reply = new Promise<DiscoveryReply>((resolve) =>
    pending.set(id, (value) => resolve(value as DiscoveryReply))
  );
  post({ kind: "discover", id, request: encode(request) });
  return reply;
}

let start: () => void = () => {};
const started = new Promise<void>((resolve) => start = resolve);

// The bootstrap posts `start` as an object, and each reply as the host's line.
scope.addEventListener("message", (event: MessageEvent) => {
  let data: { kind?: unknown; id?: unknown; reply?: unknown } | null;
  try {
    data = typeof event.data === "string" ? parse(event.data) : event.data;
  } catch {
    return;
  }
  if (data === null || typeof data !== "object") return;
  if (data.kind === "start") return start();
  if (data.kind !== "reply") return;
  if (typeof data.id !== "number") return;
  const resolve = pending.get(data.id);
  if (resolve === undefined) return;
  pending.delete(data.id);
  resolve(untagged(data.reply) ? data.reply : decode(data.reply));
});

installChannel(channel, { read });
installDiscovery(discover);

// The Cache API writes to disk whatever the permissions say (the sandbox's
// DENO_DIR is also made unwritable): a program has no use for it.
for (const name of ["caches", "CacheStorage", "Cache"]) {
  Reflect.deleteProperty(globalThis, name);
}

// V8's ban on code from strings (the sandbox's flag) stops eval and Function
// alone: node:vm, node:worker_threads (eval: true), node:module's require,
// node:repl, node:inspector and the runtime's internals
// (`Deno[Deno.internal].core.evalContext`) compile a string past it. A
// program may import no Node module (the runner refuses every `node:`
// import before it runs), so Node's global `process` loads none either, and
// the internals are taken off `Deno`.
const NotCapable = Deno.errors.NotCapable;
function getBuiltinModule(id: unknown): never {
  const named = typeof id === "string" ? JSON.stringify(id.slice(0, 80)) : `a ${typeof id}`;
  throw new NotCapable(
    `Cannot load the built-in module ${named} in a program: a program may import only its ` +
      "servers' modules; reach files, processes and the network through a server's tool",
  );
}
const nodeProcess = (globalThis as { process?: object }).process;
if (nodeProcess !== undefined) {
  Object.defineProperty(nodeProcess, "getBuiltinModule", {
    value: getBuiltinModule,
    writable: true,
    configurable: true,
    enumerable: true,
  });
}
// A Worker runs code made from a string (a `data:` or `blob:` URL) with none
// of this prelude (Node's module loader answers inside it): a program starts
// none (the checker's world has no Worker).
function Worker(): never {
  throw new NotCapable(
    "Cannot start a Worker in a program: a Worker would run code made from a string; " +
      "run work concurrently with Promise.all",
  );
}
Object.defineProperty(globalThis, "Worker", {
  value: Worker,
  writable: true,
  configurable: true,
  enumerable: false,
});
// The runtime's types do not declare the symbol its internals hang on.
const internals = (Deno as unknown as { internal?: unknown }).internal;
if (typeof internals === "symbol") Reflect.deleteProperty(Deno, internals);

// `Deno.exit` in a Worker ends only the Worker, which would read as a return:
// the bootstrap is told the code first, and ends the sandbox with the run.
const exitWorker = Deno.exit;
function exit(code?: number): never {
  const given = code ?? Deno.exitCode;
  const status = typeof given === "number" && Number.isInteger(given) ? given & 0xff : 1;
  post({ kind: "exited", code: status });
  return exitWorker(status);
}
Object.defineProperty(Deno, "exit", {
  value: exit,
  writable: true,
  configurable: true,
  enumerable: true,
});

function log(...args: unknown[]): void {
  post({ kind: "log", text: render(args) });
}

const counts = new Map<string, number>();
const relay = {
  log,
  info: log,
  debug: log,
  warn: log,
  error: log,
  trace: log,
  dir: (value: unknown): void => log(value),
  dirxml: log,
  table: (value: unknown): void => log(value),
  assert: (condition: unknown, ...args: unknown[]): void => {
    if (!condition) log("Assertion failed", ...args);
  },
  count: (label = "default"): void => {
    const count = (counts.get(label) ?? 0) + 1;
    counts.set(label, count);
    log(`${label}: ${count}`);
  },
  countReset: (label = "default"): void => void counts.delete(label),
  group: log,
  groupCollapsed: log,
  groupEnd: (): void => {},
  time: (): void => {},
  timeLog: (): void => {},
  timeEnd: (): void => {},
  clear: (): void => {},
};
Object.defineProperty(globalThis, "console", {
  value: relay,
  writable: true,
  configurable: true,
  enumerable: false,
});

function errorFields(error: unknown): { name: string; message: string; stack: string } {
  if (error instanceof Error) {
    let name = "Error";
    let stack = "";
    try {
      name = String(error.name);
      stack = typeof error.stack === "string" ? error.stack : "";
    } catch {
      // A hostile getter: the message alone still says something.
    }
    return { name, message: describe(error), stack };
  }
  return { name: "NonErrorThrown", message: render([error]), stack: "" };
}

// Started ahead of its program: loaded now, and the bootstrap says "start"
// once the host has written `program.ts` into the build root and handed over
// the nonce.
post({ kind: "ready" });
await started;
try {
  // A variable specifier: the program exists only in the build root.
  const entry = "./program.ts";
  const program: { default?: unknown } = await import(entry);
  let value = program.default;
  if (value !== null && (typeof value === "object" || typeof value === "function")) {
    const then = (value as { then?: unknown }).then;
    if (typeof then === "function") value = await value;
  }
  post({ kind: "done", value: encode(crossing(value)) });
} catch (error) {
  post({ kind: "threw", ...errorFields(error) });
}

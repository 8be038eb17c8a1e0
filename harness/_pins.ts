// Private to harness/: pinned tool definitions. Each exposed tool's definition
// (its name, title, description, input and output schemas and annotations)
// is digested when it is first listed and trusted as that digest from then
// on; a later listing (a re-listing, or a boot with the pins a harness kept)
// that brings another digest for the name is a change the harness decides on
// (`onToolsChanged`), never adopted silently. What it decides is the pins:
// the digest trusted for each name. A tool the server stopped listing keeps
// its pin, marked removed, so that a tool that comes back changed is a
// change, not a new tool trusted on sight.

import { isJsonObject, type JsonValue } from "../codec/json.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { sha256Hex } from "../codegen/names.ts";
import type { PinSet, ToolsChange, ToolsDecision } from "./types.ts";

/** The version of the pin set's JSON shape this library writes and reads. */
export const PINS_VERSION = 1;

/** One server's pins: the trusted digest of each tool's name. */
export type Pins = Map<string, { digest: string; removed: boolean }>;

const DIGEST = /^sha256:[0-9a-f]{64}$/;

// JSON with its object keys in order: one definition, one text, one digest.
function canonical(value: JsonValue | undefined): string {
  if (value === undefined) return "null";
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
}

const digests = new WeakMap<ToolDescriptor, string>();

/** The digest of what a tool's definition says, as a pin holds it. */
export function definitionDigest(tool: ToolDescriptor): string {
  const known = digests.get(tool);
  if (known !== undefined) return known;
  const definition = canonical({
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  });
  const digest = `sha256:${sha256Hex(definition)}`;
  digests.set(tool, digest);
  return digest;
}

/** The pins of a first listing: every tool trusted as listed. */
export function firstPins(tools: readonly ToolDescriptor[]): Pins {
  return new Map(
    tools.map((tool) => [tool.name, { digest: definitionDigest(tool), removed: false }]),
  );
}

/**
 * What a listing changes against the pins, `undefined` when nothing: of the
 * tools `allowed`, those new and those changed; of the pins, those of tools
 * no longer `listed` at all (a tool the lists now leave out is not removed).
 */
export function changesOf(
  server: string,
  pins: Pins,
  allowed: readonly ToolDescriptor[],
  listed: ReadonlySet<string>,
  cause: ToolsChange["cause"],
): ToolsChange | undefined {
  const added: ToolDescriptor[] = [];
  const changed: ToolDescriptor[] = [];
  for (const tool of allowed) {
    const pin = pins.get(tool.name);
    if (pin === undefined) added.push(tool);
    else if (pin.digest !== definitionDigest(tool)) changed.push(tool);
  }
  const removed = [...pins].filter(([name, pin]) => !pin.removed && !listed.has(name))
    .map(([name]) => name);
  if (added.length + changed.length + removed.length === 0) return undefined;
  return { server, cause, added, removed, changed };
}

/**
 * Applies a decision to the pins: the names it accepts take their new
 * digest (a removed one its mark). With no decision, added and removed tools
 * are accepted and changed ones are not.
 */
export function applyDecision(pins: Pins, change: ToolsChange, decision: ToolsDecision): void {
  const accepted = (name: string, byDefault: boolean): boolean => {
    if (decision === true) return true;
    if (decision === false) return false;
    if (decision === undefined) return byDefault;
    return decision.accept.includes(name);
  };
  for (const tool of change.added) {
    if (accepted(tool.name, true)) {
      pins.set(tool.name, { digest: definitionDigest(tool), removed: false });
    }
  }
  for (const tool of change.changed) {
    if (accepted(tool.name, false)) {
      pins.set(tool.name, { digest: definitionDigest(tool), removed: false });
    }
  }
  for (const name of change.removed) {
    const pin = pins.get(name);
    if (pin !== undefined && accepted(name, true)) pins.set(name, { ...pin, removed: true });
  }
}

/** A tool listed again as its pin trusts it is no longer marked removed. */
export function relisted(pins: Pins, tools: readonly ToolDescriptor[]): void {
  for (const tool of tools) {
    const pin = pins.get(tool.name);
    if (pin?.removed === true && pin.digest === definitionDigest(tool)) {
      pins.set(tool.name, { digest: pin.digest, removed: false });
    }
  }
}

/** Whether a listed tool is the one its pin trusts. */
export function trusted(pins: Pins, tool: ToolDescriptor): boolean {
  return pins.get(tool.name)?.digest === definitionDigest(tool);
}

/** What `onToolsChanged` answered, read as a decision; anything else is no decision. */
export function readDecision(value: unknown): ToolsDecision {
  if (typeof value === "boolean") return value;
  if (isJsonObject(value as JsonValue) && Array.isArray((value as { accept?: unknown }).accept)) {
    const names = (value as { accept: unknown[] }).accept.filter((name) =>
      typeof name === "string"
    );
    return { accept: names as string[] };
  }
  return undefined;
}

/** Every server's pins as JSON data. */
export function encodePins(servers: ReadonlyMap<string, Pins>): PinSet {
  const out: PinSet = { version: PINS_VERSION, servers: {} };
  for (const [server, pins] of servers) {
    const tools: PinSet["servers"][string] = {};
    for (const [name, pin] of [...pins].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
      Object.defineProperty(tools, name, {
        value: pin.removed ? { digest: pin.digest, removed: true } : { digest: pin.digest },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    Object.defineProperty(out.servers, server, {
      value: tools,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Reads a pin set a harness kept (`harness.pins()`, perhaps through a file). */
export function decodePins(value: unknown): Result<Map<string, Pins>, string> {
  const where = "Cannot read the pins";
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return err(`${where}: the text is not JSON`);
    }
  }
  if (!isRecord(value) || value.version !== PINS_VERSION || !isRecord(value.servers)) {
    return err(
      `${where}: expected { version: ${PINS_VERSION}, servers: { ... } } as harness.pins() gives`,
    );
  }
  const servers = new Map<string, Pins>();
  for (const [server, tools] of Object.entries(value.servers)) {
    if (!isRecord(tools)) {
      return err(`${where}: the pins of server ${JSON.stringify(server)} are not an object`);
    }
    const pins: Pins = new Map();
    for (const [name, pin] of Object.entries(tools)) {
      if (!isRecord(pin) || typeof pin.digest !== "string" || !DIGEST.test(pin.digest)) {
        return err(
          `${where}: the pin of tool ${JSON.stringify(name)} of server ${
            JSON.stringify(server)
          } has no sha256 digest`,
        );
      }
      pins.set(name, { digest: pin.digest, removed: pin.removed === true });
    }
    servers.set(server, pins);
  }
  return ok(servers);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

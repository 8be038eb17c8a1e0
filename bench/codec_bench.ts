// Framing and decoding throughput of the codec, beside the runtime's own
// parser on the same bytes. Run: deno bench -A bench/codec_bench.ts
// Each bench name carries its byte count; MB/s = bytes / mean time.

import {
  decodeInbound,
  encodeResult,
  frame,
  type JsonValue,
  LineDecoder,
  MAX_JSON_DEPTH,
  MAX_LINE_BYTES,
  parseJson,
} from "../codec/mod.ts";
import { joinBytes } from "../codec/_bytes.ts";

const MESSAGES = 10_000;

// A typical tools/call response: a text block and some structured content.
function toolResult(id: number): JsonValue {
  return encodeResult(id, {
    content: [{
      type: "text",
      text:
        `Weather for city ${id}: partly cloudy, 22.5 °C, humidity 65 %, wind 12 km/h from the north-west.`,
    }],
    structuredContent: {
      city: `city-${id}`,
      temperature: 22.5,
      humidity: 65,
      conditions: "partly cloudy",
    },
    isError: false,
  });
}

function concat(parts: Uint8Array[]): Uint8Array {
  return joinBytes(parts, parts.reduce((sum, part) => sum + part.length, 0));
}

function chunked(data: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < data.length; start += size) {
    chunks.push(data.subarray(start, start + size));
  }
  return chunks;
}

// One result just under MAX_LINE_BYTES: many small rows, as a large listing is.
function hugeResult(): Uint8Array {
  const rows: JsonValue[] = [];
  const row = (index: number): JsonValue => ({
    id: index,
    name: `row-${index}`,
    tags: ["alpha", "beta"],
    score: index / 7,
    ok: index % 2 === 0,
  });
  const size = new TextEncoder().encode(JSON.stringify(row(1_000_000))).length + 1;
  const count = Math.floor((MAX_LINE_BYTES - 1024) / size);
  for (let index = 0; index < count; index++) rows.push(row(1_000_000 + index));
  return frame(encodeResult(1, { content: [], structuredContent: { rows }, isError: false }));
}

const smallWire = concat(Array.from({ length: MESSAGES }, (_, index) => frame(toolResult(index))));
const smallChunks = chunked(smallWire, 64 * 1024);
const hugeWire = hugeResult();
const hugeChunks4k = chunked(hugeWire, 4 * 1024);
const hugeChunks64k = chunked(hugeWire, 64 * 1024);
const smallLines = new TextDecoder().decode(smallWire).split("\n").filter((line) => line !== "");

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

// The codec's path: LineDecoder over the chunks, decodeInbound on each line.
function codec(chunks: Uint8Array[]): number {
  const decoder = new LineDecoder();
  let count = 0;
  for (const chunk of chunks) {
    const lines = decoder.push(chunk);
    if (!lines.ok) throw new Error(lines.error.message);
    for (const line of lines.value) {
      const message = decodeInbound(line);
      if (!message.ok) throw new Error(message.error.message);
      count++;
    }
  }
  return count;
}

// Framing alone, then the built-in parser: what the codec adds beyond parsing.
function framingOnly(chunks: Uint8Array[]): number {
  const decoder = new LineDecoder();
  let count = 0;
  for (const chunk of chunks) {
    const lines = decoder.push(chunk);
    if (!lines.ok) throw new Error(lines.error.message);
    for (const line of lines.value) count += JSON.parse(line) === null ? 0 : 1;
  }
  return count;
}

// The runtime's own parser on the same bytes: decode all, split, parse.
function plain(bytes: Uint8Array): number {
  let count = 0;
  for (const line of new TextDecoder().decode(bytes).split("\n")) {
    if (line !== "") count += JSON.parse(line) === null ? 0 : 1;
  }
  return count;
}

for (
  const [group, bytes, chunks] of [
    [`${MESSAGES} tool results (${mb(smallWire.length)}), 64 KiB chunks`, smallWire, smallChunks],
    [`one ${mb(hugeWire.length)} result, 4 KiB chunks`, hugeWire, hugeChunks4k],
    [`one ${mb(hugeWire.length)} result, 64 KiB chunks`, hugeWire, hugeChunks64k],
  ] as const
) {
  Deno.bench(
    { name: `JSON.parse of the same bytes [${bytes.length} B]`, group, baseline: true },
    () => {
      plain(bytes);
    },
  );
  Deno.bench({ name: `LineDecoder + JSON.parse [${bytes.length} B]`, group }, () => {
    framingOnly(chunks);
  });
  Deno.bench({ name: `LineDecoder + decodeInbound [${bytes.length} B]`, group }, () => {
    codec(chunks);
  });
}

// What prototype-free objects cost in parseJson, and the alternatives.

// parseJson's checks without the stripping: depth and numbers only.
function scan(value: unknown, depth: number): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return true;
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!scan(item, depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (!scan((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

// A copy into fresh prototype-free objects, in a reviver.
function bareCopy(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out = Object.create(null);
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: (value as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

// parseJson's walk, replacing each object by an Object.assign copy with no prototype.
function assignCopy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth >= MAX_JSON_DEPTH) return value;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      value[index] = assignCopy(value[index], depth + 1);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) record[key] = assignCopy(record[key], depth + 1);
  // On a prototype-free target, "__proto__" is set as a plain own key.
  return Object.assign(Object.create(null), record);
}

const parsedStripped = smallLines.map((line) => parseJson(line));
const parsedCopied = smallLines.map((line) => assignCopy(JSON.parse(line), 0));
const parsedPlain = smallLines.map((line) => JSON.parse(line));

function readAll(values: unknown[]): number {
  let sum = 0;
  for (const value of values) {
    const message = (value as { ok?: boolean; value?: unknown }).ok === true
      ? (value as { value: unknown }).value
      : value;
    const { id, result } = message as {
      id: number;
      result: { structuredContent: { humidity: number } };
    };
    sum += id + result.structuredContent.humidity;
  }
  return sum;
}

const smallBytes = smallLines.reduce((sum, line) => sum + line.length, 0);
const prototypes = `prototype-free objects, ${MESSAGES} small messages (${mb(smallBytes)})`;
Deno.bench({ name: "JSON.parse", group: prototypes, baseline: true }, () => {
  for (const line of smallLines) JSON.parse(line);
});
Deno.bench({ name: "JSON.parse + depth and number scan (no stripping)", group: prototypes }, () => {
  for (const line of smallLines) scan(JSON.parse(line), 0);
});
Deno.bench({ name: "parseJson (scan + Object.setPrototypeOf null)", group: prototypes }, () => {
  for (const line of smallLines) parseJson(line);
});
Deno.bench({ name: "JSON.parse + copying reviver + scan", group: prototypes }, () => {
  for (const line of smallLines) scan(JSON.parse(line, bareCopy), 0);
});
Deno.bench({ name: "JSON.parse + scan + Object.assign copies", group: prototypes }, () => {
  for (const line of smallLines) assignCopy(JSON.parse(line), 0);
});
Deno.bench({ name: "decodeInbound (parseJson + envelope checks)", group: prototypes }, () => {
  for (const line of smallLines) decodeInbound(line);
});

// Objects without a prototype can fall into V8's slow (dictionary) mode: read them back.
const reads = `reading two fields of ${MESSAGES} parsed messages`;
Deno.bench({ name: "objects from JSON.parse", group: reads, baseline: true }, () => {
  readAll(parsedPlain);
});
Deno.bench({ name: "objects from parseJson (setPrototypeOf null)", group: reads }, () => {
  readAll(parsedStripped);
});
Deno.bench({ name: "Object.assign copies", group: reads }, () => {
  readAll(parsedCopied);
});

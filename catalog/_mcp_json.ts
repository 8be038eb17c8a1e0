// Private to catalog/: the JSON front end, the `mcpServers` form of
// `.mcp.json` and Claude Desktop, and VS Code's `servers` form, read as JSONC
// (comments and trailing commas, as VS Code writes them).

import { quote } from "../codec/quote.ts";
import { MAX_JSON_DEPTH, parseJson } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { CatalogError } from "./types.ts";
import { type Collected, type Mode, readServers } from "./_entry.ts";
import { isTable } from "./_fields.ts";
import { findDuplicateKey } from "./_duplicate_key.ts";
import { strictJson } from "./_jsonc.ts";
import { describe, lineColumn, renderKey, sentenceTail, stripByteOrderMark } from "./_text.ts";

const JSON_PREFIX = /^Cannot parse JSON(?: at offset \d+)?: /;
const JSON_POSITION = / in JSON at position \d+(?: \(line \d+ column \d+\))?/;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * A JSON document's servers (`mcpServers` or `servers`), read in `mode`. An
 * entry with a `url` (and a `type` of `"http"` or absent) is a remote server
 * reached over Streamable HTTP; entries may also use the TOML catalog's keys
 * (`inherit_env`, the timeouts, `stderr`). A repeated key is refused rather
 * than silently dropped.
 */
export function readMcpJson(
  text: string,
  file: string,
  modeFor: (inputs: ReadonlyMap<string, string>) => Mode,
): Result<Collected & { warnings: string[] }, CatalogError> {
  const written = stripByteOrderMark(text);
  const strict = strictJson(written);
  if (!strict.ok) {
    const { line, column } = lineColumn(written, strict.offset);
    return err({
      kind: "invalid_json",
      file,
      line,
      column,
      message: `${file}: invalid JSON at line ${line}, column ${column}: ${strict.reason}`,
    });
  }
  const source = strict.text;
  const parsed = parseJson(source);
  if (!parsed.ok) {
    const fault = parsed.error;
    if (fault.kind !== "syntax") {
      const reason = sentenceTail(fault.message.replace(JSON_PREFIX, ""));
      const offset = fault.kind === "too_deep" || fault.kind === "number_out_of_range"
        ? faultOffset(source, fault.kind)
        : undefined;
      if (offset === undefined) {
        return err({ kind: "invalid_json", file, message: `${file}: invalid JSON: ${reason}` });
      }
      const { line, column } = lineColumn(source, offset);
      return err({
        kind: "invalid_json",
        file,
        line,
        column,
        message: `${file}: invalid JSON at line ${line}, column ${column}: ${reason}`,
      });
    }
    const { line, column } = lineColumn(source, fault.offset);
    const reason = sentenceTail(
      fault.message.replace(JSON_PREFIX, "").replace(JSON_POSITION, ""),
    );
    return err({
      kind: "invalid_json",
      file,
      line,
      column,
      message: `${file}: invalid JSON at line ${line}, column ${column}: ${reason}`,
    });
  }
  const document = parsed.value;
  if (!isTable(document)) {
    return err({
      kind: "invalid_catalog",
      file,
      message: `${file}: expected a JSON object with an "mcpServers" member, found ${
        describe(document, "json")
      }`,
    });
  }
  const duplicate = findDuplicateKey(source);
  if (duplicate !== undefined) {
    const { line, column } = lineColumn(source, duplicate.offset);
    const [root, ...rest] = duplicate.path;
    if ((root === "mcpServers" || root === "servers") && rest.length === 0) {
      return err({
        kind: "duplicate_name",
        file,
        table: `${root}.${duplicate.key}`,
        line,
        column,
        message: `${file}: ${root}.${
          renderKey(duplicate.key, "toml")
        } is defined twice (again at line ${line}); keep one entry per server`,
      });
    }
    const where = duplicate.path.length === 0 ? "the top level" : duplicate.path.join(".");
    return err({
      kind: "invalid_json",
      file,
      line,
      column,
      message: `${file}: key ${
        quote(duplicate.key)
      } appears twice in ${where} (again at line ${line}, column ${column}); keep one`,
    });
  }
  const hasServers = document["servers"] !== undefined;
  const hasMcpServers = document["mcpServers"] !== undefined;
  if (hasServers && hasMcpServers) {
    return err({
      kind: "invalid_catalog",
      file,
      message:
        `${file}: found both "mcpServers" and "servers"; keep one of them (servers from both would be ambiguous)`,
    });
  }
  if (!hasServers && !hasMcpServers) {
    return err({
      kind: "invalid_catalog",
      file,
      message:
        `${file}: expected an "mcpServers" member (or VS Code's "servers"), found none; write {"mcpServers": {}} for no servers`,
    });
  }
  const root = hasMcpServers ? "mcpServers" : "servers";
  const servers = document[root];
  if (!isTable(servers)) {
    return err({
      kind: "invalid_catalog",
      file,
      key: root,
      message: `${file}: key "${root}": expected an object of servers by name, found ${
        describe(servers, "json")
      }`,
    });
  }
  const read = readServers(servers, { file, syntax: "json", root }, modeFor(inputsOf(document)));
  return read.ok ? ok({ ...read.value, warnings: [] }) : read;
}

// Where a fault the JSON syntax does not see lies in a JSON text: the
// bracket that opens past MAX_JSON_DEPTH, or the first number past the range
// of a double. Linear in the text.
function faultOffset(text: string, kind: "too_deep" | "number_out_of_range"): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      for (i++; i < text.length && text[i] !== '"'; i += text[i] === "\\" ? 2 : 1);
    } else if (char === "[" || char === "{") {
      if (++depth > MAX_JSON_DEPTH && kind === "too_deep") return i;
    } else if (char === "]" || char === "}") {
      depth--;
    } else if (kind === "number_out_of_range" && (char === "-" || (char >= "0" && char <= "9"))) {
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(text)?.[0] ?? char;
      if (!Number.isFinite(Number(number))) return i;
      i += number.length - 1;
    }
  }
  return undefined;
}

// VS Code's `inputs`: what the file says of each input it declares, by id.
function inputsOf(document: Record<string, unknown>): ReadonlyMap<string, string> {
  const inputs = new Map<string, string>();
  const declared = document["inputs"];
  if (!Array.isArray(declared)) return inputs;
  for (const input of declared) {
    if (!isTable(input) || typeof input["id"] !== "string") continue;
    const description = input["description"];
    inputs.set(input["id"], typeof description === "string" ? description : "");
  }
  return inputs;
}

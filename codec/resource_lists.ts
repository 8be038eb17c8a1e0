/**
 * What a server lists of its resources: a `resources/list` page and a
 * `resources/templates/list` page. Both decoders are total: a value, or an
 * `invalid_result` fault naming the entry that is wrong.
 *
 * Server text (names, titles, descriptions, URIs) is carried as written and
 * is untrusted downstream; annotations cross raw.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "./json.ts";
import type { ProtocolFault } from "./protocol.ts";
import { describeValue } from "./quote.ts";
import { ok, type Result } from "./result.ts";
import { decodePage } from "./_page.ts";

/** What a listed resource and a resource template share. */
export type ListedResource = {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: JsonValue;
};

/** One resource as a server lists it. */
export type ResourceDescriptor = ListedResource & { uri: string; size?: number };

/** One resource template (an RFC 6570 URI template) as a server lists it. */
export type ResourceTemplateDescriptor = ListedResource & { uriTemplate: string };

/** One `resources/list` page. */
export type ResourcesPage = { resources: ResourceDescriptor[]; nextCursor?: string };

/** One `resources/templates/list` page. */
export type ResourceTemplatesPage = {
  resourceTemplates: ResourceTemplateDescriptor[];
  nextCursor?: string;
};

/** The shared fields of one entry, or why it is refused. */
function listed(
  value: JsonValue,
  key: "uri" | "uriTemplate",
): (ListedResource & JsonObject) | string {
  if (!isJsonObject(value)) return `is ${describeValue(value)}, not an object`;
  if (typeof value[key] !== "string" || value[key] === "") {
    return `has no non-empty string "${key}" (it is ${describeValue(value[key])})`;
  }
  if (typeof value.name !== "string") {
    return `${describeValue(value[key])} has no string "name"`;
  }
  return value as ListedResource & JsonObject;
}

function common(source: JsonObject & ListedResource): ListedResource {
  const out: ListedResource = { name: source.name };
  if (typeof source.title === "string") out.title = source.title;
  if (typeof source.description === "string") out.description = source.description;
  if (typeof source.mimeType === "string") out.mimeType = source.mimeType;
  if ("annotations" in source) out.annotations = source.annotations as JsonValue;
  return out;
}

/**
 * Decodes a `resources/list` page.
 *
 * @example
 * ```ts
 * import { decodeResourcesPage } from "@loom/mcp/codec";
 * const page = decodeResourcesPage({ resources: [{ uri: "file:///a.txt", name: "a.txt" }] });
 * if (page.ok) console.log(page.value.resources[0]?.uri); // file:///a.txt
 * ```
 */
export function decodeResourcesPage(value: JsonValue): Result<ResourcesPage, ProtocolFault> {
  const decoded = decodePage("Cannot decode resources/list page", value, "resources", (entry) => {
    const source = listed(entry, "uri");
    if (typeof source === "string") return source;
    const out: ResourceDescriptor = { uri: source.uri as string, ...common(source) };
    if (typeof source.size === "number" && Number.isSafeInteger(source.size) && source.size >= 0) {
      out.size = source.size;
    }
    return out;
  }, "resource");
  if (!decoded.ok) return decoded;
  const { entries, nextCursor } = decoded.value;
  return ok(nextCursor === undefined ? { resources: entries } : { resources: entries, nextCursor });
}

/**
 * Decodes a `resources/templates/list` page.
 *
 * @example
 * ```ts
 * import { decodeResourceTemplatesPage } from "@loom/mcp/codec";
 * const page = decodeResourceTemplatesPage({
 *   resourceTemplates: [{ uriTemplate: "file:///{path}", name: "files" }],
 * });
 * if (page.ok) console.log(page.value.resourceTemplates.length); // 1
 * ```
 */
export function decodeResourceTemplatesPage(
  value: JsonValue,
): Result<ResourceTemplatesPage, ProtocolFault> {
  const where = "Cannot decode resources/templates/list page";
  const decoded = decodePage(where, value, "resourceTemplates", (entry) => {
    const source = listed(entry, "uriTemplate");
    if (typeof source === "string") return source;
    return { uriTemplate: source.uriTemplate as string, ...common(source) };
  }, "template");
  if (!decoded.ok) return decoded;
  const { entries, nextCursor } = decoded.value;
  return ok(
    nextCursor === undefined
      ? { resourceTemplates: entries }
      : { resourceTemplates: entries, nextCursor },
  );
}

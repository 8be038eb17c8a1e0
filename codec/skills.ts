/**
 * What a server of the skills extension (`io.modelcontextprotocol/skills`,
 * SEP-2640) says of its skills: a `skills/list` page and a `skills/get`
 * result, each entry a skill's `SKILL.md` URI, its frontmatter as JSON and
 * the manifest of its files (each with its SHA-256 digest and size), or
 * `"dynamic"` for a skill whose files have no stable digests. Both decoders
 * are total: a value, or an `invalid_result` fault naming the entry that is
 * wrong. Frontmatter and URIs are the server's words, untrusted downstream.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "./json.ts";
import type { ProtocolFault } from "./protocol.ts";
import { describeValue, quote } from "./quote.ts";
import { ok, type Result } from "./result.ts";
import { decodePage, invalid } from "./_page.ts";

/** The identifier a server declares under `capabilities.extensions` for skills. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** `sha256:` and 64 lowercase hexadecimal digits, as the extension writes a digest. */
export const SKILL_DIGEST_PATTERN: RegExp = /^sha256:[0-9a-f]{64}$/;

/** One skill as a server lists it. */
export type SkillEntry = {
  /** The URI of the skill's `SKILL.md`. */
  uri: string;
  /** The `SKILL.md` frontmatter, as JSON: `name` and `description`, and what else it has. */
  frontmatter: JsonObject & { name: string; description: string };
  /**
   * Every file of the skill, `SKILL.md` among them, each with the SHA-256
   * digest (`sha256:` and 64 hex digits) and the length of its raw bytes;
   * or `"dynamic"`, for a skill with no stable digests to check.
   */
  resources: { uri: string; digest: string; size: number }[] | "dynamic";
};

/** One file of a skill as its entry lists it: what a read of it must match. */
export type SkillFileEntry = Exclude<SkillEntry["resources"], "dynamic">[number];

/** A skill's frontmatter as its entry renders it. */
export type SkillFrontmatter = SkillEntry["frontmatter"];

/** One `skills/list` page. */
export type SkillsPage = { skills: SkillEntry[]; nextCursor?: string };

/** One file of an entry, or why it is refused. */
function fileEntry(value: JsonValue, index: number): SkillFileEntry | string {
  if (!isJsonObject(value)) return `file ${index} is ${describeValue(value)}, not an object`;
  const { uri, digest, size } = value;
  if (typeof uri !== "string" || uri === "") {
    return `file ${index} has no non-empty string "uri" (it is ${describeValue(uri)})`;
  }
  if (typeof digest !== "string" || !SKILL_DIGEST_PATTERN.test(digest)) {
    return `file ${quote(uri)} has a "digest" ${
      describeValue(digest)
    } that is not "sha256:" and 64 lowercase hex digits`;
  }
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    return `file ${quote(uri)} has a "size" ${
      describeValue(size)
    } that is not a whole number of bytes`;
  }
  return { uri, digest, size };
}

/** One skill entry, or a phrase saying why it is refused. */
function skillEntry(value: JsonValue): SkillEntry | string {
  if (!isJsonObject(value)) return `is ${describeValue(value)}, not an object`;
  const { uri, frontmatter, resources } = value;
  if (typeof uri !== "string" || uri === "") {
    return `has no non-empty string "uri" (it is ${describeValue(uri)})`;
  }
  const named = quote(uri);
  if (!isJsonObject(frontmatter)) {
    return `${named} has a "frontmatter" that is ${describeValue(frontmatter)}, not an object`;
  }
  if (typeof frontmatter.name !== "string" || frontmatter.name === "") {
    return `${named} has no non-empty string "frontmatter.name"`;
  }
  if (typeof frontmatter.description !== "string") {
    return `${named} has no string "frontmatter.description"`;
  }
  const front = frontmatter as SkillFrontmatter;
  if (resources === "dynamic") return { uri, frontmatter: front, resources };
  if (!Array.isArray(resources)) {
    return `${named} has "resources" ${describeValue(resources)}, not an array or "dynamic"`;
  }
  const files: SkillFileEntry[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < resources.length; index++) {
    const file = fileEntry(resources[index] as JsonValue, index);
    if (typeof file === "string") return `${named}: ${file}`;
    if (seen.has(file.uri)) return `${named} lists file ${quote(file.uri)} twice`;
    seen.add(file.uri);
    files.push(file);
  }
  if (!seen.has(uri)) return `${named} does not list its own SKILL.md among its "resources"`;
  return { uri, frontmatter: front, resources: files };
}

/**
 * Decodes a `skills/list` page: one entry that lies fails the page, naming
 * its index; a file listed twice, or a manifest without the skill's own
 * `SKILL.md`, is such a lie.
 *
 * @example
 * ```ts
 * import { decodeSkillsPage } from "@loom/mcp/codec";
 * const page = decodeSkillsPage({
 *   skills: [{
 *     uri: "skill://notes/SKILL.md",
 *     frontmatter: { name: "notes", description: "Take notes" },
 *     resources: "dynamic",
 *   }],
 * });
 * if (page.ok) console.log(page.value.skills[0]?.frontmatter.name); // notes
 * ```
 */
export function decodeSkillsPage(value: JsonValue): Result<SkillsPage, ProtocolFault> {
  const page = decodePage("Cannot decode skills/list page", value, "skills", skillEntry, "skill");
  if (!page.ok) return page;
  const { entries, nextCursor } = page.value;
  return ok(nextCursor === undefined ? { skills: entries } : { skills: entries, nextCursor });
}

/**
 * Decodes a `skills/get` result: its `skill`, an entry as a listing has it.
 *
 * @example
 * ```ts
 * import { decodeSkillResult } from "@loom/mcp/codec";
 * const got = decodeSkillResult({
 *   skill: {
 *     uri: "skill://notes/SKILL.md",
 *     frontmatter: { name: "notes", description: "Take notes" },
 *     resources: "dynamic",
 *   },
 * });
 * console.log(got.ok && got.value.uri); // skill://notes/SKILL.md
 * ```
 */
export function decodeSkillResult(value: JsonValue): Result<SkillEntry, ProtocolFault> {
  const where = "Cannot decode skills/get result";
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  const entry = skillEntry(value.skill as JsonValue);
  return typeof entry === "string" ? invalid(`${where}: its "skill" ${entry}`) : ok(entry);
}

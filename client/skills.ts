/**
 * A server's skills, as the skills extension (`io.modelcontextprotocol/skills`,
 * SEP-2640) serves them to a client: a listing of entries (`skills/list`),
 * each a complete manifest of the skill's files with their digests and sizes,
 * and the files themselves, read with `resources/read` only when a skill is
 * read, never on connecting or listing. Every file read is checked against
 * its entry (its size, then its SHA-256 digest), and the `SKILL.md`'s YAML
 * frontmatter against the entry's, field by field; a mismatch is a refusal
 * naming the file, and nothing read of the skill is handed on. A digest
 * proves the listing and the file agree, not that either is trustworthy:
 * both come from the server.
 *
 * The client declares nothing for the extension: it is the server's to
 * declare (with `resources`), and a client asks only a server that did.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "../codec/json.ts";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { type SkillEntry, type SkillFileEntry, SKILLS_EXTENSION } from "../codec/skills.ts";
import { MAX_RESOURCE_BYTES } from "../settings/limits.ts";
import type { ResourceContents } from "./resources.ts";
import type { ServerInfo } from "./thread/server_info.ts";

export type { SkillEntry, SkillFileEntry, SkillFrontmatter } from "../codec/skills.ts";

/** The most files a skill read may have, `SKILL.md` among them (the extension's own limit). */
export const MAX_SKILL_FILES = 512;

/** The most bytes a skill read may have in all its files, by their listed sizes (the extension's). */
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** The most bytes one file of a skill may have: a file is read as one resource. */
export const MAX_SKILL_FILE_BYTES: number = MAX_RESOURCE_BYTES;

/** Why a skill was not listed or read, beyond a request's own failures. */
export type SkillError =
  | {
    kind: "skills_not_declared";
    server: string;
    message: string;
  }
  | {
    kind: "skill_not_found" | "skill_ambiguous";
    server: string;
    /** The name or URI asked for. */
    name: string;
    /** For `skill_ambiguous`: the `SKILL.md` URIs of the skills that share the name. */
    uris?: string[];
    message: string;
  }
  | {
    kind: "skill_too_large";
    server: string;
    /** The skill's `SKILL.md` URI, or the file's that is past its limit. */
    uri: string;
    what: "files" | "bytes" | "file_bytes";
    seen: number;
    limit: number;
    message: string;
  }
  | {
    /** A file read did not match its entry: nothing of the skill is handed on. */
    kind: "skill_mismatch";
    server: string;
    /** The file that did not match. */
    uri: string;
    /** What did not match: its size, its digest, the frontmatter, or no content named it. */
    check: "size" | "digest" | "frontmatter" | "content";
    message: string;
  };

/** One file of a skill, as read and checked: its text, or its bytes in base64 (`blob`). */
export type SkillFile = {
  uri: string;
  mimeType?: string;
  size: number;
  text?: string;
  blob?: string;
};

/** Whether a server declared the skills extension (and `resources`) when it connected. */
export function declaresSkills(info: ServerInfo | undefined): boolean {
  const extensions = info?.capabilities.extensions;
  return isJsonObject(extensions) && isJsonObject(extensions[SKILLS_EXTENSION]) &&
    isJsonObject(info?.capabilities.resources);
}

/** The refusal of a skills request to a server that declared no skills. */
export function skillsNotDeclared(server: string): SkillError {
  return {
    kind: "skills_not_declared",
    server,
    message: `Cannot ask server ${quote(server)} for skills: it declared no ` +
      `${quote(SKILLS_EXTENSION)} extension with resources when it connected`,
  };
}

/**
 * The one entry named `name`: a `SKILL.md` URI, or a frontmatter name that
 * only one entry has (names are not unique across a listing; URIs are).
 */
export function findSkill(
  server: string,
  entries: readonly SkillEntry[],
  name: string,
): Result<SkillEntry, SkillError> {
  const byUri = entries.find((entry) => entry.uri === name);
  if (byUri !== undefined) return ok(byUri);
  const named = entries.filter((entry) => entry.frontmatter.name === name);
  if (named.length === 1) return ok(named[0]!);
  if (named.length === 0) {
    return err({
      kind: "skill_not_found",
      server,
      name,
      message: `Server ${quote(server)} lists no skill named ${quote(name)}; ` +
        "list its skills to see their names and URIs",
    });
  }
  const uris = named.map((entry) => entry.uri);
  return err({
    kind: "skill_ambiguous",
    server,
    name,
    uris,
    message: `Server ${quote(server)} lists ${named.length} skills named ${quote(name)} ` +
      `(${uris.map((uri) => quote(uri)).join(", ")}); read one by its URI`,
  });
}

/** Checks an entry against the limits before any file of it is read. */
export function checkSkillBounds(server: string, entry: SkillEntry): Result<void, SkillError> {
  const files = entry.resources === "dynamic" ? [] : entry.resources;
  const refuse = (
    uri: string,
    what: "files" | "bytes" | "file_bytes",
    seen: number,
    limit: number,
    said: string,
  ) =>
    err<SkillError>({
      kind: "skill_too_large",
      server,
      uri,
      what,
      seen,
      limit,
      message: `Cannot read skill ${quote(entry.uri)} of server ${quote(server)}: ${said}; ` +
        "it was refused before any file was read",
    });
  if (files.length > MAX_SKILL_FILES) {
    return refuse(
      entry.uri,
      "files",
      files.length,
      MAX_SKILL_FILES,
      `it lists ${files.length} files, more than MAX_SKILL_FILES (${MAX_SKILL_FILES})`,
    );
  }
  let total = 0;
  for (const file of files) {
    if (file.size > MAX_SKILL_FILE_BYTES) {
      return refuse(
        file.uri,
        "file_bytes",
        file.size,
        MAX_SKILL_FILE_BYTES,
        `its file ${quote(file.uri)} is listed at ${file.size} bytes, more than ` +
          `MAX_SKILL_FILE_BYTES (${MAX_SKILL_FILE_BYTES})`,
      );
    }
    total += file.size;
  }
  if (total > MAX_SKILL_BYTES) {
    return refuse(
      entry.uri,
      "bytes",
      total,
      MAX_SKILL_BYTES,
      `its files are listed at ${total} bytes in all, more than MAX_SKILL_BYTES ` +
        `(${MAX_SKILL_BYTES})`,
    );
  }
  return ok(undefined);
}

function mismatch(
  server: string,
  uri: string,
  check: (SkillError & { kind: "skill_mismatch" })["check"],
  said: string,
): SkillError {
  return {
    kind: "skill_mismatch",
    server,
    uri,
    check,
    message: `Cannot use file ${quote(uri)} of server ${quote(server)}: ${said}; ` +
      "nothing of the skill was used (list its skills again if it changed)",
  };
}

/** The hex SHA-256 digest of bytes, as the extension writes one. */
async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** The bytes a base64 text stands for (the read's decoder checked it is base64). */
function base64Decoded(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * The content a read of `uri` answered with, checked against its entry (its
 * size, then its digest); `listed` is absent for a `"dynamic"` skill's
 * `SKILL.md`, which has none to check.
 */
export async function checkSkillFile(
  server: string,
  uri: string,
  listed: SkillFileEntry | undefined,
  contents: readonly ResourceContents[],
): Promise<Result<SkillFile, SkillError>> {
  // The content named by the file's URI, or the only one there is.
  const content = contents.find((item) => item.uri === uri) ??
    (contents.length === 1 ? contents[0] : undefined);
  if (content === undefined) {
    return err(mismatch(
      server,
      uri,
      "content",
      `the read answered ${contents.length} contents and none for it`,
    ));
  }
  const bytes = "text" in content
    ? new TextEncoder().encode(content.text)
    : base64Decoded(content.blob);
  if (listed !== undefined) {
    if (bytes.length !== listed.size) {
      return err(mismatch(
        server,
        uri,
        "size",
        `it is ${bytes.length} bytes, and its skill lists ${listed.size}`,
      ));
    }
    const digest = await digestOf(bytes);
    if (digest !== listed.digest) {
      return err(mismatch(
        server,
        uri,
        "digest",
        `its digest is ${quote(digest)}, and its skill lists ${quote(listed.digest)}`,
      ));
    }
  }
  const file: SkillFile = { uri, size: bytes.length };
  if (content.mimeType !== undefined) file.mimeType = content.mimeType;
  if ("text" in content) file.text = content.text;
  else file.blob = content.blob;
  return ok(file);
}

/**
 * Reads a `SKILL.md`'s frontmatter (the YAML between its opening `---` line
 * and the next) and compares it with the entry's, field by field: the
 * body after it, or `skill_mismatch` naming the
 * first fields that differ.
 */
export async function checkFrontmatter(
  server: string,
  entry: SkillEntry,
  file: SkillFile,
): Promise<Result<string, SkillError>> {
  const refuse = (said: string) => err(mismatch(server, entry.uri, "frontmatter", said));
  const text = file.text ?? decodeUtf8(file.blob === undefined ? "" : file.blob);
  if (text === undefined) return refuse("it is not UTF-8 text");
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return refuse('it does not begin with a "---" line');
  const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === "---");
  if (close === -1) return refuse('its frontmatter has no closing "---" line');
  let parsed: unknown;
  try {
    const { parseYaml } = await import("./_yaml.ts");
    parsed = parseYaml(lines.slice(1, close).join("\n"), { schema: "core" });
  } catch (error) {
    return refuse(`its frontmatter is not YAML (${quote(String(error).split("\n")[0] ?? "")})`);
  }
  if (!isJsonObject(parsed as JsonValue)) return refuse("its frontmatter is not a mapping");
  const differences: string[] = [];
  differ(entry.frontmatter, parsed, "", differences);
  if (differences.length > 0) {
    const shown = differences.slice(0, 5).map((field) => quote(field)).join(", ");
    return refuse(`its frontmatter differs from its skill's entry at ${shown}`);
  }
  return ok(lines.slice(close + 1).join("\n"));
}

/** The text of base64 UTF-8 bytes, `undefined` when they are not UTF-8. */
function decodeUtf8(base64: string): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(base64Decoded(base64));
  } catch {
    return undefined;
  }
}

/** Pushes the path of every field where the entry's JSON and the parsed YAML differ. */
function differ(listed: unknown, parsed: unknown, path: string, out: string[]): void {
  const at = path === "" ? "(frontmatter)" : path;
  if (Array.isArray(listed) || Array.isArray(parsed)) {
    if (!Array.isArray(listed) || !Array.isArray(parsed) || listed.length !== parsed.length) {
      out.push(at);
      return;
    }
    listed.forEach((item, index) => differ(item, parsed[index], `${path}[${index}]`, out));
    return;
  }
  if (isPlainObject(listed) || isPlainObject(parsed)) {
    if (!isPlainObject(listed) || !isPlainObject(parsed)) {
      out.push(at);
      return;
    }
    const keys = new Set([...Object.keys(listed), ...Object.keys(parsed)]);
    for (const key of [...keys].sort()) {
      differ(listed[key], parsed[key], path === "" ? key : `${path}.${key}`, out);
    }
    return;
  }
  if (!Object.is(listed, parsed)) out.push(at);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

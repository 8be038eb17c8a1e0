// Private to catalog/: the one file read. A catalog is a small UTF-8 regular
// file: a FIFO would block the open, a device could be endless, and anything
// larger than MAX_CATALOG_BYTES is not a catalog.

import { fileURLToPath } from "node:url";
import { err, ok, type Result } from "../codec/result.ts";
import { type CatalogError, MAX_CATALOG_BYTES } from "./types.ts";

/** A path from what a caller gave: a path or a `file:` URL; anything else is misuse. */
export function pathOf(path: string | URL, caller: string): string {
  if (typeof path === "string") return path;
  if (path instanceof URL && path.protocol === "file:") return fileURLToPath(path);
  throw new TypeError(`${caller}() expects a file path or a file: URL, got ${String(path)}`);
}

/** Reads a catalog file's text, bounded, as UTF-8, with the SHA-256 of its bytes in hex. */
export async function readText(
  file: string,
): Promise<Result<{ text: string; digest: string }, CatalogError>> {
  const bytes = await readBounded(file);
  if (!bytes.ok) return bytes;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.value);
  } catch {
    return err(notUtf8(file, bytes.value));
  }
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes.value as Uint8Array<ArrayBuffer>),
  );
  return ok({ text, digest: [...digest].map((b) => b.toString(16).padStart(2, "0")).join("") });
}

// A file the decoder refused, with where its first bad byte is.
function notUtf8(file: string, bytes: Uint8Array): CatalogError {
  // Windows PowerShell's `>` and Notepad's "Unicode" write UTF-16 with a byte-order mark.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return {
      kind: "invalid_catalog",
      file,
      line: 1,
      column: 1,
      message: `${file}: the catalog is UTF-16 text (it starts with a UTF-16 byte-order mark); ` +
        "save it as UTF-8",
    };
  }
  const invalid = invalidUtf8At(bytes);
  if (invalid === undefined) {
    return {
      kind: "invalid_catalog",
      file,
      message:
        `${file}: the catalog is not UTF-8 text; save it as UTF-8, or check it is the right file`,
    };
  }
  const before = bytes.subarray(0, invalid);
  const lineStart = before.lastIndexOf(0x0a) + 1;
  const line = before.reduce((count, byte) => count + (byte === 0x0a ? 1 : 0), 1);
  // The bytes before the first bad one are UTF-8: the column counts their characters.
  const column = new TextDecoder().decode(before.subarray(lineStart)).length + 1;
  return {
    kind: "invalid_catalog",
    file,
    line,
    column,
    message:
      `${file}: the catalog is not UTF-8 text: byte ${invalid} (line ${line}, column ${column}) ` +
      "starts no UTF-8 character; save it as UTF-8, or check it is the right file",
  };
}

/**
 * The offset of the first byte that is not part of a well-formed UTF-8
 * character (an overlong form, a surrogate, a code point past U+10FFFF, a
 * character cut short), or undefined when every byte is: where the decoder's
 * refusal is, said to a person.
 */
export function invalidUtf8At(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    // The continuation count, and the range of the second byte, by lead byte.
    const [count, low, high] = lead >= 0xc2 && lead <= 0xdf
      ? [1, 0x80, 0xbf]
      : lead >= 0xe0 && lead <= 0xef
      ? [2, lead === 0xe0 ? 0xa0 : 0x80, lead === 0xed ? 0x9f : 0xbf]
      : lead >= 0xf0 && lead <= 0xf4
      ? [3, lead === 0xf0 ? 0x90 : 0x80, lead === 0xf4 ? 0x8f : 0xbf]
      : [0, 0, 0];
    if (count === 0) return i;
    for (let k = 1; k <= count; k++) {
      const byte = bytes[i + k];
      const [from, to] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (byte === undefined || byte < from || byte > to) return i;
    }
    i += count + 1;
  }
  return undefined;
}

async function readBounded(file: string): Promise<Result<Uint8Array, CatalogError>> {
  const unreadable = (error: unknown): Result<Uint8Array, CatalogError> =>
    err({
      kind: "unreadable_file",
      file,
      message: `${file}: cannot read the catalog (${
        error instanceof Error ? error.message : String(error)
      }); check the path and its permissions`,
    });
  // Stat first: opening a FIFO would block, and a device could be endless.
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch (error) {
    return unreadable(error);
  }
  if (!info.isFile) {
    return err({
      kind: "unreadable_file",
      file,
      message: `${file}: cannot read the catalog: it is ${
        info.isDirectory ? "a directory" : "not a regular file"
      }; give the path of the catalog file`,
    });
  }
  const tooLarge = (size: number): Result<Uint8Array, CatalogError> =>
    err({
      kind: "invalid_catalog",
      file,
      message:
        `${file}: the catalog is ${size} bytes, more than the ${MAX_CATALOG_BYTES} allowed; is this the right file?`,
    });
  if (info.size > MAX_CATALOG_BYTES) return tooLarge(info.size);
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(file, { read: true });
  } catch (error) {
    return unreadable(error);
  }
  try {
    // The file may grow between stat and read: read at most one byte past the cap.
    const buffer = new Uint8Array(MAX_CATALOG_BYTES + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const count = await handle.read(buffer.subarray(filled));
      if (count === null) break;
      filled += count;
    }
    if (filled > MAX_CATALOG_BYTES) return tooLarge(filled);
    return ok(buffer.slice(0, filled));
  } catch (error) {
    return unreadable(error);
  } finally {
    handle.close();
  }
}

/**
 * Reads a small UTF-8 file (an env file an entry names) at once: a regular
 * file of at most `MAX_CATALOG_BYTES`; the error says why not, in a few words.
 */
export function readSmallText(path: string): Result<string, string> {
  try {
    const info = Deno.statSync(path);
    if (!info.isFile) return err(info.isDirectory ? "it is a directory" : "not a regular file");
    if (info.size > MAX_CATALOG_BYTES) return err(`larger than ${MAX_CATALOG_BYTES} bytes`);
    return ok(new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(path)));
  } catch (error) {
    if (error instanceof TypeError) return err("not UTF-8 text");
    return err(error instanceof Error ? error.message : String(error));
  }
}

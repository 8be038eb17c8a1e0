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
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.value);
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", bytes.value as Uint8Array<ArrayBuffer>),
    );
    return ok({ text, digest: [...digest].map((b) => b.toString(16).padStart(2, "0")).join("") });
  } catch {
    return err({
      kind: "invalid_catalog",
      file,
      message: `${file}: the catalog is not UTF-8 text; is this the right file?`,
    });
  }
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

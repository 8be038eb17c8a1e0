/**
 * Capture of what a tool run writes to stderr.
 *
 * With `--allow-ffi`, the process's fd 2 is redirected with libc `dup2` into
 * a temporary file (a file, not a pipe: a pipe nobody reads would block a
 * chatty writer) for the length of the run, and restored in `finally`, even
 * when the run throws. One file serves every capture of the process: it is
 * unlinked as soon as it is made (it vanishes with the process) and
 * truncated at the start of each capture. This module is the only place in the library
 * that touches raw descriptors.
 *
 * Without FFI (or on Windows) the capture is `context_only`: it holds only
 * what reaches the {@linkcode CaptureSink}, that is, writes through the tool
 * context and the stderr of children spawned through it; `console.error`
 * goes to the real stderr.
 *
 * The redirect is process-global, so captures never nest and never overlap:
 * a second capture while one is active is refused with `capture_busy`. The
 * guard is per JavaScript realm; two workers of one process each serving
 * tools with FFI would not see each other, so run one server per process.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";

/** The bytes of a run's stderr kept: the last 64 KiB, older bytes dropped and counted. */
export const STDERR_CAPTURE_BYTES = 64 * 1024;

/** How a capture works: `fd` redirects the process's fd 2; `context_only` sees only the sink. */
export type CaptureMode = "fd" | "context_only";

/** Why a capture could not start. */
export type CaptureFault =
  | {
    kind: "capture_busy";
    /** Another capture is active; captures never nest (run tools one at a time). */
    message: string;
  }
  | {
    kind: "capture_failed";
    /** A libc call failed; the message names it and its return value. */
    message: string;
  };

/** Where a run's stderr goes besides fd 2: the tool context and spawned children write here. */
export type CaptureSink = { write(bytes: Uint8Array): void };

/** What a captured run left: its value, the tail of its stderr, and how many older bytes were dropped. */
export type Captured<T> = { value: T; stderr: string; droppedBytes: number; mode: CaptureMode };

const SYMBOLS = {
  dup: { parameters: ["i32"], result: "i32" },
  dup2: { parameters: ["i32", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  mkstemp: { parameters: ["buffer"], result: "i32" },
  unlink: { parameters: ["buffer"], result: "i32" },
  lseek: { parameters: ["i32", "i64", "i32"], result: "i64" },
  ftruncate: { parameters: ["i32", "i64"], result: "i32" },
  pread: { parameters: ["i32", "buffer", "usize", "i64"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

const STDERR_FD = 2;
const SEEK_SET = 0;
const SEEK_END = 2;

let libc: Libc | null | undefined;
let active = false;

function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  const path = Deno.build.os === "linux"
    ? "libc.so.6"
    : Deno.build.os === "darwin"
    ? "/usr/lib/libSystem.B.dylib"
    : undefined;
  if (path === undefined) return libc;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return libc;
    libc = Deno.dlopen(path, SYMBOLS).symbols;
  } catch {
    libc = null;
  }
  return libc;
}

/**
 * Tells how captures work in this process: `fd` when FFI is granted and
 * libc loads, else `context_only`.
 *
 * @example Check the capture mode
 * ```ts
 * import { captureMode } from "@loom/mcp/server";
 * console.log(captureMode()); // "fd" under --allow-ffi, else "context_only"
 * ```
 */
export function captureMode(): CaptureMode {
  return loadLibc() === null ? "context_only" : "fd";
}

/**
 * Runs `run` with stderr captured and returns its value with the tail of
 * what it wrote. fd 2 is restored in `finally`; a throw from `run` is
 * rethrown after restoration. A capture started while another is active is
 * refused with `capture_busy`, and `run` is not called.
 *
 * @example Capture a run's stderr
 * ```ts
 * import { captureStderr } from "@loom/mcp/server";
 * const result = await captureStderr((sink) => {
 *   sink.write(new TextEncoder().encode("working\n"));
 *   return Promise.resolve(42);
 * });
 * if (result.ok) console.log(result.value.value, result.value.stderr); // 42 "working\n"
 * ```
 */
export async function captureStderr<T>(
  run: (sink: CaptureSink) => Promise<T>,
): Promise<Result<Captured<T>, CaptureFault>> {
  if (active) {
    return err({
      kind: "capture_busy",
      message: "Cannot capture stderr: another capture is active in this process; " +
        "captures never nest, so run one tool at a time",
    });
  }
  const lib = loadLibc();
  if (lib === null) return await captureInMemory(run);
  const file = captureFile(lib);
  if (file < 0) return err(failed("mkstemp", file, "is /tmp writable?"));
  // fd 2 will share this file's offset, so rewinding here rewinds both.
  if (lib.ftruncate(file, 0n) < 0 || Number(lib.lseek(file, 0n, SEEK_SET)) < 0) {
    return err(failed("ftruncate", -1, "is the temporary file still writable?"));
  }
  const saved = lib.dup(STDERR_FD);
  if (saved < 0) return err(failed("dup(2)", saved, "is fd 2 open?"));
  const redirected = lib.dup2(file, STDERR_FD);
  if (redirected < 0) {
    lib.close(saved);
    return err(failed("dup2", redirected, "is fd 2 open?"));
  }
  active = true;
  let value: T;
  try {
    value = await run({
      write(bytes: Uint8Array): void {
        let offset = 0;
        while (offset < bytes.length) {
          const count = Number(
            lib.write(file, bytes.subarray(offset), BigInt(bytes.length - offset)),
          );
          if (count <= 0) return;
          offset += count;
        }
      },
    });
  } finally {
    lib.dup2(saved, STDERR_FD);
    lib.close(saved);
    active = false;
  }
  const size = Number(lib.lseek(file, 0n, SEEK_END));
  const start = Math.max(0, size - STDERR_CAPTURE_BYTES);
  const tail = new Uint8Array(Math.max(0, size - start));
  const count = tail.length === 0
    ? 0
    : Number(lib.pread(file, tail, BigInt(tail.length), BigInt(start)));
  return ok({
    value,
    stderr: count > 0 ? new TextDecoder().decode(tail.subarray(0, count)) : "",
    droppedBytes: start,
    mode: "fd",
  });
}

// One capture file per process, made on first use and unlinked at once, so it
// vanishes with the process; each capture truncates it.
let sharedFile: number | undefined;

function captureFile(lib: Libc): number {
  if (sharedFile !== undefined) return sharedFile;
  const template = new TextEncoder().encode("/tmp/loom-mcp-stderr-XXXXXX\0");
  const file = lib.mkstemp(template);
  if (file < 0) return file;
  lib.unlink(template);
  sharedFile = file;
  return file;
}

async function captureInMemory<T>(
  run: (sink: CaptureSink) => Promise<T>,
): Promise<Result<Captured<T>, CaptureFault>> {
  const parts: Uint8Array[] = [];
  let held = 0;
  let dropped = 0;
  active = true;
  let value: T;
  try {
    value = await run({
      write(bytes: Uint8Array): void {
        parts.push(bytes.slice());
        held += bytes.length;
        // Keep at most the cap plus one chunk; trimmed exactly when read.
        while (parts.length > 1 && held - (parts[0]?.length ?? 0) >= STDERR_CAPTURE_BYTES) {
          const first = parts.shift() as Uint8Array;
          held -= first.length;
          dropped += first.length;
        }
      },
    });
  } finally {
    active = false;
  }
  const all = new Uint8Array(held);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  const cut = Math.max(0, held - STDERR_CAPTURE_BYTES);
  return ok({
    value,
    stderr: new TextDecoder().decode(all.subarray(cut)),
    droppedBytes: dropped + cut,
    mode: "context_only",
  });
}

function failed(call: string, code: number, hint: string): CaptureFault {
  return {
    kind: "capture_failed",
    message: `Cannot capture stderr: ${call} returned ${code}; ${hint}`,
  };
}

// Private to server/: running one tool call. The run's stderr, its
// children's included, goes into the capture; its answer is rendered as one
// line, never a throw; a cancelled run that outlives its grace is abandoned.

import type { JsonObject } from "../codec/json.ts";
import { encodeResult } from "../codec/jsonrpc.ts";
import { frame, MAX_LINE_BYTES } from "../codec/framing.ts";
import { err, type Result } from "../codec/result.ts";
import { joinBytes } from "../codec/_bytes.ts";
import { type CaptureSink, captureStderr } from "./capture.ts";
import { normalizeOutput } from "./_output.ts";
import type { WireId } from "./_inbound.ts";
import type { CapturedCommandOptions, CapturedOutput, Tool, ToolContext } from "./tool.ts";

/**
 * How long, in milliseconds, the end of a run waits for the stderr of
 * children that have exited to reach end of file (a grandchild still holding
 * the pipe would otherwise hold the answer back).
 */
export const CHILD_STDERR_DRAIN_MS = 250;

/** The `_meta` key marking the text block that carries a run's captured stderr. */
export const STDERR_BLOCK_META_KEY = "loom/stderr";

/**
 * How long, in milliseconds, a cancelled run is given to end after its
 * signal is aborted before the loop stops waiting for it: 250. A tool that
 * honours its signal ends within it, so calls still run one at a time and its
 * stderr stays in its own capture; one that ignores it is abandoned.
 */
export const CANCELLED_CALL_GRACE_MS = 250;

/** One call read from the wire, waiting or running. */
export type Call = {
  id: WireId;
  tool: Tool;
  args: JsonObject;
  controller: AbortController;
  /** The length of its request line, counted against `MAX_QUEUED_CHARS` while it waits. */
  chars: number;
  /** Adds what the era of the request puts in every result (`resultType`). */
  decorate?: (result: JsonObject) => JsonObject;
};

/**
 * How a run ended for the loop: answered with its line, or abandoned, still
 * running past its grace once cancelled (`ended` settles when it returns at
 * last, its answer dropped).
 */
export type RunOutcome =
  | { kind: "answered"; line: Uint8Array }
  | { kind: "abandoned"; ended: Promise<void> };

type Pump = { done: Promise<void>; exited: boolean };

const ABANDONED: unique symbol = Symbol("abandoned");

// Runs one call inside a capture and renders its answer line, unless it is
// cancelled and still running after CANCELLED_CALL_GRACE_MS: then the capture
// ends there (fd 2 is given back for the next run) and the run goes on alone,
// its writes through the context going where `inherit` would send them.
// Never throws.
export async function runCall(call: Call): Promise<RunOutcome> {
  const decorate = call.decorate ?? ((result: JsonObject) => result);
  const name = call.tool.name;
  const pumps: Pump[] = [];
  let live = true;
  let ended: Promise<void> = Promise.resolve();
  const captured = await captureStderr(async (sink) => {
    const guarded: CaptureSink = {
      // Late writes (a child outliving its run) go where `inherit` would have sent them.
      write: (bytes) => live ? sink.write(bytes) : void Deno.stderr.write(bytes).catch(() => {}),
    };
    const running = (async () => {
      try {
        const output = await call.tool.run(
          call.args,
          toolContext(guarded, call.controller.signal, pumps),
        );
        return normalizeOutput(name, output, {
          structured: call.tool.outputSchema !== undefined,
        });
      } catch (error) {
        return err(
          `Tool ${JSON.stringify(name)} failed: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      } finally {
        await drain(pumps);
      }
    })();
    ended = running.then(() => {});
    const grace = graceAfterAbort(call.controller.signal);
    try {
      return await Promise.race([running, grace.expired]);
    } finally {
      grace.stop();
      live = false;
    }
  });
  if (!captured.ok) {
    return answered(frame(encodeResult(call.id, decorate(failure(captured.error.message)))));
  }
  const { value: settled, stderr, droppedBytes } = captured.value;
  if (settled === ABANDONED) return { kind: "abandoned", ended };
  return answered(render(call, settled, stderr, droppedBytes));
}

function answered(line: Uint8Array): RunOutcome {
  return { kind: "answered", line };
}

// Settles CANCELLED_CALL_GRACE_MS after `signal` aborts; `stop` clears it.
function graceAfterAbort(signal: AbortSignal): {
  expired: Promise<typeof ABANDONED>;
  stop: () => void;
} {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const { promise, resolve } = Promise.withResolvers<typeof ABANDONED>();
  const start = () => timer = setTimeout(() => resolve(ABANDONED), CANCELLED_CALL_GRACE_MS);
  if (signal.aborted) start();
  else signal.addEventListener("abort", start, { once: true });
  return {
    expired: promise,
    stop() {
      // Only a timer that was set: the first clearTimeout of a process loads
      // the runtime's timer modules (about 7 ms, on the first call's path).
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener("abort", start);
    },
  };
}

// The answer line of a run that returned, its stderr appended.
function render(
  call: Call,
  value: Result<JsonObject, string>,
  stderr: string,
  droppedBytes: number,
): Uint8Array {
  const decorate = call.decorate ?? ((result: JsonObject) => result);
  const name = call.tool.name;
  const result = value.ok ? value.value : failure(value.error);
  if (stderr !== "" || droppedBytes > 0) {
    const note = droppedBytes > 0 ? `[${droppedBytes} earlier bytes of stderr dropped]\n` : "";
    const content = Array.isArray(result.content) ? result.content : [];
    result.content = [...content, {
      type: "text",
      text: note + stderr,
      _meta: { [STDERR_BLOCK_META_KEY]: true },
    }];
  }
  let line: Uint8Array;
  try {
    line = frame(encodeResult(call.id, decorate(result)));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return frame(
      encodeResult(
        call.id,
        decorate(
          failure(`Tool ${JSON.stringify(name)} returned a result JSON cannot say: ${reason}`),
        ),
      ),
    );
  }
  if (line.length - 1 > MAX_LINE_BYTES) {
    return frame(encodeResult(
      call.id,
      decorate(failure(
        `Tool ${JSON.stringify(name)} returned a result of ${line.length - 1} bytes, ` +
          `past the ${MAX_LINE_BYTES}-byte line limit (MAX_LINE_BYTES); return less`,
      )),
    ));
  }
  return line;
}

function failure(message: string): JsonObject {
  return { content: [{ type: "text", text: message }], isError: true };
}

function toolContext(sink: CaptureSink, signal: AbortSignal, pumps: Pump[]): ToolContext {
  const encoder = new TextEncoder();
  return {
    signal,
    stderr(text: string): void {
      sink.write(encoder.encode(text));
    },
    spawn(command: string | URL, options?: CapturedCommandOptions): Deno.ChildProcess {
      const child = new Deno.Command(command, childOptions(options, "null")).spawn();
      pumps.push(pump(child, sink));
      return child;
    },
    async output(command: string | URL, options?: CapturedCommandOptions): Promise<CapturedOutput> {
      const child = new Deno.Command(command, childOptions(options, "piped")).spawn();
      const drained = pump(child, sink);
      const stdout = child.stdout === null
        ? Promise.resolve(new Uint8Array())
        : collect(child.stdout);
      const [status, bytes] = await Promise.all([child.status, stdout, drained.done]);
      return { success: status.success, code: status.code, signal: status.signal, stdout: bytes };
    },
  };
}

// stdin defaults to "null" (the server's stdin is the wire); stdout may not be
// "inherit" (the server's stdout is the wire too).
function childOptions(
  options: CapturedCommandOptions | undefined,
  stdout: "null" | "piped",
): Deno.CommandOptions {
  const given = options ?? {};
  if (given.stdout === "inherit" || given.stdin === "inherit") {
    throw new TypeError(
      'Cannot give a tool\'s child "inherit" stdin or stdout: they are the protocol channel; use "piped" or "null"',
    );
  }
  return {
    ...given,
    stdin: given.stdin ?? "null",
    stdout: given.stdout ?? stdout,
    stderr: "piped",
  };
}

function pump(child: Deno.ChildProcess, sink: CaptureSink): Pump {
  const entry: Pump = { done: Promise.resolve(), exited: false };
  child.status.then(() => entry.exited = true, () => entry.exited = true);
  entry.done = (async () => {
    try {
      for await (const chunk of child.stderr) sink.write(chunk);
    } catch {
      // The pipe broke; what arrived is kept.
    }
  })();
  return entry;
}

async function drain(pumps: readonly Pump[]): Promise<void> {
  const waiting = pumps.filter((entry) => entry.exited).map((entry) => entry.done);
  if (waiting.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((resolve) =>
    timer = setTimeout(resolve, CHILD_STDERR_DRAIN_MS)
  );
  try {
    await Promise.race([Promise.all(waiting), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    parts.push(chunk);
    size += chunk.length;
  }
  return joinBytes(parts, size);
}

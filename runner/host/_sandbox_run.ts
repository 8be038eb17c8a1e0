/**
 * One sandbox process of the code-mode runner, from the handover of its program to its exit: the
 * channel on its stdin and stdout, its stderr, the deadline, the caps, and
 * the tool calls and resource reads it asks for.
 *
 * Lifecycle: {@linkcode runInSandbox} takes a started process (its program
 * already written into the build root) and owns it from then on. The first
 * decisive event (a final frame, a limit, a channel fault, an abort, the
 * process's own exit) fixes the outcome; every event but a normal end kills
 * the process with SIGKILL. It returns only after the process has exited, both
 * of its output streams have ended, its stdin is closed, and every timer is
 * cleared. Tool calls still in flight then are cancelled through the signal
 * the harness's call was given; one that does not settle within
 * `RUN_GRACE_MS` is recorded as `call_abandoned` and its late outcome dropped.
 *
 * @module
 */

import type { CallToolResult } from "../../codec/protocol.ts";
import type { Result } from "../../codec/result.ts";
import { type FramingFault, LineDecoder, MAX_LINE_BYTES } from "../../codec/framing.ts";
import { type ChannelMessage, decodeChannelMessage, PendingHead } from "./_channel.ts";
import { decodeResult, decodeTagged, taggedText } from "./_tagged.ts";
import { CallLedger } from "./_calls.ts";
import { carrier, readContext, toReply } from "./_carrier.ts";
import { CHILD_STDERR_TAIL_CHARS, MAX_LOG_ENTRIES } from "./limits.ts";
import type {
  CallContext,
  CallFailure,
  CallFunction,
  CallRecord,
  KillReason,
  ReadFunction,
  RunOptions,
} from "./run.ts";
import type { Discovery } from "./discovery.ts";
import { MAX_DISCOVERY_REQUESTS } from "./limits.ts";
import { answerDiscovery, FEATURE_METHODS, readFeatureRequest } from "./_discover.ts";
import type { FeatureFunction, FeatureRequest } from "./run.ts";
import { err, ok } from "../../codec/result.ts";
import { canSampleMemory, OOM, residentBytes, RSS_ALLOWANCE_MB, RSS_SAMPLE_MS } from "./_memory.ts";

/** How a program ended. */
export type SandboxOutcome =
  | { kind: "returned"; value: unknown }
  | { kind: "exited"; code: number }
  | { kind: "threw"; name: string; message: string; stack: string }
  | { kind: "killed"; reason: KillReason; message: string };

/** What one run in a sandbox needs. */
export type SandboxRunOptions = {
  /** The sandbox process, started (perhaps ahead) and waiting for its nonce. */
  child: Deno.ChildProcess;
  /**
   * What of its stdout was read before the run (past its ready line), once
   * that reading let go of the stream; read before the rest.
   */
  stdoutHead?: Promise<Uint8Array> | undefined;
  nonce: string;
  /** The build root as a `file:` URL ending in `/`, and as a path ending in `/`. */
  rootUrl: string;
  rootPath: string;
  call: CallFunction;
  /**
   * Carries each read of a resource; without it, a read goes to `call`
   * marked `resource` (see `CallContext`).
   */
  read?: ReadFunction | undefined;
  /** What each call tells `call` besides its signal: the run, and its approval hook. */
  context?: Omit<CallContext, "signal">;
  /** What is left of the run's deadline for the program, in milliseconds. */
  timeoutMs: number;
  /** The run's whole deadline, as messages name it. */
  runTimeoutMs: number;
  memoryMb: number;
  maxCalls: number;
  maxOutputBytes: number;
  signal: AbortSignal | undefined;
  /** Hears each call's progress, with its call id. */
  onProgress?: RunOptions["onProgress"] | undefined;
  /** What answers the program's `search` and `describe`; none refuses them. */
  discovery?: Discovery | undefined;
  /** What answers the program's listings of prompts and resources; none refuses them. */
  features?: FeatureFunction | undefined;
};

/** What one run in a sandbox reports. */
export type SandboxReport = {
  outcome: SandboxOutcome;
  logs: string[];
  calls: CallRecord[];
};

/** The most characters of a stack reported. */
const MAX_STACK_CHARS = 4096;

const encoder = new TextEncoder();
const lenient = new TextDecoder();

/** The chunks of `stream`, after `head` when it holds any bytes. */
async function* withHead(
  head: Uint8Array | undefined,
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  if (head !== undefined && head.length > 0) yield head;
  yield* stream;
}

class SandboxRun {
  readonly #options: SandboxRunOptions;
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #nonceSpace: string;
  readonly #prefix: Uint8Array;
  #writing: Promise<void> = Promise.resolve();
  #outcome: SandboxOutcome | undefined;
  readonly logs: string[] = [];
  #logBytes = 0;
  readonly #calls: CallLedger;
  #discoveries = 0;
  #stderrTail = "";

  constructor(options: SandboxRunOptions) {
    this.#options = options;
    const carry = carrier(options.call, options.read);
    this.#calls = new CallLedger(carry, options.context, options.onProgress);
    this.#nonceSpace = `${options.nonce} `;
    this.#prefix = encoder.encode(this.#nonceSpace);
    this.#child = options.child;
    this.#writer = this.#child.stdin.getWriter();
    this.#send(`${options.nonce}\n`);
  }

  async run(): Promise<SandboxReport> {
    const { signal, timeoutMs, runTimeoutMs } = this.#options;
    const timer = setTimeout(
      () => this.#kill("timeout", `The program ran past its deadline of ${runTimeoutMs} ms`),
      timeoutMs,
    );
    const sampler = canSampleMemory()
      ? setInterval(() => this.#sampleMemory(), RSS_SAMPLE_MS)
      : undefined;
    const onAbort = (): void => this.#kill("aborted", "The run was aborted by its caller");
    signal?.addEventListener("abort", onAbort);
    if (signal?.aborted) onAbort();
    let status: Deno.CommandStatus;
    try {
      [status] = await Promise.all([
        this.#child.status,
        this.#readStdout(),
        this.#readStderr(),
      ]);
    } finally {
      clearTimeout(timer);
      if (sampler !== undefined) clearInterval(sampler);
      signal?.removeEventListener("abort", onAbort);
    }
    this.#outcome ??= this.#exitOutcome(status);
    // The program is gone: what it still waits for is cancelled (the harness's
    // client tells the server), and a call that does not settle within the
    // grace is given up, so the run ends within its deadline plus the grace.
    const ended = this.#calls.end();
    await this.#writing;
    await this.#writer.close().catch(() => {});
    await ended;
    return { outcome: this.#outcome, logs: this.logs, calls: this.#calls.records };
  }

  #exitOutcome(status: Deno.CommandStatus): SandboxOutcome {
    const byOom = OOM.test(this.#stderrTail) ||
      status.signal === "SIGTRAP" || status.signal === "SIGABRT";
    if (byOom) {
      return {
        kind: "killed",
        reason: "memory",
        message: `The program ran out of memory (cap ${this.#options.memoryMb} MiB)`,
      };
    }
    const how = status.signal === null ? `code ${status.code}` : `signal ${status.signal}`;
    return {
      kind: "killed",
      reason: "channel",
      message: `The sandbox exited (${how}) before the program finished`,
    };
  }

  #settle(outcome: SandboxOutcome): void {
    if (this.#outcome !== undefined) return;
    this.#outcome = outcome;
  }

  #kill(reason: KillReason, message: string): void {
    if (this.#outcome !== undefined) return;
    this.#settle({ kind: "killed", reason, message });
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // It has already exited.
    }
  }

  #sampleMemory(): void {
    const bytes = residentBytes(this.#child.pid);
    const cap = (this.#options.memoryMb + RSS_ALLOWANCE_MB) * 1024 * 1024;
    if (bytes !== undefined && bytes > cap) {
      this.#kill(
        "memory",
        `The program ran out of memory (resident ${Math.round(bytes / 1048576)} MiB, ` +
          `cap ${this.#options.memoryMb} MiB of heap plus ${RSS_ALLOWANCE_MB} MiB)`,
      );
    }
  }

  #send(text: string): void {
    const bytes = encoder.encode(text);
    this.#writing = this.#writing.then(() => this.#writer.write(bytes)).catch(() => {
      // The sandbox is gone; its exit decides the outcome.
    });
  }

  #log(raw: string): void {
    if (this.#outcome !== undefined) return;
    const { maxOutputBytes } = this.#options;
    if (this.logs.length >= MAX_LOG_ENTRIES) {
      this.#kill("output", `The program printed more than ${MAX_LOG_ENTRIES} lines`);
      return;
    }
    const text = this.#unroot(raw);
    const bytes = encoder.encode(text);
    // An empty entry costs the host an entry all the same: each counts one byte at least.
    const cost = Math.max(1, bytes.length);
    if (this.#logBytes + cost <= maxOutputBytes) {
      this.logs.push(text);
      this.#logBytes += cost;
      return;
    }
    const room = maxOutputBytes - this.#logBytes;
    if (room > 0) this.logs.push(lenient.decode(bytes.subarray(0, room)).replace(/\uFFFD$/, ""));
    this.#logBytes = maxOutputBytes;
    this.#kill("output", `The program printed more than ${maxOutputBytes} bytes`);
  }

  /**
   * Counts the lines of a chunk the decoder passed over (empty ones, which it
   * drops) against the output cap, one byte each: a flood of newlines is
   * output like any other.
   */
  #blankLines(chunk: Uint8Array, pushed: Result<string[], FramingFault>): void {
    let newlines = 0;
    for (let index = chunk.indexOf(10); index >= 0; index = chunk.indexOf(10, index + 1)) {
      newlines++;
    }
    const blank = newlines - (pushed.ok ? pushed.value : pushed.error.lines).length;
    if (blank <= 0 || this.#outcome !== undefined) return;
    const { maxOutputBytes } = this.#options;
    this.#logBytes = Math.min(maxOutputBytes, this.#logBytes + blank);
    if (this.#logBytes >= maxOutputBytes) {
      this.#kill("output", `The program printed more than ${maxOutputBytes} bytes`);
    }
  }

  /**
   * Reads the sandbox's stdout to its end: frames and output lines. A line
   * not yet finished counts against the output cap as it grows unless it
   * starts like a frame; a frame is capped by the decoder's line cap
   * ({@linkcode MAX_LINE_BYTES}).
   */
  async #readStdout(): Promise<void> {
    const decoder = new LineDecoder();
    const head = new PendingHead(this.#prefix.length);
    const { maxOutputBytes, nonce } = this.#options;
    const first = await this.#options.stdoutHead;
    for await (const chunk of withHead(first, this.#child.stdout)) {
      if (this.#outcome !== undefined) continue;
      const wasFrame = head.startsLike(this.#prefix);
      const pushed = decoder.push(chunk);
      this.#blankLines(chunk, pushed);
      this.#lines(pushed, wasFrame);
      head.follow(chunk);
      if (decoder.pendingBytes === 0 || this.#outcome !== undefined) continue;
      if (
        !head.startsLike(this.#prefix) && this.#logBytes + decoder.pendingBytes > maxOutputBytes
      ) {
        this.#lines(decoder.end(), false);
      }
    }
    if (this.#outcome !== undefined || decoder.pendingBytes === 0) return;
    const rest = decoder.end();
    const cut = rest.ok
      ? rest.value.some((line) => line.includes(nonce))
      : head.startsLike(this.#prefix);
    if (cut) this.#kill("channel", "The sandbox's last message was cut off");
    else this.#lines(rest, false);
  }

  /** Takes the lines of one push; a fault after them ends the run or is logged. */
  #lines(pushed: Result<string[], FramingFault>, pendingWasFrame: boolean): void {
    const lines = pushed.ok ? pushed.value : pushed.error.lines;
    for (const line of lines) this.#line(line);
    if (pushed.ok || this.#outcome !== undefined) return;
    const fault = pushed.error;
    if (fault.kind === "not_utf8") {
      this.#log(`(a line of ${fault.bytes} bytes that is not UTF-8)`);
    } else if (pendingWasFrame) {
      this.#kill("channel", `The sandbox sent a message larger than ${MAX_LINE_BYTES} bytes`);
    } else {
      this.#kill("output", `The program printed a line longer than ${MAX_LINE_BYTES} bytes`);
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new LineDecoder();
    const take = (pushed: Result<string[], FramingFault>): void => {
      for (const line of pushed.ok ? pushed.value : pushed.error.lines) this.#log(line);
      if (pushed.ok || this.#outcome !== undefined) return;
      if (pushed.error.kind === "not_utf8") {
        this.#log(`(a line of ${pushed.error.bytes} bytes that is not UTF-8)`);
      } else {
        this.#kill("output", `The program printed a line longer than ${MAX_LINE_BYTES} bytes`);
      }
    };
    for await (const chunk of this.#child.stderr) {
      this.#stderrTail = (this.#stderrTail + lenient.decode(chunk)).slice(-CHILD_STDERR_TAIL_CHARS);
      if (this.#outcome !== undefined) continue;
      const pushed = decoder.push(chunk);
      this.#blankLines(chunk, pushed);
      take(pushed);
      if (this.#logBytes + decoder.pendingBytes > this.#options.maxOutputBytes) take(decoder.end());
    }
    if (this.#outcome === undefined) take(decoder.end());
  }

  #line(line: string): void {
    if (this.#outcome !== undefined) return;
    const { nonce } = this.#options;
    if (line.startsWith(this.#nonceSpace)) {
      const frame = decodeChannelMessage(line.slice(this.#nonceSpace.length));
      if (!frame.ok) this.#kill("channel", `The sandbox's channel broke: ${frame.error}`);
      else this.#message(frame.value);
      return;
    }
    if (line.includes(nonce)) {
      this.#kill("channel", "The sandbox's channel broke: a message was interleaved with output");
      return;
    }
    this.#log(line);
  }

  #message(frame: ChannelMessage): void {
    switch (frame.kind) {
      case "log":
        return this.#log(frame.text);
      case "call":
        return this.#call(frame);
      case "read":
        return this.#read(frame);
      case "discover":
        return this.#discover(frame);
      case "done": {
        const value = decodeResult(frame.value);
        if (!value.ok) {
          return this.#kill("channel", `Cannot read the program's result: ${value.error}`);
        }
        return this.#settle({ kind: "returned", value: value.value });
      }
      case "exited":
        return this.#settle({ kind: "exited", code: frame.code });
      case "threw":
        return this.#settle({
          kind: "threw",
          name: frame.name,
          message: this.#unroot(frame.message),
          stack: this.#mapStack(frame.stack),
        });
      case "fault":
        return this.#kill("channel", `The sandbox's channel broke: ${frame.message}`);
    }
  }

  /** Whether one more call or read may start: a fresh id, within the cap; if not, the run ends. */
  #admits(id: number): boolean {
    const { maxCalls } = this.#options;
    if (this.#calls.pending(id)) {
      this.#kill("channel", `The sandbox's channel broke: call ${id} was sent twice`);
      return false;
    }
    if (this.#calls.records.length >= maxCalls) {
      this.#kill("calls", `The program made more than ${maxCalls} tool calls`);
      return false;
    }
    return true;
  }

  #call(frame: ChannelMessage & { kind: "call" }): void {
    if (!this.#admits(frame.id)) return;
    const args = decodeTagged(frame.args);
    if (!args.ok) {
      return this.#kill("channel", `Cannot read the arguments of a call: ${args.error}`);
    }
    this.#calls.start({ ...frame, args: args.value }, (outcome) => this.#reply(frame.id, outcome));
  }

  /** A read of a resource: recorded as the report names it, `resources/read` with its `{ uri }`. */
  #read(frame: ChannelMessage & { kind: "read" }): void {
    if (!this.#admits(frame.id)) return;
    const { id, server, uri } = frame;
    const read = { id, server, tool: "resources/read", args: { uri }, resource: true as const };
    this.#calls.start(read, (outcome) => this.#reply(id, outcome));
  }

  #reply(id: number, outcome: Result<CallToolResult, CallFailure>): void {
    if (this.#outcome !== undefined) return;
    this.#send(`{"kind":"reply","id":${id},"reply":${taggedText(toReply(outcome))}}\n`);
  }

  #discover(frame: ChannelMessage & { kind: "discover" }): void {
    const feature = readFeatureRequest(frame.request);
    if (feature?.kind === "feature" && this.#options.features !== undefined) {
      return this.#feature(frame.id, feature.request, this.#options.features);
    }
    if (++this.#discoveries > MAX_DISCOVERY_REQUESTS) {
      return this.#kill(
        "calls",
        `The program made more than ${MAX_DISCOVERY_REQUESTS} discovery requests`,
      );
    }
    const reply = feature === undefined
      ? answerDiscovery(frame.request, this.#options.discovery)
      : feature.kind === "refused"
      ? feature.reply
      : {
        ok: false,
        code: "features_unavailable",
        message: "Cannot list or get prompts and resources: this runner was given no features; " +
          "run the program through a harness",
      };
    if (reply === undefined) {
      return this.#kill(
        "channel",
        "The sandbox's channel broke: a discovery request is unreadable",
      );
    }
    this.#send(`{"kind":"reply","id":${frame.id},"reply":${taggedText(reply)}}\n`);
  }

  /**
   * A program's listing of prompts or resources, or its get of a prompt: one
   * of the run's calls, counted and recorded as its method, answered by the
   * harness's `features`; the reply is the value, as `tools.ts` reads it.
   */
  #feature(id: number, request: FeatureRequest, features: FeatureFunction): void {
    if (!this.#admits(id)) return;
    const args = request.op === "getPrompt" ? { name: request.name, arguments: request.args } : {};
    this.#calls.start({
      id,
      server: request.server ?? "",
      tool: FEATURE_METHODS[request.op],
      args,
      carry: async (context) => {
        const answered = await features(request, readContext(context));
        return answered.ok
          ? ok({ content: [], structuredContent: answered.value, isError: false })
          : err(answered.error);
      },
    }, (outcome) => {
      if (this.#outcome !== undefined) return;
      const reply = outcome.ok
        ? { ok: true, value: outcome.value.structuredContent ?? null }
        : toReply(outcome);
      this.#send(`{"kind":"reply","id":${id},"reply":${taggedText(reply)}}\n`);
    });
  }

  #unroot(text: string): string {
    return text.replaceAll(this.#options.rootUrl, "").replaceAll(this.#options.rootPath, "");
  }

  #mapStack(stack: string): string {
    const lines = this.#unroot(stack).split("\n").filter((line) =>
      !/\b(?:prelude|bootstrap)\.[jt]s\b|\(ext:|at ext:/.test(line)
    );
    return lines.join("\n").slice(0, MAX_STACK_CHARS);
  }
}

/** Hands the nonce to one sandbox process and runs it to its end (see the module doc). */
export function runInSandbox(options: SandboxRunOptions): Promise<SandboxReport> {
  return new SandboxRun(options).run();
}

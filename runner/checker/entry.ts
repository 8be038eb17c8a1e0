/**
 * The resident checker's process (a process, not a Web Worker: see
 * `runner/host/_checker_process.ts` for why): holds one
 * {@linkcode ClosedWorldCompiler} for its whole life and answers the host's
 * scans and checks, one JSON line on stdout for each JSON line on stdin, in
 * order.
 *
 * Everything this process reads comes in its module graph (the compiler, its
 * library declarations as text imports) or on stdin; it reads no file and
 * runs with no permission at all. A compiler that throws is reported as a
 * `fault`, and the host replaces the process. Lifecycle: the host starts it,
 * and kills it (SIGKILL) on a check's deadline, on its memory bound, after a
 * fault and at retirement; a check runs synchronously, so a kill is the only
 * way to stop one. Between checks it also ends on its own when its stdin
 * closes (the host is gone).
 *
 * @module
 */

import { CAP_SOURCE } from "../../_generated/sandbox_sources.ts";
import { ClosedWorldCompiler } from "./_compiler.ts";
import { type CheckerReply, decodeRequest } from "./protocol.ts";
import { scanImports } from "./_scan.ts";
import { IdleWarmup, warmCheck } from "./_warm.ts";

/** Checks run before `ready` to warm the compiler's code. */
const WARM_ROUNDS = 3;

const encoder = new TextEncoder();

/** Writes one reply line; a host that is gone ends this process. */
function post(reply: CheckerReply): void {
  const bytes = encoder.encode(`${JSON.stringify(reply)}\n`);
  try {
    for (let offset = 0; offset < bytes.length;) {
      offset += Deno.stdout.writeSync(bytes.subarray(offset));
    }
  } catch {
    Deno.exit(0);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function answer(compiler: ClosedWorldCompiler, line: string): CheckerReply {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return { kind: "fault", id: 0, message: "Cannot decode a checker message: it is not JSON" };
  }
  const request = decodeRequest(data);
  if (!request.ok) {
    const id = (data as { id?: unknown } | null)?.id;
    return {
      kind: "fault",
      id: typeof id === "number" && Number.isSafeInteger(id) && id >= 0 ? id : 0,
      message: request.error.message,
    };
  }
  const { id } = request.value;
  try {
    if (request.value.kind === "scan") {
      return { kind: "scanned", id, scan: scanImports(request.value.source) };
    }
    const { files, aliases, vouched } = request.value;
    const diagnostics = compiler.check(files, aliases, vouched);
    return { kind: "checked", id, diagnostics, heapBytes: Deno.memoryUsage().heapUsed };
  } catch (error) {
    return { kind: "fault", id, message: describe(error) };
  }
}

// Libraries are parsed and bound here, and the compiler's code warmed on a
// small program against `cap.ts`, all before `ready`: the first real check
// then costs tens of milliseconds instead of about a second, and no request's
// deadline counts this work.
const compiler = new ClosedWorldCompiler();
for (let round = 0; round < WARM_ROUNDS; round++) {
  compiler.check([["program.ts", `export default ${round};\n`], ["cap.ts", CAP_SOURCE]]);
}
post({ kind: "ready" });

// The rest of the compiler's paths a program takes are warmed while nothing is asked.
const warmup = new IdleWarmup((program) => {
  const { files, vouched } = warmCheck(program);
  compiler.check(files, [], vouched);
});
warmup.idle();

const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of Deno.stdin.readable) {
  warmup.busy();
  // Only the new text can hold the next newline.
  const from = buffer.length;
  buffer += decoder.decode(chunk, { stream: true });
  for (let newline = buffer.indexOf("\n", from); newline >= 0; newline = buffer.indexOf("\n")) {
    post(answer(compiler, buffer.slice(0, newline)));
    buffer = buffer.slice(newline + 1);
  }
  // A line still partly on its way is a request waiting.
  if (buffer === "") warmup.idle();
}
warmup.busy();

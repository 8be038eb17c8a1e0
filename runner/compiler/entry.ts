/**
 * The resident checker's Worker: holds one {@linkcode ClosedWorldCompiler}
 * for its whole life and answers the main thread's scans and checks, one at
 * a time, in order.
 *
 * Everything this Worker reads comes in its module graph (the compiler, its
 * library declarations as text imports) or in messages; it reads no file and
 * needs no permission. A compiler that throws is reported as a `fault`, and
 * the main thread replaces the Worker. The main thread also terminates it on
 * a check's deadline, on its memory bound, and at retirement: nothing here
 * closes itself.
 *
 * @module
 */

import { CAP_SOURCE } from "../../_generated/sandbox_sources.ts";
import { ClosedWorldCompiler } from "./_compiler.ts";
import { type CheckerReply, decodeRequest } from "./_protocol.ts";
import { scanImports } from "./_scan.ts";

/** Checks run before `ready` to warm the compiler's code. */
const WARM_ROUNDS = 3;

type Scope = {
  postMessage(message: CheckerReply): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
};

const scope = globalThis as unknown as Scope;
// Libraries are parsed and bound here, and the compiler's code warmed on a
// small program against `cap.ts`, all before `ready`: the first real check
// then costs tens of milliseconds instead of about a second, and no request's
// deadline counts this work.
const compiler = new ClosedWorldCompiler();
for (let round = 0; round < WARM_ROUNDS; round++) {
  compiler.check([["program.ts", `export default ${round};\n`], ["cap.ts", CAP_SOURCE]]);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

scope.addEventListener("message", (event: MessageEvent) => {
  const request = decodeRequest(event.data);
  if (!request.ok) {
    const id = (event.data as { id?: unknown } | null)?.id;
    scope.postMessage({
      kind: "fault",
      id: typeof id === "number" && Number.isSafeInteger(id) && id >= 0 ? id : 0,
      message: request.error.message,
    });
    return;
  }
  const { id } = request.value;
  try {
    if (request.value.kind === "scan") {
      scope.postMessage({ kind: "scanned", id, scan: scanImports(request.value.source) });
    } else {
      const diagnostics = compiler.check(request.value.files);
      scope.postMessage({
        kind: "checked",
        id,
        diagnostics,
        heapBytes: Deno.memoryUsage().heapUsed,
      });
    }
  } catch (error) {
    scope.postMessage({ kind: "fault", id, message: describe(error) });
  }
});

scope.postMessage({ kind: "ready" });

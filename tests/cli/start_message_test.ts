import assert from "node:assert/strict";
import { startMessage } from "../../cli/_messages.ts";
import type { ServerReport } from "../../harness/mod.ts";

const KNOBS = {
  connect: { setBy: "the default", raise: "--connect-timeout" },
  call: { setBy: "the default", raise: "--timeout" },
};

// A start that met its deadline, whose cleanup found the process already gone by itself.
function silentThenExited(stderrTail: string): ServerReport & { state: "failed" } {
  const message = 'Server "npm" did not answer initialize within 60000 ms';
  return {
    state: "failed",
    name: "npm",
    message,
    stderrTail,
    elapsedMs: 60_000,
    failure: {
      stage: "start",
      error: {
        kind: "handshake_failed",
        message,
        stderrTail,
        cleanup: {
          kind: "exited",
          pid: 4242,
          code: 1,
          signal: null,
          drained: true,
          escalation: "none",
        },
      },
    },
  };
}

Deno.test("startMessage() reports a server that exited by itself as an exit, never as a deadline to raise", () => {
  assert.equal(
    startMessage(silentThenExited(""), KNOBS),
    'Server "npm" exited with code 1 before answering initialize; check its command, args and cwd',
  );
  assert.equal(
    startMessage(silentThenExited("npm error 404"), KNOBS),
    'Server "npm" exited with code 1 before answering initialize; its stderr follows',
  );
});

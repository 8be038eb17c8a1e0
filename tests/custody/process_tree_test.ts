// Custody follows a server's process tree: descendants that left its process
// group (setsid) are found, signalled, drained and guarded at the harness's
// exit like the server itself. Real processes throughout.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { awaitGone, fixture, isLive, survivors } from "../client/_fixtures.ts";

const ESCAPING = fixture("escaping", "escaping_children.ts", {
  flags: ["--allow-run=setsid,sh"],
});

type Family = { server: number; escaped: number; orphaned: number; shell: number };

/** Waits until the fixture reported its descendants and the orphan's shell has exited. */
async function family(client: Client): Promise<Family> {
  for (let i = 0; i < 500; i++) {
    const tail = client.stderrTail();
    const escaped = /escaped (\d+)/.exec(tail);
    const orphaned = /orphaned (\d+) of (\d+)/.exec(tail);
    if (escaped !== null && orphaned !== null) {
      const shell = Number(orphaned[2]);
      assert.deepEqual(await awaitGone([shell]), [], "the orphan's shell exits");
      return {
        server: client.pid ?? -1,
        escaped: Number(escaped[1]),
        orphaned: Number(orphaned[1]),
        shell,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`The fixture did not report its descendants: ${client.stderrTail()}`);
}

function pgidOf(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

Deno.test({
  name: "descendants that called setsid do not survive retirement, and the drain counts them",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const client = new Client(ESCAPING, { retirementTimeoutMs: 5_000 });
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    const pids = await family(client);
    // They left the group: a group signal would not reach them.
    assert.ok(isLive(pids.escaped) && isLive(pids.orphaned));
    assert.notEqual(pgidOf(pids.escaped), pids.server);
    assert.notEqual(pgidOf(pids.orphaned), pids.server);
    const outcome = await client.retire();
    assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
    assert.equal(outcome.value.drained, true);
    assert.deepEqual([pids.escaped, pids.orphaned].filter(isLive), []);
    assert.deepEqual(survivors(pids.server), []);
  },
});

Deno.test({
  name: "when the harness exits, descendants that called setsid die with it",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const harness = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        "--no-lock",
        new URL("../fixtures/escape_harness.ts", import.meta.url).pathname,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = harness.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    const pids = JSON.parse(text) as Family;
    assert.ok([pids.server, pids.escaped, pids.orphaned].every(isLive));
    const writer = harness.stdin.getWriter();
    await writer.write(new TextEncoder().encode("exit\n"));
    await writer.close();
    while (!(await reader.read()).done) { /* drain */ }
    const status = await harness.status;
    assert.equal(status.code, 0);
    assert.deepEqual(await awaitGone([pids.server, pids.escaped, pids.orphaned]), []);
  },
});

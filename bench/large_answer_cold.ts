// The first large answers of a fresh process: each round is a process of its
// own (this script as a child), whose client makes 20 short calls and then
// three calls answered with 8 MiB of text, timed one by one. A process's
// first large answers meet memory its allocator has never handed out, which
// the SDK benchmark's row 5, warmed up first, does not show.
//
//   deno run -A bench/large_answer_cold.ts [processes]     (default 7)

import { Client } from "../client/client.ts";
import { median } from "./_mcp_clients.ts";

const ECHO_SERVER = new URL("../tests/fixtures/echo_server.ts", import.meta.url).pathname;
const LARGE_BYTES = 8 * 1024 * 1024;
const SHORT_CALLS = 20;
const LARGE_CALLS = 3;

/** The child: one client, its short calls, then its large answers' times in ms, as JSON. */
async function child(): Promise<void> {
  const client = new Client({
    name: "echo",
    command: Deno.execPath(),
    args: ["run", "--no-lock", ECHO_SERVER],
  });
  const started = await client.connect();
  if (!started.ok) throw new Error(started.error.message);
  for (let i = 0; i < SHORT_CALLS; i++) {
    const called = await client.callTool("echo", { text: `short ${i}` });
    if (!called.ok) throw new Error(called.error.message);
  }
  const times: number[] = [];
  for (let i = 0; i < LARGE_CALLS; i++) {
    const began = performance.now();
    const called = await client.callTool("big", { bytes: LARGE_BYTES });
    times.push(performance.now() - began);
    if (!called.ok) throw new Error(called.error.message);
  }
  await client.retire();
  console.log(JSON.stringify(times));
}

if (Deno.args[0] === "--child") {
  await child();
} else {
  const processes = Number(Deno.args[0] ?? 7);
  const byCall: number[][] = Array.from({ length: LARGE_CALLS }, () => []);
  for (let round = 0; round < processes; round++) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(import.meta.url).pathname, "--child"],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error("a child failed");
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    const times: number[] = JSON.parse(lines[lines.length - 1] ?? "[]");
    times.forEach((time, i) => byCall[i]?.push(time));
  }
  const load = Deno.loadavg().map((value) => value.toFixed(2)).join(" ");
  console.log(`Deno ${Deno.version.deno}, load ${load}, ${processes} fresh processes`);
  byCall.forEach((times, i) => {
    const each = times.map((time) => time.toFixed(1)).join(", ");
    console.log(`large answer ${i + 1}: p50 ${median(times).toFixed(1)} ms (${each})`);
  });
}

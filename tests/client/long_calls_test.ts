// Long calls against a real fixture server (`long_server.ts`): progress
// reports in order until the answer, a deadline that progress resets and a
// whole-flow bound that cuts it (scaled down a hundredfold: a report every
// 10 ms for 900 ms under a 600 ms deadline), and task-augmented calls in
// both eras, cancelled at their deadline.

import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import type { CallProgress } from "../../client/thread/progress.ts";
import { fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

async function withServer(
  era: "legacy" | "modern",
  body: (client: Client) => Promise<void>,
  options: { optionalTasks?: boolean } = {},
): Promise<string> {
  const spec = fixture("long", "long_server.ts");
  const census = Census.prepare([{ ...spec, args: [...spec.args, era] }], options);
  const client = census.clients.get("long") as Client;
  try {
    assert.ok((await client.connect()).ok);
    assert.ok((await client.listTools()).ok);
    await body(client);
  } finally {
    await census.retire();
  }
  return client.stderrTail();
}

function text(result: Awaited<ReturnType<Client["callTool"]>>): string {
  assert.ok(result.ok, JSON.stringify(result));
  return result.value.content.map((block) => block.type === "text" ? block.text : "").join("");
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a call with onProgress hears each report in order, sanitized, until its answer",
  OPENS_CUSTODIAN,
  async () => {
    const heard: CallProgress[] = [];
    const stderr = await withServer("legacy", async (client) => {
      const result = await client.callTool("progress", { count: 5, everyMs: 5 }, {
        onProgress: (progress) => heard.push(progress),
      });
      assert.equal(text(result), "done after 5");
    });
    // Reports that reach the worker in one read are folded to the newest
    // (a loaded machine can join two 5 ms apart): each heard one is whole, in
    // order, and the last is the last sent.
    const steps = heard.map((p) => p.kind === "progress" ? p.progress : -1);
    assert.ok(steps.length > 0 && steps.every((step, i) => i === 0 || step > steps[i - 1]!));
    assert.deepEqual(heard.at(-1), { kind: "progress", progress: 5, total: 5, message: "step 5" });
    for (const report of heard) {
      assert.ok(report.kind === "progress");
      assert.deepEqual(report, {
        kind: "progress",
        progress: report.progress,
        total: 5,
        message: `step ${report.progress}`,
      });
    }
    assert.match(stderr, /progressToken \d+/);
  },
);

Deno.test("a flood of progress reaches onProgress folded, in order, its newest report last", async () => {
  const count = 50_000;
  const census = Census.prepare([fixture("flood", "progress_flood.ts")]);
  const client = census.clients.get("flood") as Client;
  const heard: CallProgress[] = [];
  try {
    assert.ok((await client.connect()).ok);
    const result = await client.callTool("flood", { count }, {
      resetTimeoutOnProgress: true,
      onProgress: (progress) => heard.push(progress),
    });
    assert.match(text(result), new RegExp(`^flooded ${count} \\(token \\d+\\)$`));
  } finally {
    await census.retire();
  }
  // One report per read of the pipe at most: a read holds many of these lines.
  assert.ok(heard.length > 0 && heard.length <= count / 10, `${heard.length} reports`);
  assert.deepEqual(heard.at(-1), { kind: "progress", progress: count, total: count });
  const steps = heard.map((p) => p.kind === "progress" ? p.progress : -1);
  assert.deepEqual(steps, [...steps].sort((a, b) => a - b), "in the order the server sent them");
});

Deno.test("a call without onProgress sends no progressToken", async () => {
  const stderr = await withServer("legacy", async (client) => {
    assert.equal(text(await client.callTool("progress", { count: 2, everyMs: 1 })), "done after 2");
  });
  assert.doesNotMatch(stderr, /progressToken/);
});

Deno.test("progress resets the deadline of a long call, which then completes", async () => {
  const reports: number[] = [];
  await withServer("modern", async (client) => {
    const result = await client.callTool("progress", { count: 90, everyMs: 10 }, {
      timeoutMs: 600,
      resetTimeoutOnProgress: true,
      onProgress: (report) => {
        if (report.kind === "progress") reports.push(report.progress);
      },
    });
    assert.equal(text(result), "done after 90");
  });
  // Reports read in one turn leave as their newest (the outbox folds them):
  // in order, the last one heard, whatever the load.
  assert.ok(reports.every((value, index) => index === 0 || value > (reports[index - 1] ?? 0)));
  assert.equal(reports.at(-1), 90);
});

Deno.test("without the reset the same call times out at its deadline", async () => {
  await withServer("legacy", async (client) => {
    const result = await client.callTool("progress", { count: 90, everyMs: 10 }, {
      timeoutMs: 600,
      onProgress: () => {},
    });
    assert.ok(!result.ok && result.error.kind === "call_timed_out", JSON.stringify(result));
    assert.equal(result.error.timeoutMs, 600);
  });
});

Deno.test("maxTotalTimeoutMs cuts a call that keeps reporting progress", async () => {
  await withServer("legacy", async (client) => {
    const result = await client.callTool("progress", { count: 90, everyMs: 10 }, {
      timeoutMs: 600,
      resetTimeoutOnProgress: true,
      maxTotalTimeoutMs: 400,
      onProgress: () => {},
    });
    assert.ok(!result.ok && result.error.kind === "call_timed_out", JSON.stringify(result));
    assert.equal(result.error.timeoutMs, 400);
    assert.match(result.error.message, /maxTotalTimeoutMs of 400 ms/);
  });
});

for (const era of ["legacy", "modern"] as const) {
  Deno.test(`a taskSupport "required" tool runs as a task in the ${era} era, its statuses heard`, async () => {
    const heard: CallProgress[] = [];
    const stderr = await withServer(era, async (client) => {
      const result = await client.callTool("research", { stages: 3, stageMs: 20 }, {
        onProgress: (progress) => heard.push(progress),
      });
      assert.equal(text(result), "report after 3 stages");
    });
    const messages = heard.map((p) => p.kind === "task" ? `${p.status}: ${p.message}` : "");
    // A legacy server says each status as it changes; a modern one is polled.
    if (era === "legacy") {
      assert.ok(messages.includes("working: Stage 3 of 3"), messages.join("\n"));
    }
    assert.equal(messages[0], "working: Starting");
    assert.equal(messages.at(-1), "completed: Done");
    assert.ok(heard.every((p) => p.kind === "task" && p.taskId === "task-0"));
    if (era === "legacy") assert.match(stderr, /task \{"ttl":\d+\}/);
  });

  Deno.test(`a task is cancelled at the call's deadline in the ${era} era`, async () => {
    const stderr = await withServer(era, async (client) => {
      const result = await client.callTool("research", { stages: 50, stageMs: 20 }, {
        timeoutMs: 300,
      });
      assert.ok(!result.ok && result.error.kind === "call_timed_out", JSON.stringify(result));
      // The cancel reaches the server before the retirement does.
      await client.ping();
    });
    assert.match(stderr, /cancelled task-0/);
  });
}

Deno.test("a failed task answers what the call would have", async () => {
  await withServer("modern", async (client) => {
    const result = await client.callTool("research", { stages: 1, stageMs: 5, fail: true });
    assert.ok(!result.ok && result.error.kind === "server_error", JSON.stringify(result));
    assert.equal(result.error.error.code, -32000);
  });
  await withServer("legacy", async (client) => {
    const result = await client.callTool("research", { stages: 1, stageMs: 5, fail: true });
    assert.ok(result.ok && result.value.isError, JSON.stringify(result));
  });
});

Deno.test('a taskSupport "optional" tool runs as a task only when asked', async () => {
  await withServer("legacy", async (client) => {
    assert.equal(text(await client.callTool("job", {})), "plain");
    assert.equal(text(await client.callTool("job", {}, { task: true })), "report after 1 stages");
  });
  await withServer("legacy", async (client) => {
    assert.equal(text(await client.callTool("job", {})), "report after 1 stages");
  }, { optionalTasks: true });
});

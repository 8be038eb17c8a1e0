// The harness over a long session, against the fixture server of long calls:
// onServer hears a death and the restart that follows (the listing compared
// and kept), resources read by the harness and by a program, and a run that
// hears each call's progress with its call id.

import assert from "node:assert/strict";
import { boot, type ServerReport } from "../../harness/harness.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 5_000 };

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "onServer hears a ready server's death and its restart, its listing unchanged",
  OPENS_CUSTODIAN,
  async () => {
    const reports: ServerReport[] = [];
    let restarted: () => void = () => {};
    const back = new Promise<void>((resolve) => restarted = resolve);
    const spec = fixture("long", "long_server.ts", { restart: { backoffMs: 100 } });
    const harness = await boot([spec], {
      ...QUICK,
      onServer: (report) => {
        reports.push(report);
        if (report.state === "ready" && report.generation === 2) restarted();
      },
    });
    try {
      const pid = harness.census.clients.get("long")?.pid as number;
      Deno.kill(pid, "SIGKILL");
      await back;
      const [booted, died, again] = reports;
      assert.ok(booted?.state === "ready" && booted.generation === undefined);
      assert.ok(died?.state === "failed" && died.failure.stage === "run", JSON.stringify(died));
      assert.equal(died.generation, 1);
      assert.equal(died.failure.next.kind, "restart");
      assert.ok(again?.state === "ready" && again.listing === "unchanged");
      assert.equal(again.generated, booted.generated);
      const called = await harness.call("long", "whoami", {});
      assert.ok(called.ok && called.value.content[0]?.type === "text");
      assert.notEqual(called.value.content[0].text, String(pid));
    } finally {
      await harness.retire();
    }
  },
);

Deno.test("harness.readResource() and a program's read_resource() reach the server's resources", async () => {
  const harness = await boot([fixture("long", "long_server.ts")], QUICK);
  try {
    const read = await harness.readResource("long", "fixture://text");
    assert.ok(read.ok && "text" in (read.value.contents[0] ?? {}), JSON.stringify(read));
    const unknown = await harness.readResource("nowhere", "fixture://text");
    assert.ok(!unknown.ok && unknown.error.kind === "unknown_server");
    const report = await harness.run(
      'import { read_resource } from "./mcp/long.ts";\n' +
        'const text = await read_resource("fixture://text");\n' +
        'const blob = await read_resource("fixture://blob");\n' +
        'let refused = "";\n' +
        'try { await read_resource("fixture://huge"); } catch (e) { refused = (e as { code: string }).code; }\n' +
        "export default { text: text.text, blob: atob((blob.contents[0] as { blob: string }).blob), refused };",
    );
    assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
    assert.deepEqual(report.outcome.value, {
      text: "a text resource",
      blob: "binary\u0000bytes",
      refused: "resource_too_large",
    });
  } finally {
    await harness.retire();
  }
});

Deno.test("harness.run() hears each call's progress with its call id", async () => {
  const harness = await boot([fixture("long", "long_server.ts")], QUICK);
  try {
    const heard: [number, number][] = [];
    const report = await harness.run(
      'import { progress, whoami } from "./mcp/long.ts";\n' +
        "await whoami({});\n" +
        "export default (await progress({ count: 3, everyMs: 5 })).text;",
      {
        onProgress: (callId, report) => {
          if (report.kind === "progress") heard.push([callId, report.progress]);
        },
      },
    );
    assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
    // Reports read in one turn leave as their newest: in order, the last one heard.
    assert.ok(heard.every(([callId]) => callId === 1), JSON.stringify(heard));
    const values = heard.map(([, progress]) => progress);
    assert.ok(values.every((value, index) => index === 0 || value > (values[index - 1] ?? 0)));
    assert.equal(values.at(-1), 3);
  } finally {
    await harness.retire();
  }
});

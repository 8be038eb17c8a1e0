// A 2025 host is told when run_program's description changes: the gateway
// declares tools.listChanged and sends notifications/tools/list_changed once
// a downstream server's tools change the surface it last listed.

import assert from "node:assert/strict";
import { boot } from "../../harness/mod.ts";
import { fixture } from "../client/_fixtures.ts";
import { type Message, ScriptedHost } from "./_host.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const GOVERNED = fixture("gov", "governed_tools.ts", { flags: ["--allow-env=DESCRIPTION"] });

function runDescription(listed: Message): string {
  const tools = listed.result.tools as { name: string; description: string }[];
  return tools.find((tool) => tool.name === "run_program")?.description ?? "";
}

Deno.test(
  "a 2025 host is told the tools changed when a downstream server's tools change",
  // The file's first boot starts the process's custodian, which outlives the test.
  OPENS_CUSTODIAN,
  async (t) => {
    const harness = await boot([GOVERNED], { retirementTimeoutMs: 5_000 });
    try {
      const host = new ScriptedHost(harness);
      await t.step("initialize declares tools.listChanged", async () => {
        const opened = await host.initialize();
        assert.deepEqual(opened.result.capabilities.tools, { listChanged: true });
      });
      const before = runDescription(await host.call("tools/list"));
      assert.equal(before.includes("extra_0"), false);
      await t.step(
        "a grown server brings one list_changed, and the new listing shows it",
        async () => {
          const grown = await harness.call("gov", "grow", { times: 1 });
          assert.ok(grown.ok);
          const told = await host.next((message) =>
            message.method === "notifications/tools/list_changed"
          );
          assert.equal(told.params, undefined);
          assert.match(runDescription(await host.call("tools/list")), /extra_0/);
          const notices = host.messages().filter((message) =>
            message.method === "notifications/tools/list_changed"
          );
          assert.equal(notices.length, 1);
        },
      );
      await host.leave();
    } finally {
      await harness.retire();
    }
  },
);

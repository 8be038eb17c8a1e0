// A downstream server's word that a URL visit is complete
// (`notifications/elicitation/complete`) reaches the 2025 host that was sent
// there, under the id the host was given.

import assert from "node:assert/strict";
import { boot } from "../../harness/mod.ts";
import { hostHandlers } from "../../gateway/mod.ts";
import { fixture } from "../client/_fixtures.ts";
import { ScriptedHost } from "./_host.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

Deno.test(
  "a URL visit's completion reaches the host that accepted it",
  // The file's first boot starts the process's custodian, which outlives the test.
  OPENS_CUSTODIAN,
  async () => {
    const harness = await boot([fixture("visits", "url_completion.ts")], {
      retirementTimeoutMs: 5_000,
      ...hostHandlers(),
    });
    try {
      const host = new ScriptedHost(harness);
      await host.initialize({ elicitation: { url: {} } });
      const code = 'import { visit } from "./mcp/visits.ts";\n' +
        'export default (await visit({ elicitationId: "visit-9" })).text;\n';
      const id = host.request("tools/call", { name: "run_program", arguments: { code } });
      const asked = await host.next((message) => message.method === "elicitation/create");
      assert.equal(asked.params.mode, "url");
      assert.equal(asked.params.elicitationId, "visit-9");
      host.send({ id: asked.id, result: { action: "accept" } });
      const done = await host.next((message) =>
        message.method === "notifications/elicitation/complete"
      );
      assert.deepEqual(done.params, { elicitationId: "visit-9" });
      const answer = await host.next((reply) => reply.id === id && "result" in reply);
      assert.equal(answer.result.structuredContent.value, "accept");
      await host.leave();
    } finally {
      await harness.retire();
    }
  },
);

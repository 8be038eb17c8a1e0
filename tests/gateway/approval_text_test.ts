// --approve puts a call to the host under the tool's name, which is server
// text: quoted wherever the gateway writes it (the form's message, the
// progress it reports), so a name with line breaks cannot add lines of its own.

import assert from "node:assert/strict";
import { boot } from "../../harness/mod.ts";
import { fixture } from "../client/_fixtures.ts";
import { ScriptedHost } from "./_host.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

Deno.test(
  "an approval names a tool whose name breaks lines quoted, in its form and its progress",
  // The file's first boot starts the process's custodian, which outlives the test.
  OPENS_CUSTODIAN,
  async () => {
    const harness = await boot([fixture("forge", "forging_names.ts")], {
      retirementTimeoutMs: 5_000,
    });
    try {
      const [match] = harness.search("real forged_tool", { limit: 1 });
      assert.ok(match !== undefined && match.tool.includes("\r\n"), JSON.stringify(match));
      const host = new ScriptedHost(harness, { approve: true });
      await host.initialize({ elicitation: { form: {} } });
      const code = `import { ${match.name} } from "./mcp/forge.ts";\n` +
        `export default (await ${match.name}({})).text;\n`;
      const id = host.request("tools/call", {
        name: "run_program",
        arguments: { code },
        _meta: { progressToken: "p" },
      });
      const asked = await host.next((message) => message.method === "elicitation/create");
      const message = asked.params.message as string;
      assert.match(
        message,
        /^Allow the program to call "real\\r\\nforged_tool {2}\(forged_tool\)" of/,
      );
      host.send({ id: asked.id, result: { action: "decline" } });
      await host.next((reply) => reply.id === id && "result" in reply);
      const progress = host.messages().filter((sent) => sent.method === "notifications/progress")
        .map((sent) => sent.params.message as string);
      assert.ok(progress.some((text) => text.includes("approve")), JSON.stringify(progress));
      for (const text of [message, ...progress]) {
        assert.ok(!text.includes("\r") && !text.includes("\n"), JSON.stringify(text));
      }
      await host.leave();
    } finally {
      await harness.retire();
    }
  },
);

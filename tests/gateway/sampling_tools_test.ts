// A downstream server's tool-enabled sampling request (`tools`, `toolChoice`)
// reaches only a host that declared `sampling.tools`: the servers are told
// the harness can sample with tools, but the host is the one to say so.

import assert from "node:assert/strict";
import { boot } from "../../harness/mod.ts";
import { hostHandlers } from "../../gateway/mod.ts";
import { fixture } from "../client/_fixtures.ts";
import { ScriptedHost } from "./_host.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const CODE = 'import { sample } from "./mcp/ask.ts";\n' +
  "const answer = await sample({ params: { maxTokens: 10, messages: " +
  '[{ role: "user", content: { type: "text", text: "Weather?" } }], ' +
  'tools: [{ name: "forecast", inputSchema: { type: "object" } }], toolChoice: { mode: "auto" } } });\n' +
  "export default JSON.parse(answer.text);\n";

Deno.test(
  "a tool-enabled sampling request goes up only to a host that declared sampling.tools",
  // The file's first boot starts the process's custodian, which outlives the test.
  OPENS_CUSTODIAN,
  async (t) => {
    const harness = await boot([fixture("ask", "asking_server.ts")], {
      retirementTimeoutMs: 5_000,
      ...hostHandlers(),
    });
    try {
      await t.step("a host with sampling but not sampling.tools is not asked", async () => {
        const host = new ScriptedHost(harness);
        await host.initialize({ sampling: {} });
        const answer = await host.call("tools/call", {
          name: "run_program",
          arguments: { code: CODE },
        });
        assert.equal(
          host.messages().some((message) => message.method === "sampling/createMessage"),
          false,
        );
        const value = answer.result.structuredContent.value;
        assert.ok("error" in value, JSON.stringify(value));
        assert.match(JSON.stringify(value.error), /sampling\.tools/);
        await host.leave();
      });
      await t.step("a host that declared sampling.tools is asked, tools and all", async () => {
        const host = new ScriptedHost(harness);
        await host.initialize({ sampling: { tools: {} } });
        const id = host.request("tools/call", { name: "run_program", arguments: { code: CODE } });
        const asked = await host.next((message) => message.method === "sampling/createMessage");
        assert.equal(asked.params.tools[0].name, "forecast");
        host.send({
          id: asked.id,
          result: { role: "assistant", content: { type: "text", text: "Sunny" }, model: "m" },
        });
        const answer = await host.next((message) => message.id === id && "result" in message);
        assert.equal(answer.result.structuredContent.value.result.content.text, "Sunny");
        await host.leave();
      });
    } finally {
      await harness.retire();
    }
  },
);

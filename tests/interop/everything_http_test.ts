// The official `server-everything` in its streamableHttp mode, on loopback,
// through the whole pipeline as a remote server: boot (census, handshake over
// HTTP, listing, generation), the surface, a code-mode program calling three
// tools, and retirement that deletes the session.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { serveFixture } from "../client/_http_servers.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "server-everything over Streamable HTTP: boot, surface, a program of three calls, retirement",
  OPENS_CUSTODIAN,
  async (t) => {
    const port = freePort();
    const server = await serveFixture("everything_http.ts", [], { PORT: String(port) });
    try {
      const harness = await boot([{
        name: "everything",
        url: `http://127.0.0.1:${port}/mcp`,
        headers: {},
        connectTimeoutMs: 30_000,
      }]);
      try {
        await t.step("boot: the legacy era, through the probe", () => {
          const report = harness.reports.get("everything");
          assert.ok(report?.state === "ready", JSON.stringify(report));
          assert.equal(report.info.era, "legacy");
          assert.ok(report.tools.some((tool) => tool.name === "get-sum"));
        });
        await t.step("the surface lists its tools", () => {
          assert.match(
            harness.surface,
            /^get_sum\(args: \{ a: number; b: number \}\): Promise<ToolResult>/m,
          );
          assert.match(harness.surface, /^echo\(args: \{ message: string \}\)/m);
        });
        await t.step("a program calls three tools", async () => {
          const program = [
            'import { echo, get_structured_content, get_sum } from "./mcp/everything.ts";',
            'const weather = await get_structured_content({ location: "Chicago" });',
            "const sum = await get_sum({ a: 2, b: 40 });",
            'const said = (await echo({ message: "over http" })).text;',
            "export default { celsius: typeof weather.structuredContent.temperature, sum: sum.text, said };",
          ].join("\n");
          const report = await harness.run(program, { timeoutMs: 60_000 });
          assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
          assert.ok(report.outcome.kind === "returned");
          const value = report.outcome.value as Record<string, string>;
          assert.equal(value.celsius, "number");
          assert.match(value.sum ?? "", /\b42\b/);
          assert.equal(value.said, "Echo: over http");
          assert.equal(report.calls.length, 3);
        });
      } finally {
        await t.step("retirement deletes the session", async () => {
          const retired = await harness.retire();
          assert.ok(retired.confirmed);
          const outcome = retired.clients.get("everything");
          assert.ok(outcome?.ok && outcome.value.kind === "remote", JSON.stringify(outcome));
          assert.equal(outcome.value.session, "deleted");
        });
      }
    } finally {
      await server.close();
    }
  },
);

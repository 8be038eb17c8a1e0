// The official MCP servers booted through the JSON `mcpServers` form of the
// catalog (.mcp.json, Claude Desktop): the same specs as the TOML form, every
// tool listed, one call each, and retirement with no process left.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { REQUESTED_VERSION } from "../../codec/protocol.ts";
import {
  descendants,
  isLive,
  jsonCatalogSpecs,
  leftovers,
  localize,
  makeScratch,
  recordedToolNames,
  SERVERS,
  tomlCatalogSpecs,
} from "./_servers.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "the official servers boot from the JSON mcpServers form, answer, and retire",
  OPENS_CUSTODIAN,
  async (t) => {
    const scratch = await makeScratch();
    const harness = await boot(localize(jsonCatalogSpecs(), scratch));
    let retired = false;
    try {
      await t.step("the JSON form reads to the same specs as the TOML form", () => {
        assert.deepEqual(jsonCatalogSpecs(), tomlCatalogSpecs());
      });

      await t.step("each server is ready and lists every tool", () => {
        for (const server of SERVERS) {
          const report = harness.reports.get(server);
          assert.ok(report?.state === "ready", `${server}: ${JSON.stringify(report)}`);
          assert.equal(report.info.protocolVersion, REQUESTED_VERSION);
          assert.deepEqual(
            report.tools.map((tool) => tool.name).toSorted(),
            recordedToolNames(server).toSorted(),
          );
          assert.ok(harness.surface.includes(`// mcp/${server}.ts `), server);
        }
      });

      await t.step("one call to each server succeeds", async (t) => {
        const cases = [
          {
            server: "everything",
            tool: "echo",
            args: { message: "from json" },
            expect: /^Echo: from json$/,
          },
          {
            server: "filesystem",
            tool: "list_allowed_directories",
            args: {},
            expect: new RegExp(`^Allowed directories:\\n${scratch.allowed}$`),
          },
          { server: "memory", tool: "read_graph", args: {}, expect: /"entities": \[\]/ },
          {
            server: "sequential-thinking",
            tool: "sequentialthinking",
            args: { thought: "one", thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false },
            expect: /"thoughtHistoryLength": 1/,
          },
        ];
        for (const c of cases) {
          await t.step(c.server, async () => {
            const result = await harness.call(c.server, c.tool, c.args);
            assert.ok(result.ok && !result.value.isError, JSON.stringify(result));
            const text = result.value.content.map((block) =>
              block.type === "text" ? block.text : ""
            )
              .join("");
            assert.match(text, c.expect);
          });
        }
      });

      await t.step("retirement leaves no process of any server", async () => {
        const pids = SERVERS.map((server) => harness.census.clients.get(server)?.pid ?? -1);
        assert.ok(pids.every(isLive), JSON.stringify(pids));
        const family = [...pids, ...descendants(pids)];
        retired = true;
        const report = await harness.retire();
        assert.equal(report.confirmed, true, JSON.stringify([...report.clients]));
        for (const [index, server] of SERVERS.entries()) {
          const outcome = report.clients.get(server);
          assert.ok(outcome?.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
          assert.equal(outcome.value.pid, pids[index]);
          assert.equal(outcome.value.drained, true);
        }
        assert.deepEqual(family.filter(isLive), []);
        assert.deepEqual(leftovers(scratch.marker), []);
      });
    } finally {
      if (!retired) await harness.retire();
      await Deno.remove(scratch.root, { recursive: true });
    }
  },
);

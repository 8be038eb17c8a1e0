// Discovery's quality on real listings: the labelled query set of
// tests/harness/data/discovery_queries.ts, over the twenty fixture servers
// made of every listing of tests/corpus/servers/ (584 tools). The tool a
// query means must be among the first five matches for at least 90% of the
// queries.

import assert from "node:assert/strict";
import { ToolIndex } from "../../harness/_discovery.ts";
import { DEFAULT_SURFACE_BUDGET_BYTES } from "../../harness/limits.ts";
import { DISCOVERY_QUERIES } from "./data/discovery_queries.ts";
import { listingReports } from "./_reports.ts";

const TOP = 5;
const LEAST_RATE = 0.9;

Deno.test("the query set is at least 100 queries over at least 20 servers, each naming a tool", () => {
  const reports = listingReports();
  assert.ok(DISCOVERY_QUERIES.length >= 100, String(DISCOVERY_QUERIES.length));
  assert.ok(new Set(DISCOVERY_QUERIES.map(([, server]) => server)).size >= 20);
  for (const [query, server, tool] of DISCOVERY_QUERIES) {
    const report = reports.get(server);
    assert.ok(report?.state === "ready", `${query}: no server ${server}`);
    const wires = new Set(report.generated.manifest.values());
    assert.ok(wires.has(tool), `${query}: ${server} has no tool ${tool}`);
  }
});

Deno.test(`search() finds the tool a query means in its first ${TOP} for 90% of the queries`, () => {
  const index = new ToolIndex(listingReports(), DEFAULT_SURFACE_BUDGET_BYTES);
  const misses: string[] = [];
  for (const [query, server, tool] of DISCOVERY_QUERIES) {
    const found = index.search(query, { limit: TOP });
    if (!found.some((match) => match.server === server && match.tool === tool)) {
      misses.push(
        `${query}: wanted ${server}/${tool}, found ` +
          found.map((match) => `${match.server}/${match.tool}`).join(", "),
      );
    }
  }
  const rate = 1 - misses.length / DISCOVERY_QUERIES.length;
  console.log(
    `top-${TOP} rate: ${(rate * 100).toFixed(1)}% of ${DISCOVERY_QUERIES.length} queries ` +
      `(${misses.length} missed)`,
  );
  assert.ok(
    rate >= LEAST_RATE,
    `top-${TOP} rate ${rate.toFixed(3)}; missed:\n${misses.join("\n")}`,
  );
});

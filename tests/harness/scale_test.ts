// Code mode at scale, with real servers: twenty fixture servers replaying
// every real listing of tests/corpus/servers/ (584 tools). The surface is
// within its budget and byte-identical across two boots; a harness that
// runs no program starts no checker and no sandbox, whatever it searches;
// and a tool found through ./tools.ts in one program type-checks and runs
// in the next.

import assert from "node:assert/strict";
import { boot, type Harness } from "../../harness/harness.ts";
import { DEFAULT_SURFACE_BUDGET_BYTES } from "../../harness/limits.ts";
import { listingSpecs } from "../fixtures/_listings.ts";
import { sandboxProcesses } from "../runner/host/_children.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

// This file's own folder for sandboxes: under --parallel, other files' sandboxes
// are children of the same process, so a scan looks only for its own.
const SANDBOXES = Deno.makeTempDirSync({ prefix: "loom-scale-" });
const OPTIONS = { retirementTimeoutMs: 10_000, sandboxTempDir: SANDBOXES };
globalThis.addEventListener("unload", () => Deno.removeSync(SANDBOXES, { recursive: true }));

async function bootAll(): Promise<Harness> {
  const harness = await boot(listingSpecs(), OPTIONS);
  const failed = [...harness.reports.values()].filter((report) => report.state !== "ready");
  assert.deepEqual(failed.map((report) => report.name), []);
  return harness;
}

async function retired(harness: Harness): Promise<void> {
  const report = await harness.retire();
  assert.ok(report.confirmed, JSON.stringify([...report.clients]));
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "twenty servers, 584 tools: a surface within budget, the same bytes on two boots",
  OPENS_CUSTODIAN,
  async () => {
    const first = await bootAll();
    let surface: string;
    try {
      surface = first.surface;
      const tools = [...first.modules.values()].reduce((sum, m) => sum + m.manifest.size, 0);
      assert.equal(first.modules.size, 20);
      assert.equal(tools, 584);
      assert.ok(new TextEncoder().encode(surface).length <= DEFAULT_SURFACE_BUDGET_BYTES);
    } finally {
      await retired(first);
    }
    const second = await bootAll();
    try {
      assert.equal(second.surface, surface);
    } finally {
      await retired(second);
    }
  },
);

Deno.test("a harness that searches and describes but runs no program starts nothing", async () => {
  const harness = await bootAll();
  try {
    assert.ok(harness.search("open a pull request", { limit: 5 }).length > 0);
    assert.ok(harness.describe("github", "create_pull_request").ok);
    const stats = harness.runnerStats();
    assert.equal(stats.checker.state, "idle");
    assert.equal(stats.checker.pid, undefined);
    assert.equal(stats.waiting, 0);
    assert.deepEqual(sandboxProcesses(SANDBOXES), []);
  } finally {
    await retired(harness);
  }
});

Deno.test("a tool found through ./tools.ts type-checks and runs in the next program", async () => {
  const harness = await bootAll();
  try {
    const found = await harness.run(
      'import { describe, search } from "./tools.ts";\n' +
        'const [best] = await search("comment on an existing GitHub issue", { limit: 5 });\n' +
        'if (best === undefined) throw new Error("nothing found");\n' +
        "export default { best, block: await describe(best.server, best.tool) };\n",
    );
    assert.equal(found.outcome.kind, "returned", JSON.stringify(found.outcome));
    const { best, block } = (found.outcome as { value: { best: Found; block: string } }).value;
    assert.equal(`${best.server}/${best.tool}`, "github/add_issue_comment");
    assert.match(block, /export function add_issue_comment\(args: \{/);
    // The next turn: the model writes the call from the signature it read.
    const called = await harness.run(
      `import { ${best.name} } from "./mcp/${best.server}.ts";\n` +
        `const result = await ${best.name}({ owner: "o", repo: "r", issue_number: 7, body: "hi" });\n` +
        "export default JSON.parse(result.text);\n",
    );
    assert.deepEqual(called.outcome, {
      kind: "returned",
      value: {
        tool: "add_issue_comment",
        arguments: { owner: "o", repo: "r", issue_number: 7, body: "hi" },
      },
    });
  } finally {
    await retired(harness);
  }
  assert.deepEqual(sandboxProcesses(SANDBOXES), []);
});

type Found = { server: string; tool: string; name: string };

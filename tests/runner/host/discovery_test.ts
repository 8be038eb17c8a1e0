// A program finds tools through `./tools.ts`: its `search` and `describe`
// reach the runner's discovery (the harness's, here a fake one) through the
// sandbox's channel, refusals become McpCallError with their code, the
// requests of one run are bounded, and a runner without discovery refuses
// them as a value.

import assert from "node:assert/strict";
import { err, ok } from "../../../codec/result.ts";
import type { RunModule } from "../../../runner/host/run.ts";
import { Runner } from "../../../runner/host/runner.ts";
import { type Discovery, searchProblem, type ToolMatch } from "../../../runner/host/discovery.ts";
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_DISCOVERY_REQUESTS,
  MAX_SEARCH_LIMIT,
} from "../../../runner/host/limits.ts";
import type { ToolMatch as ProgramMatch } from "../../../runner/sandbox/tools.ts";

const ECHO: RunModule = {
  segment: "echo",
  source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function echo(args: { text: string }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "echo", args);\n}\n',
};
const MODULES = new Map([["echo", ECHO]]);
const MATCH: ToolMatch = {
  server: "echo",
  tool: "echo",
  name: "echo",
  line: "echo(args: { text: string }): Promise<ToolResult>  // Echoes",
  score: 1.5,
};

function call() {
  return Promise.resolve(ok({ content: [{ type: "text" as const, text: "ok" }], isError: false }));
}

/** A discovery that records what it was asked. */
function fakeDiscovery(asked: string[]): Discovery {
  return {
    search: (query, options) => {
      asked.push(`search ${query} ${options?.limit ?? "-"}`);
      return [MATCH];
    },
    describe: (server, tool) => {
      asked.push(`describe ${server} ${tool}`);
      return server === "echo"
        ? ok('// import { echo } from "./mcp/echo.ts";\nexport function echo() {}\n')
        : err({ kind: "unknown_server", message: `no server ${server}` });
    },
  };
}

async function withRunner(
  discovery: Discovery | undefined,
  body: (runner: Runner) => Promise<void>,
): Promise<void> {
  const runner = new Runner({
    modules: MODULES,
    call,
    ...(discovery === undefined ? {} : { discovery }),
  });
  try {
    await body(runner);
  } finally {
    await runner.retire();
  }
}

Deno.test("a program searches and describes through ./tools.ts, type-checked", async () => {
  const asked: string[] = [];
  await withRunner(fakeDiscovery(asked), async (runner) => {
    const report = await runner.run(
      'import { describe, search, type ToolMatch } from "./tools.ts";\n' +
        'const found: ToolMatch[] = await search("repeat my words", { limit: 3 });\n' +
        "const first = found[0];\n" +
        "export default { found, block: first ? await describe(first.server, first.tool) : '' };\n",
    );
    assert.deepEqual(report.outcome, {
      kind: "returned",
      value: {
        found: [MATCH],
        block: '// import { echo } from "./mcp/echo.ts";\nexport function echo() {}\n',
      },
    });
    assert.deepEqual(asked, ["search repeat my words 3", "describe echo echo"]);
    // Discovery requests are not tool calls.
    assert.deepEqual(report.calls, []);
  });
});

Deno.test("a refused description is McpCallError with the refusal's code", async () => {
  await withRunner(fakeDiscovery([]), async (runner) => {
    const report = await runner.run(
      'import { describe } from "./tools.ts";\nimport { McpCallError } from "@loom/mcp/cap";\n' +
        'try { await describe("nowhere", "x"); } catch (error) {\n' +
        "  if (error instanceof McpCallError) console.log(error.code, error.message);\n}\n",
    );
    assert.equal(report.outcome.kind, "returned");
    assert.deepEqual(report.logs, ["unknown_server no server nowhere"]);
  });
});

Deno.test("a search past the limit's bounds is refused before discovery is asked", async () => {
  const asked: string[] = [];
  await withRunner(fakeDiscovery(asked), async (runner) => {
    const report = await runner.run(
      'import { search } from "./tools.ts";\nimport { McpCallError } from "@loom/mcp/cap";\n' +
        `try { await search("x", { limit: ${MAX_SEARCH_LIMIT + 1} }); } catch (error) {\n` +
        "  if (error instanceof McpCallError) console.log(error.code);\n}\n",
    );
    assert.deepEqual(report.logs, ["invalid_arguments"]);
    assert.deepEqual(asked, []);
  });
});

Deno.test(`a run past ${MAX_DISCOVERY_REQUESTS} discovery requests is killed for its calls`, async () => {
  await withRunner(fakeDiscovery([]), async (runner) => {
    const report = await runner.run(
      'import { search } from "./tools.ts";\n' +
        `for (let i = 0; i <= ${MAX_DISCOVERY_REQUESTS}; i++) await search("x");\n`,
    );
    assert.equal(report.outcome.kind, "killed");
    assert.ok(report.outcome.kind === "killed" && report.outcome.reason === "calls");
    assert.deepEqual(report.limits.hit, ["calls"]);
  });
});

Deno.test("a runner given no discovery refuses a program's search as a value", async () => {
  await withRunner(undefined, async (runner) => {
    const report = await runner.run(
      'import { search } from "./tools.ts";\nimport { McpCallError } from "@loom/mcp/cap";\n' +
        'try { await search("x"); } catch (error) {\n' +
        "  if (error instanceof McpCallError) console.log(error.code);\n}\n",
    );
    assert.deepEqual(report.logs, ["discovery_unavailable"]);
  });
});

// The sandbox's tools.ts imports nothing, so it mirrors the type; the type
// check of this file fails when the two differ.
type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false;
const MIRRORED: Same<ToolMatch, ProgramMatch> = true;

Deno.test("a program's ToolMatch is the harness's, field for field", () => {
  assert.equal(MIRRORED, true);
});

Deno.test("a search limit that is no integer in range is said with its kind and what to give", () => {
  assert.equal(searchProblem("x", undefined), undefined);
  assert.equal(searchProblem("x", 3), undefined);
  assert.equal(
    searchProblem("x", "3"),
    `Cannot search: the limit "3" (string) is not an integer from 1 to ${MAX_SEARCH_LIMIT}; ` +
      `give a number, or leave it out for ${DEFAULT_SEARCH_LIMIT}`,
  );
  assert.match(searchProblem("x", 0) ?? "", /the limit 0 is not an integer from 1 to/);
  assert.match(searchProblem("x", null) ?? "", /the limit null \(null\)/);
});

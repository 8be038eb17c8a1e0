import assert from "node:assert/strict";
import { importedSegments } from "../../../runner/host/run.ts";

Deno.test("importedSegments() reads the specifiers that name a module segment, each once", () => {
  const source = [
    'import { read_graph } from "./mcp/memory.ts";',
    "import { search } from './mcp/github.ts';",
    'import { again } from "./mcp/memory.ts";',
    "const later = await import(`./mcp/my-server_2.ts`);",
    // Not module segments, by the one rule: uppercase, a device name, too long, a path.
    'import "./mcp/GitHub.ts";',
    'import "./mcp/con.ts";',
    `import "./mcp/${"a".repeat(65)}.ts";`,
    'import "./mcp/../x.ts";',
    'import "./mcp/a.b.ts";',
    "export default 1;",
  ].join("\n");
  assert.deepEqual(importedSegments(source), ["memory", "github", "my-server_2"]);
});

Deno.test("importedSegments() keeps a segment of the longest length", () => {
  const longest = "a".repeat(64);
  assert.deepEqual(importedSegments(`import "./mcp/${longest}.ts";`), [longest]);
});

// The catalog's log_level key: the least level of log messages asked of a
// server, judged by the spec's own check and said of the key.

import assert from "node:assert/strict";
import { readCatalog } from "../../catalog/read.ts";

Deno.test("a TOML entry's log_level reaches its spec", () => {
  const read = readCatalog('[mcp.db]\ncommand = "db-mcp"\nlog_level = "warning"\n', {
    mode: "strict",
  });
  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.value.servers[0]?.logLevel, "warning");
});

Deno.test("a JSON entry's log_level reaches its spec", () => {
  const text = JSON.stringify({ mcpServers: { db: { command: "db-mcp", log_level: "debug" } } });
  const read = readCatalog(text, { file: ".mcp.json", mode: "strict" });
  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.value.servers[0]?.logLevel, "debug");
});

Deno.test("a log_level that is no level is refused, said of its key", () => {
  const read = readCatalog('[mcp.db]\ncommand = "db-mcp"\nlog_level = "loud"\n', {
    file: "loom.toml",
    mode: "strict",
  });
  assert.ok(!read.ok && read.error.kind === "invalid_entry", JSON.stringify(read));
  assert.match(read.error.message, /key "log_level": expected "debug", .* or "emergency"/);
});

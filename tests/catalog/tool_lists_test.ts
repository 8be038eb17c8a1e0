// The catalog's keys for the tools a harness exposes: enabled_tools and
// disabled_tools in TOML (Codex's spelling), and in JSON also the names
// other tools' files hold (enabledTools/disabledTools, mcporter's
// allowedTools/blockedTools); result_check in both.

import assert from "node:assert/strict";
import { readCatalog } from "../../catalog/read.ts";

Deno.test("a TOML entry's enabled_tools, disabled_tools and result_check reach its spec", () => {
  const read = readCatalog(
    '[mcp.gh]\ncommand = "gh-mcp"\nenabled_tools = ["search", "get_issue"]\n' +
      'disabled_tools = ["delete_repo"]\nresult_check = "warn"\n',
    { mode: "strict" },
  );
  assert.ok(read.ok, JSON.stringify(read));
  const [spec] = read.value.servers;
  assert.deepEqual(spec?.enabledTools, ["search", "get_issue"]);
  assert.deepEqual(spec?.disabledTools, ["delete_repo"]);
  assert.equal(spec?.resultCheck, "warn");
});

Deno.test("a JSON entry's lists are read under every spelling people write", async (t) => {
  const cases: [string, string, "enabledTools" | "disabledTools"][] = [
    ["enabled_tools", "enabled_tools", "enabledTools"],
    ["enabledTools", "enabledTools", "enabledTools"],
    ["mcporter's allowedTools", "allowedTools", "enabledTools"],
    ["disabled_tools", "disabled_tools", "disabledTools"],
    ["disabledTools", "disabledTools", "disabledTools"],
    ["mcporter's blockedTools", "blockedTools", "disabledTools"],
  ];
  for (const [name, key, list] of cases) {
    await t.step(name, () => {
      const read = readCatalog(
        JSON.stringify({ mcpServers: { gh: { command: "gh-mcp", [key]: ["a", "b"] } } }),
        { file: ".mcp.json", mode: "strict" },
      );
      assert.ok(read.ok, JSON.stringify(read));
      assert.deepEqual(read.value.servers[0]?.[list], ["a", "b"]);
    });
  }
  await t.step("a remote entry's too", () => {
    const read = readCatalog(
      JSON.stringify({ mcpServers: { r: { url: "https://a.example/mcp", blockedTools: ["x"] } } }),
      { file: ".mcp.json", mode: "strict" },
    );
    assert.ok(read.ok, JSON.stringify(read));
    assert.deepEqual(read.value.servers[0]?.disabledTools, ["x"]);
  });
});

Deno.test("the catalog refuses a list it cannot read, saying what to write", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    [
      "a string",
      '[mcp.gh]\ncommand = "x"\ndisabled_tools = "delete_repo"\n',
      "loom.toml",
      /key "disabled_tools": expected an array of tool names, found a string \("delete_repo"\); write disabled_tools = \["delete_repo"\]/,
    ],
    [
      "a number in it",
      '[mcp.gh]\ncommand = "x"\nenabled_tools = ["a", 2]\n',
      "loom.toml",
      /key "enabled_tools": expected an array of tool names, found an integer \(2\) at index 1/,
    ],
    [
      "two spellings of one list",
      JSON.stringify({
        mcpServers: { gh: { command: "x", allowedTools: ["a"], enabledTools: ["b"] } },
      }),
      ".mcp.json",
      /key "allowedTools": the same list as "enabledTools"; keep one of "enabledTools" and "allowedTools"/,
    ],
    [
      "an unknown result_check",
      '[mcp.gh]\ncommand = "x"\nresult_check = "ignore"\n',
      "loom.toml",
      /key "result_check": expected "refuse" or "warn", found a string \("ignore"\)/,
    ],
    [
      "a JSON spelling in TOML",
      '[mcp.gh]\ncommand = "x"\nallowedTools = ["a"]\n',
      "loom.toml",
      /key "allowedTools": unknown key/,
    ],
  ];
  for (const [name, text, file, message] of cases) {
    await t.step(name, () => {
      const read = readCatalog(text, { file, mode: "strict" });
      assert.ok(!read.ok, JSON.stringify(read));
      assert.equal(read.error.kind, "invalid_entry");
      assert.match(read.error.message, message);
    });
  }
});

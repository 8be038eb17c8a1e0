// Hostile catalogs: every reading ends in a catalog or a named error, never
// an exception, and never reads more of the harness's environment than it
// was allowed.

import assert from "node:assert/strict";
import { type Catalog, isRemote, readCatalog } from "../../mod.ts";
import fc from "fast-check";
import { MAX_EXPANDED_CHARS } from "../../catalog/mod.ts";
import { invalidUtf8At } from "../../catalog/_file.ts";
import { checkSpec } from "../../settings/check.ts";

function value(result: ReturnType<typeof readCatalog>): Catalog {
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.value;
}

Deno.test("readCatalog() refuses an entry whose variables expand past MAX_EXPANDED_CHARS, naming the key", async (t) => {
  const big = "A".repeat(64 * 1024);
  // 20,000 copies of a 64 KiB value: 1.3 GB, past what a string may hold.
  const many = "${A}".repeat(20_000);
  const cases = {
    args: { command: "x", args: [many] },
    env: { command: "x", env: { B: many } },
    headers: { url: "https://example.com/mcp", headers: { "X-A": many } },
    // Many values, each small enough alone.
    "args across values": { command: "x", args: Array.from({ length: 40 }, () => "${A}") },
  };
  for (const [label, entry] of Object.entries(cases)) {
    await t.step(label, () => {
      const read = value(readCatalog(JSON.stringify({ mcpServers: { a: entry } }), {
        file: ".mcp.json",
        env: { A: big },
      }));
      assert.deepEqual(read.servers, []);
      const key = label.split(" ")[0];
      assert.equal(read.skipped[0]?.error?.kind, "invalid_entry");
      assert.equal(read.skipped[0]?.error?.key, key);
      assert.match(
        read.skipped[0]?.message ?? "",
        new RegExp(`key "${key}": its values hold more than ${MAX_EXPANDED_CHARS} characters`),
      );
    });
  }
  await t.step("within the budget, expanded as written", () => {
    const read = value(readCatalog(
      JSON.stringify({ mcpServers: { a: { command: "x", args: ["${A}${A}"] } } }),
      { file: ".mcp.json", env: { A: big } },
    ));
    const [server] = read.servers;
    assert.ok(server !== undefined && !isRemote(server));
    assert.equal(server.args[0]?.length, 2 * big.length);
  });
});

Deno.test("readCatalog() takes an env file's values as written: its ${VAR} reads nothing of the environment", async (t) => {
  const text = JSON.stringify({
    servers: { app: { command: "node", envFile: ".env", env: { OWN: "${LEVEL}" } } },
  });
  const envFile = () => ({ ok: true as const, value: "TOKEN=${SECRET}\nHOMEDIR=${HOME}\n" });
  for (
    const [label, expand] of [
      ["a reading that allows no variable but LEVEL", { expand: { allow: ["LEVEL"] } }],
      ["a reading that allows every variable", {}],
    ] as const
  ) {
    await t.step(label, () => {
      const read = value(readCatalog(text, {
        file: "mcp.json",
        env: { SECRET: "s3cr3t", HOME: "/home/me", LEVEL: "info" },
        workspaceFolder: "/w",
        envFile,
        ...expand,
      }));
      const [app] = read.servers;
      assert.ok(app !== undefined && !isRemote(app));
      assert.deepEqual({ ...app.env }, {
        TOKEN: "${SECRET}",
        HOMEDIR: "${HOME}",
        OWN: "info",
      });
      assert.doesNotMatch(JSON.stringify(read), /s3cr3t/);
    });
  }
});

Deno.test("invalidUtf8At() finds a bad byte exactly where the decoder refuses the bytes (property)", () => {
  const fatal = new TextDecoder("utf-8", { fatal: true });
  const refused = (bytes: Uint8Array) => {
    try {
      fatal.decode(bytes);
      return false;
    } catch {
      return true;
    }
  };
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          fc.integer({ min: 0, max: 255 }),
          // Lead and continuation bytes, often, so that near-characters are tried.
          fc.integer({ min: 0x80, max: 0xbf }),
          fc.constantFrom(0xc0, 0xc2, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5),
        ),
        { maxLength: 12 },
      ),
      (list) => {
        const bytes = new Uint8Array(list);
        const at = invalidUtf8At(bytes);
        assert.equal(at !== undefined, refused(bytes));
        // What comes before the bad byte decodes.
        if (at !== undefined) assert.equal(refused(bytes.subarray(0, at)), false);
      },
    ),
    { numRuns: 5_000 },
  );
});

Deno.test("readCatalog() says where a JSON text nests too deep or holds a number past a double", async (t) => {
  const cases: [string, string, [number, number], string][] = [
    [
      "nested past MAX_JSON_DEPTH, after a string holding brackets",
      `{\n  "note": "[[{\\"[",\n  "x": ${"[".repeat(300)}${"]".repeat(300)}\n}`,
      // The object is the first level: the 256th bracket opens the 257th.
      [3, 263],
      "nesting is deeper than 256",
    ],
    [
      "a number past a double, after smaller ones",
      '{"mcpServers": {"a": {"command": "x",\n  "connect_timeout_ms": -1.5e3, "call_timeout_ms": 1e400}}}',
      [2, 52],
      "a number is too large for a double",
    ],
  ];
  for (const [label, text, [line, column], reason] of cases) {
    await t.step(label, () => {
      const read = readCatalog(text, { file: ".mcp.json" });
      assert.ok(!read.ok);
      assert.equal(read.error.kind, "invalid_json");
      assert.deepEqual([read.error.line, read.error.column], [line, column]);
      assert.equal(
        read.error.message,
        `.mcp.json: invalid JSON at line ${line}, column ${column}: ${reason}`,
      );
    });
  }
});

Deno.test("readCatalog() bounds a TOML text's nesting by dotted keys and headers as by inline values", async (t) => {
  const path = Array.from({ length: 300 }, () => "a").join(".");
  const cases: [string, string, string][] = [
    ["a dotted key", `[mcp.x]\ncommand = "x"\nenv.${path} = 1\n`, "mcp.x.env.a..."],
    ["a header", `[${path}]\n[mcp.x]\ncommand = "x"\n`, "a.a.a.a..."],
    // 100 tables, then 200 arrays: each within the bound alone.
    [
      "a header around inline arrays",
      `[${path.slice(0, 199)}]\nb = ${"[".repeat(200)}${"]".repeat(200)}\n`,
      "a.a.a.a...",
    ],
  ];
  for (const [label, text, at] of cases) {
    await t.step(label, () => {
      const read = readCatalog(text, { file: "loom.toml" });
      assert.ok(!read.ok);
      assert.equal(read.error.kind, "invalid_toml");
      assert.equal(
        read.error.message,
        `loom.toml: invalid TOML: tables or arrays nested deeper than 256 levels, at ${at}; write the catalog flatter`,
      );
    });
  }
  await t.step("256 levels are read", () => {
    const levels = Array.from({ length: 254 }, () => "a").join(".");
    // The document, then 254 tables, then the value's table: 256.
    const read = readCatalog(`${levels} = {}\n[mcp.x]\ncommand = "x"\n`, { file: "loom.toml" });
    assert.ok(read.ok, read.ok ? "" : read.error.message);
    assert.deepEqual(read.value.servers.map((server) => server.name), ["x"]);
  });
});

Deno.test("readCatalog() and checkSpec() refuse a lone surrogate, which a process would receive as U+FFFD", async (t) => {
  const entries: [string, Record<string, unknown>][] = [
    ["command", { command: "x\ud800" }],
    ["args", { command: "x", args: ["--name=\udc00"] }],
    ["env", { command: "x", env: { A: "\ud800" } }],
    ["cwd", { command: "x", cwd: "/w/\ud800" }],
  ];
  for (const [key, entry] of entries) {
    await t.step(key, () => {
      const read = value(readCatalog(JSON.stringify({ mcpServers: { a: entry } }), {
        file: ".mcp.json",
      }));
      assert.deepEqual(read.servers, []);
      assert.equal(read.skipped[0]?.error?.key, key);
      assert.match(
        read.skipped[0]?.message ?? "",
        /: found a lone surrogate in "[^"]*\\u[dD][89a-fA-F]00/,
      );
      const checked = checkSpec({ name: "a", ...entry });
      assert.ok(!checked.ok);
      assert.equal(checked.error.key, key);
    });
  }
  await t.step("an env name", () => {
    const checked = checkSpec({ name: "a", command: "x", env: { "A\ud800": "1" } });
    assert.ok(!checked.ok);
    assert.equal(checked.error.key, "env");
  });
  await t.step("a whole astral character is read", () => {
    const read = value(readCatalog(
      JSON.stringify({ mcpServers: { a: { command: "x", args: ["\ud83d\ude00"] } } }),
      { file: ".mcp.json" },
    ));
    assert.equal(read.servers.length, 1);
  });
});

Deno.test("readCatalog() quotes the names and words a file writes: no control, bidi or line separator reaches a message, and no long name", async (t) => {
  const evil = "evil\u202e\u0085\u009b2J" + "k".repeat(5_000);
  const messages: [string, () => string | undefined][] = [
    ["a JSON server name", () => {
      const read = value(readCatalog(
        JSON.stringify({ mcpServers: { [evil]: { command: "x" }, ["a\u2028b"]: 3 } }),
        { file: "m.json" },
      ));
      return read.skipped.map((entry) => entry.message).join("\n");
    }],
    ["a disabled JSON server", () => {
      const read = value(readCatalog(
        JSON.stringify({ mcpServers: { [evil]: { disabled: true } } }),
        { file: "m.json" },
      ));
      return read.disabled[0]?.message;
    }],
    ["a TOML table defined twice", () => {
      const name = `\\u202e${"k".repeat(3_000)}`;
      const read = readCatalog(`[mcp."${name}"]\ncommand = "x"\n[mcp."${name}"]\n`, {
        file: "l.toml",
      });
      return read.ok ? undefined : read.error.message;
    }],
    ["a look-alike TOML table", () => {
      const read = value(readCatalog(`[mcpp."\\u202e${"k".repeat(3_000)}"]\ncommand = "x"\n`, {
        file: "l.toml",
      }));
      return read.warnings[0];
    }],
    ["an unknown key", () => {
      const read = value(readCatalog(
        JSON.stringify({ mcpServers: { a: { command: "x", [evil]: 1 } } }),
        { file: "m.json" },
      ));
      return read.skipped[0]?.message;
    }],
    ["an unknown restart field", () => {
      const read = value(readCatalog(
        JSON.stringify({ mcpServers: { a: { command: "x", restart: { [evil]: 1 } } } }),
        { file: "m.json" },
      ));
      return read.skipped[0]?.message;
    }],
    ["the message of ${VAR:?message}", () => {
      const read = value(readCatalog(
        JSON.stringify({
          mcpServers: {
            a: { command: "x", args: [`\${A:?\u001b[31mred\nline${"m".repeat(500)}}`] },
          },
        }),
        { file: "m.json", env: {} },
      ));
      return read.skipped[0]?.message;
    }],
  ];
  for (const [label, message] of messages) {
    await t.step(label, () => {
      const text = message();
      assert.ok(text !== undefined && text !== "");
      for (const line of text.split("\n")) {
        assert.doesNotMatch(line, /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
        assert.ok(line.length < 600, `${line.length} characters: ${line.slice(0, 200)}`);
      }
    });
  }
});

Deno.test("readCatalog() never throws nor touches Object.prototype, with variables, inputs and env files (property)", () => {
  const json = fc.constantFrom(
    '{"mcpServers": {',
    '{"servers": {',
    '"inputs": [{"id": "k", "description": "d"}], ',
    '"a": {',
    '"__proto__": {',
    '"constructor": {',
    '"command": "${A}"',
    '"args": ["${A:-d}", "${B:?m}", "${input:k}", "${workspaceFolder}", "${/}", "${config:x}"]',
    '"serverUrl": "https://h/${A}"',
    '"type": "http"',
    '"headers": {"X": "${A}"}',
    '"env": {"A": "${A}", "__proto__": "p"}',
    '"envFile": ".env"',
    '"restart": {"max": 1}',
    ", ",
    "}",
    "]",
    "/* c */",
    "\r\n",
    '"\\ud800"',
    "1e400",
  );
  const toml = fc.constantFrom(
    "[mcp.a]\n",
    "[mcp_servers.a]\n",
    "[mcp.__proto__]\n",
    "[mcp.a.env]\n",
    'command = "${A}"\n',
    'args = ["${A}", "${input:k}"]\n',
    'env_vars = [{ name = "A" }, "B"]\n',
    "required = true\n",
    "__proto__ = 1\n",
    "a.b.c = 1\n",
    "\r\n",
    '"""\n',
    "= \n",
  );
  const text = fc.oneof(
    fc.array(json, { maxLength: 16 }).map((parts) => parts.join("")),
    fc.array(toml, { maxLength: 12 }).map((parts) => parts.join("")),
  );
  fc.assert(
    fc.property(text, fc.boolean(), fc.boolean(), (written, strict, variables) => {
      for (const format of ["json", "toml"] as const) {
        const read = readCatalog(written, {
          format,
          file: "f",
          mode: strict ? "strict" : "lenient",
          ...(variables
            ? {
              env: { A: "a", B: "" },
              inputs: { k: "v" },
              workspaceFolder: "/w",
              envFile: () => ({ ok: true as const, value: "A=${A}\n" }),
              expand: { allow: ["A"] },
            }
            : {}),
        });
        if (!read.ok) assert.ok(read.error.message.startsWith("f: "), read.error.message);
        assert.equal(Object.getOwnPropertyNames(Object.prototype).includes("p"), false);
        assert.equal(({} as Record<string, unknown>)["command"], undefined);
      }
    }),
    { numRuns: 500 },
  );
});

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ContentBlock,
  decodeCallToolResult,
  decodeInitializeResult,
  decodeToolsPage,
  isSupportedVersion,
  type JsonValue,
  LEGACY_VERSIONS,
  MODERN_VERSIONS,
  parseJson,
  REQUESTED_VERSION,
  stringifyJson,
  SUPPORTED_VERSIONS,
} from "../../codec/mod.ts";
import { jsonValue, RUNS } from "./_helpers.ts";

// Results arrive through parseJson, prototype-free; decode them the same way.
function wire(value: unknown): JsonValue {
  const text = stringifyJson(value as JsonValue);
  if (!text.ok) throw new TypeError(text.error.message);
  const parsed = parseJson(text.value);
  if (!parsed.ok) throw new TypeError(parsed.error.message);
  return parsed.value;
}

const INFO = { name: "echo", version: "1.0.0" };

Deno.test("decodeInitializeResult() accepts every legacy-era version", async (t) => {
  assert.equal(REQUESTED_VERSION, "2025-11-25");
  assert.deepStrictEqual([...SUPPORTED_VERSIONS], [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
  ]);
  assert.deepStrictEqual([...SUPPORTED_VERSIONS], [...MODERN_VERSIONS, ...LEGACY_VERSIONS]);
  for (const version of LEGACY_VERSIONS) {
    await t.step(version, () => {
      const result = decodeInitializeResult(
        wire({
          protocolVersion: version,
          capabilities: { tools: {} },
          serverInfo: INFO,
          instructions: "hi",
        }),
      );
      assert.ok(result.ok);
      assert.equal(result.value.protocolVersion, version);
      assert.equal(result.value.serverInfo.name, "echo");
      assert.equal(result.value.instructions, "hi");
      assert.ok("tools" in result.value.capabilities);
    });
  }
});

Deno.test("decodeInitializeResult() refuses a version outside the list, carrying both sides", async (t) => {
  for (const received of ["2026-07-28", "2025-11-26", "", " 2025-11-25", "2025-11-25\u0000"]) {
    await t.step(JSON.stringify(received), () => {
      const result = decodeInitializeResult(
        wire({ protocolVersion: received, capabilities: {}, serverInfo: INFO }),
      );
      assert.ok(!result.ok && result.error.kind === "version_unsupported");
      assert.equal(result.error.requested, REQUESTED_VERSION);
      assert.equal(result.error.received, received);
      assert.ok(result.error.message.includes(REQUESTED_VERSION));
    });
  }
  await t.step("names the version that was asked for", () => {
    const result = decodeInitializeResult(
      wire({ protocolVersion: "1999-01-01", serverInfo: INFO }),
      "2025-06-18",
    );
    assert.ok(!result.ok && result.error.kind === "version_unsupported");
    assert.equal(result.error.requested, "2025-06-18");
  });
  assert.equal(isSupportedVersion("2025-06-18"), true);
  assert.equal(isSupportedVersion("__proto__"), false);
});

Deno.test("decodeInitializeResult() refuses a malformed result", async (t) => {
  const cases: [string, unknown][] = [
    ["null", null],
    ["an array", [{ protocolVersion: REQUESTED_VERSION }]],
    ["no protocolVersion", { capabilities: {}, serverInfo: INFO }],
    ["a numeric protocolVersion", { protocolVersion: 20251125, serverInfo: INFO }],
    ["capabilities that are an array", {
      protocolVersion: REQUESTED_VERSION,
      capabilities: [],
      serverInfo: INFO,
    }],
    ["capabilities that are a string", {
      protocolVersion: REQUESTED_VERSION,
      capabilities: "tools",
      serverInfo: INFO,
    }],
    ["no serverInfo", { protocolVersion: REQUESTED_VERSION, capabilities: {} }],
    ["serverInfo with no name", {
      protocolVersion: REQUESTED_VERSION,
      serverInfo: { version: "1" },
    }],
    ["serverInfo with a numeric name", {
      protocolVersion: REQUESTED_VERSION,
      serverInfo: { name: 1 },
    }],
  ];
  for (const [name, value] of cases) {
    await t.step(name, () => {
      const result = decodeInitializeResult(wire(value));
      assert.ok(!result.ok && result.error.kind === "invalid_result", name);
      assert.match(result.error.message, /^Cannot decode initialize result: /);
    });
  }
  await t.step("tolerates absent capabilities and a missing serverInfo version", () => {
    const result = decodeInitializeResult(
      wire({ protocolVersion: REQUESTED_VERSION, serverInfo: { name: "x" } }),
    );
    assert.ok(result.ok);
    assert.deepStrictEqual(result.value.serverInfo, { name: "x", version: "" });
  });
});

Deno.test("decodeToolsPage() decodes tools and cursors", async (t) => {
  const tool = {
    name: "echo",
    title: "Echo",
    description: "Says it back",
    inputSchema: {
      type: "object",
      properties: { n: { type: "integer", maximum: 18446744073709551615n } },
    },
    outputSchema: { type: "object" },
    annotations: { readOnlyHint: true },
    unknown: 1,
  };
  await t.step("carries schemas and annotations raw and ignores unknown fields", () => {
    const page = decodeToolsPage(wire({ tools: [tool] }));
    assert.ok(page.ok);
    const [decoded] = page.value.tools;
    assert.ok(decoded);
    assert.deepStrictEqual(Object.keys(decoded).sort(), [
      "annotations",
      "description",
      "inputSchema",
      "name",
      "outputSchema",
      "title",
    ]);
    assert.equal(decoded.title, "Echo");
  });
  await t.step("keeps an integer past 2^53 in a schema exact", () => {
    const page = decodeToolsPage(wire({ tools: [tool] }));
    assert.ok(page.ok);
    const schema = page.value.tools[0]?.inputSchema as { properties: { n: { maximum: bigint } } };
    assert.equal(schema.properties.n.maximum, 18446744073709551615n);
  });
  const cursors: [string, unknown, string | undefined][] = [
    ["an absent cursor", undefined, undefined],
    ["a null cursor", null, undefined],
    ["a string cursor", "page-2", "page-2"],
    ["an empty string cursor", "", ""],
  ];
  for (const [name, cursor, expected] of cursors) {
    await t.step(name, () => {
      const page = decodeToolsPage(
        wire(cursor === undefined ? { tools: [] } : { tools: [], nextCursor: cursor }),
      );
      assert.ok(page.ok);
      assert.equal(page.value.nextCursor, expected);
      assert.equal("nextCursor" in page.value, expected !== undefined);
    });
  }
  for (const cursor of [2, true, {}, ["a"]]) {
    await t.step(`refuses a cursor ${JSON.stringify(cursor)}`, () => {
      const page = decodeToolsPage(wire({ tools: [], nextCursor: cursor }));
      assert.ok(!page.ok && page.error.kind === "invalid_result");
      assert.equal(page.error.index, undefined);
    });
  }
});

Deno.test("decodeToolsPage() fails the whole page on one lying tool, naming its index", async (t) => {
  const good = { name: "ok", inputSchema: { type: "object" } };
  const liars: [string, unknown][] = [
    ["null", null],
    ["a string", "echo"],
    ["an array", [good]],
    ["no name", { inputSchema: {} }],
    ["an empty name", { name: "", inputSchema: {} }],
    ["a numeric name", { name: 3, inputSchema: {} }],
    ["no inputSchema", { name: "x" }],
  ];
  for (const [name, liar] of liars) {
    await t.step(name, () => {
      const page = decodeToolsPage(wire({ tools: [good, good, liar, good] }));
      assert.ok(!page.ok && page.error.kind === "invalid_result");
      assert.equal(page.error.index, 2);
      assert.match(page.error.message, /tool 2 /);
    });
  }
  const pages: [string, unknown][] = [
    ["null", null],
    ["no tools", {}],
    ["tools as an object", { tools: { 0: good } }],
    ["tools as a string", { tools: "[]" }],
  ];
  for (const [name, value] of pages) {
    await t.step(`a page that is ${name}`, () => {
      const page = decodeToolsPage(wire(value));
      assert.ok(!page.ok && page.error.kind === "invalid_result");
    });
  }
  await t.step("accepts a tool whose inputSchema is null, to be planned downstream", () => {
    assert.equal(decodeToolsPage(wire({ tools: [{ name: "x", inputSchema: null }] })).ok, true);
  });
  await t.step("accepts a tool named __proto__ as an ordinary name", () => {
    const page = decodeToolsPage(wire({ tools: [{ name: "__proto__", inputSchema: {} }] }));
    assert.ok(page.ok);
    assert.equal(page.value.tools[0]?.name, "__proto__");
  });
});

Deno.test("decodeCallToolResult() types every content block kind", async (t) => {
  const blocks: [string, unknown, ContentBlock][] = [
    ["text", { type: "text", text: "hi" }, { type: "text", text: "hi" }],
    ["text with annotations and _meta", {
      type: "text",
      text: "",
      annotations: { priority: 1 },
      _meta: null,
    }, {
      type: "text",
      text: "",
      annotations: wire({ priority: 1 }),
      _meta: null,
    }],
    ["image", { type: "image", data: "AAA=", mimeType: "image/png" }, {
      type: "image",
      data: "AAA=",
      mimeType: "image/png",
    }],
    ["audio", { type: "audio", data: "AAA=", mimeType: "audio/wav" }, {
      type: "audio",
      data: "AAA=",
      mimeType: "audio/wav",
    }],
    ["resource_link", {
      type: "resource_link",
      uri: "file:///a",
      name: "a",
      title: "A",
      description: "d",
      mimeType: "text/plain",
      size: 3,
    }, {
      type: "resource_link",
      uri: "file:///a",
      name: "a",
      title: "A",
      description: "d",
      mimeType: "text/plain",
      size: 3,
    }],
    ["resource_link with fields of the wrong type, left out", {
      type: "resource_link",
      uri: "u",
      name: "n",
      size: "3",
      title: 1,
    }, { type: "resource_link", uri: "u", name: "n" }],
    ["resource with text", {
      type: "resource",
      resource: { uri: "u", mimeType: "text/plain", text: "t" },
    }, {
      type: "resource",
      resource: { uri: "u", mimeType: "text/plain", text: "t" },
    }],
    ["resource with blob", { type: "resource", resource: { uri: "u", blob: "AA==" } }, {
      type: "resource",
      resource: { uri: "u", blob: "AA==" },
    }],
  ];
  for (const [name, block, expected] of blocks) {
    await t.step(name, () => {
      const result = decodeCallToolResult(wire({ content: [block] }));
      assert.ok(result.ok);
      assert.deepStrictEqual(result.value.content, [expected]);
      assert.equal(result.value.isError, false);
    });
  }
  for (const type of ["video", "Text", "", "__proto__"]) {
    await t.step(`keeps an unknown kind ${JSON.stringify(type)} as other`, () => {
      const raw = wire({ type, payload: [1] });
      const result = decodeCallToolResult(wire({ content: [{ type, payload: [1] }] }));
      assert.ok(result.ok);
      assert.deepStrictEqual(result.value.content, [{ type: "other", originalType: type, raw }]);
    });
  }
  await t.step("carries structuredContent raw and isError", () => {
    const result = decodeCallToolResult(
      wire({ content: [], structuredContent: { n: 2n ** 64n }, isError: true }),
    );
    assert.ok(result.ok);
    assert.equal(result.value.isError, true);
    assert.deepStrictEqual(result.value.structuredContent, wire({ n: 2n ** 64n }));
  });
  await t.step("treats absent content as empty", () => {
    assert.deepStrictEqual(decodeCallToolResult(wire({})), {
      ok: true,
      value: { content: [], isError: false },
    });
  });
});

Deno.test("decodeCallToolResult() refuses a malformed result, naming the block", async (t) => {
  const cases: [string, unknown, number | undefined][] = [
    ["null", null, undefined],
    ["content as an object", { content: { type: "text" } }, undefined],
    ["content as a string", { content: "hi" }, undefined],
    ["isError as a string", { content: [], isError: "true" }, undefined],
    ["isError as a number", { content: [], isError: 1 }, undefined],
    ["a block that is null", { content: [{ type: "text", text: "" }, null] }, 1],
    ["a block with no type", { content: [{ text: "x" }] }, 0],
    ["a block with a numeric type", { content: [{ type: 1 }] }, 0],
    ["text with no text", { content: [{ type: "text" }] }, 0],
    ["text with numeric text", { content: [{ type: "text", text: 1 }] }, 0],
    ["image with no data", { content: [{ type: "image", mimeType: "image/png" }] }, 0],
    ["image with no mimeType", { content: [{ type: "image", data: "" }] }, 0],
    ["audio with no data", { content: [{ type: "audio", mimeType: "audio/wav" }] }, 0],
    ["resource_link with no uri", { content: [{ type: "resource_link", name: "n" }] }, 0],
    ["resource_link with no name", { content: [{ type: "resource_link", uri: "u" }] }, 0],
    ["resource with no resource", { content: [{ type: "resource" }] }, 0],
    ["resource that is a string", { content: [{ type: "resource", resource: "u" }] }, 0],
    ["resource with no uri", { content: [{ type: "resource", resource: { text: "t" } }] }, 0],
    ["resource with neither text nor blob", {
      content: [{ type: "resource", resource: { uri: "u" } }],
    }, 0],
    ["resource with a numeric blob", {
      content: [{ type: "resource", resource: { uri: "u", blob: 1 } }],
    }, 0],
  ];
  for (const [name, value, index] of cases) {
    await t.step(name, () => {
      const result = decodeCallToolResult(wire(value));
      assert.ok(!result.ok && result.error.kind === "invalid_result");
      assert.equal(result.error.index, index);
      if (index !== undefined) {
        assert.match(result.error.message, new RegExp(`content block ${index} `));
      }
    });
  }
});

Deno.test("the protocol decoders never throw on arbitrary JSON", () => {
  const block = fc.record({
    type: fc.oneof(
      fc.constantFrom("text", "image", "audio", "resource_link", "resource", "x"),
      jsonValue,
    ),
    text: jsonValue,
    data: jsonValue,
    mimeType: jsonValue,
    uri: jsonValue,
    name: jsonValue,
    resource: fc.oneof(
      jsonValue,
      fc.record({ uri: jsonValue, text: jsonValue, blob: jsonValue }, { requiredKeys: [] }),
    ),
  }, { requiredKeys: [] });
  const shaped = fc.record({
    protocolVersion: fc.oneof(fc.constantFrom(...SUPPORTED_VERSIONS), jsonValue),
    capabilities: jsonValue,
    serverInfo: fc.oneof(
      jsonValue,
      fc.record({ name: jsonValue, version: jsonValue }, { requiredKeys: [] }),
    ),
    tools: fc.oneof(
      jsonValue,
      fc.array(
        fc.oneof(
          jsonValue,
          fc.record({ name: jsonValue, inputSchema: jsonValue }, { requiredKeys: [] }),
        ),
        { maxLength: 3 },
      ),
    ),
    nextCursor: jsonValue,
    content: fc.oneof(jsonValue, fc.array(fc.oneof(jsonValue, block), { maxLength: 3 })),
    isError: jsonValue,
    structuredContent: jsonValue,
  }, { requiredKeys: [] });
  fc.assert(
    fc.property(fc.oneof(jsonValue, shaped), (input) => {
      const value = wire(input);
      for (
        const result of [
          decodeInitializeResult(value),
          decodeToolsPage(value),
          decodeCallToolResult(value),
        ]
      ) {
        if (!result.ok) {
          assert.ok(
            result.error.kind === "invalid_result" || result.error.kind === "version_unsupported",
          );
        }
      }
    }),
    { numRuns: RUNS },
  );
});

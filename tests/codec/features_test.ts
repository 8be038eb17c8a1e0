// The decoders of what a server offers beyond tools (prompts, completions,
// resource listings) and of what it asks of a client (elicitation, sampling,
// log messages, resource updates): tables of hostile inputs, and properties
// that they never throw.

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decodeCompleteResult,
  decodeCreateMessageRequest,
  decodeElicitRequest,
  decodeGetPromptResult,
  decodeLogMessage,
  decodePromptsPage,
  decodeResourcesPage,
  decodeResourceTemplatesPage,
  decodeResourceUpdated,
  isLogLevel,
  type JsonValue,
  LOG_LEVELS,
  MAX_COMPLETION_VALUES,
  MAX_ELICIT_FIELDS,
  parseJson,
  stringifyJson,
} from "../../codec/mod.ts";
import { jsonValue, RUNS } from "./_helpers.ts";

// Values arrive through parseJson, prototype-free; decode them the same way.
function wire(value: unknown): JsonValue {
  const text = stringifyJson(value as JsonValue);
  if (!text.ok) throw new TypeError(text.error.message);
  const parsed = parseJson(text.value);
  if (!parsed.ok) throw new TypeError(parsed.error.message);
  return parsed.value;
}

Deno.test("decodePromptsPage() reads prompts with their arguments and the cursor", () => {
  const page = decodePromptsPage(wire({
    prompts: [
      { name: "simple" },
      {
        name: "args",
        title: "With arguments",
        description: "d",
        arguments: [{ name: "city", description: "where", required: true }, { name: "state" }],
      },
    ],
    nextCursor: "2",
  }));
  assert.ok(page.ok);
  assert.deepEqual(page.value.prompts[0], { name: "simple", arguments: [] });
  assert.deepEqual(page.value.prompts[1]?.arguments, [
    { name: "city", description: "where", required: true },
    { name: "state" },
  ]);
  assert.equal(page.value.nextCursor, "2");
});

Deno.test("decodePromptsPage() refuses a lying prompt, naming its index", async (t) => {
  const cases: [string, unknown, RegExp][] = [
    ["not an object", 3, /not an object/],
    ["no prompts", {}, /"prompts" is/],
    ["a prompt without a name", { prompts: [{ name: "a" }, { title: "x" }] }, /prompt 1 has no/],
    ["an empty name", { prompts: [{ name: "" }] }, /prompt 0 has no non-empty/],
    ["arguments not a list", { prompts: [{ name: "a", arguments: {} }] }, /not an array/],
    ["an argument without a name", { prompts: [{ name: "a", arguments: [{}] }] }, /argument 0/],
    [
      "an argument twice",
      { prompts: [{ name: "a", arguments: [{ name: "x" }, { name: "x" }] }] },
      /twice/,
    ],
    ["a numeric cursor", { prompts: [], nextCursor: 2 }, /"nextCursor"/],
  ];
  for (const [name, input, pattern] of cases) {
    await t.step(name, () => {
      const page = decodePromptsPage(wire(input));
      assert.ok(!page.ok);
      assert.equal(page.error.kind, "invalid_result");
      assert.match(page.error.message, /^Cannot decode prompts\/list page: /);
      assert.match(page.error.message, pattern);
    });
  }
});

Deno.test("decodeGetPromptResult() reads messages and refuses a wrong role or block", () => {
  const got = decodeGetPromptResult(wire({
    description: "d",
    messages: [
      { role: "user", content: { type: "text", text: "hi" } },
      { role: "assistant", content: { type: "resource", resource: { uri: "u", text: "t" } } },
    ],
  }));
  assert.ok(got.ok);
  assert.equal(got.value.description, "d");
  assert.deepEqual(got.value.messages.map((m) => m.role), ["user", "assistant"]);
  const role = decodeGetPromptResult(wire({ messages: [{ role: "system", content: {} }] }));
  assert.ok(!role.ok);
  assert.match(role.error.message, /message 0 has role "system"/);
  const block = decodeGetPromptResult(
    wire({ messages: [{ role: "user", content: { type: "text" } }] }),
  );
  assert.ok(!block.ok);
  assert.match(block.error.message, /message 0's content of type "text" has no string "text"/);
});

Deno.test("decodeCompleteResult() keeps values, total and hasMore, within the cap", () => {
  const done = decodeCompleteResult(
    wire({ completion: { values: ["a", "b"], total: 9, hasMore: true } }),
  );
  assert.deepEqual(done, { ok: true, value: { values: ["a", "b"], total: 9, hasMore: true } });
  const many = decodeCompleteResult(wire({
    completion: { values: Array.from({ length: MAX_COMPLETION_VALUES + 1 }, (_, i) => `${i}`) },
  }));
  assert.ok(!many.ok);
  assert.match(many.error.message, /past the 100/);
  for (
    const input of [{}, { completion: { values: [1] } }, { completion: { values: [], total: -1 } }]
  ) {
    assert.equal(decodeCompleteResult(wire(input)).ok, false, JSON.stringify(input));
  }
});

Deno.test("the resource listings read resources and templates and refuse entries without a URI", () => {
  const page = decodeResourcesPage(wire({
    resources: [{ uri: "file:///a", name: "a", mimeType: "text/plain", size: 3 }],
    nextCursor: "n",
  }));
  assert.deepEqual(page, {
    ok: true,
    value: {
      resources: [{ uri: "file:///a", name: "a", mimeType: "text/plain", size: 3 }],
      nextCursor: "n",
    },
  });
  const templates = decodeResourceTemplatesPage(wire({
    resourceTemplates: [{ uriTemplate: "file:///{path}", name: "files", title: "Files" }],
  }));
  assert.deepEqual(templates, {
    ok: true,
    value: {
      resourceTemplates: [{ uriTemplate: "file:///{path}", name: "files", title: "Files" }],
    },
  });
  const noUri = decodeResourcesPage(wire({ resources: [{ name: "a" }] }));
  assert.ok(!noUri.ok);
  assert.match(noUri.error.message, /resource 0 has no non-empty string "uri"/);
  const noName = decodeResourceTemplatesPage(wire({ resourceTemplates: [{ uriTemplate: "x" }] }));
  assert.ok(!noName.ok);
  assert.match(noName.error.message, /template 0 "x" has no string "name"/);
});

Deno.test("decodeElicitRequest() reads a form's fields in every shape the spec allows", () => {
  const asked = decodeElicitRequest(wire({
    message: "Tell me",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", title: "Name", minLength: 1, default: "Ada" },
        age: { type: "integer", minimum: 0, maximum: 150 },
        ok: { type: "boolean", default: true },
        color: { type: "string", enum: ["red", "green"], enumNames: ["Red", "Green"] },
        size: {
          type: "string",
          oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "L" }],
        },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 2 },
        email: { type: "string", format: "email" },
      },
      required: ["name", "color"],
    },
  }));
  assert.ok(asked.ok && asked.value.mode === "form");
  const fields = asked.value.fields;
  assert.deepEqual(fields.map((f) => [f.name, f.type, f.required]), [
    ["name", "string", true],
    ["age", "integer", false],
    ["ok", "boolean", false],
    ["color", "choice", true],
    ["size", "choice", false],
    ["tags", "choices", false],
    ["email", "string", false],
  ]);
  assert.deepEqual(fields[0], {
    name: "name",
    required: true,
    title: "Name",
    type: "string",
    minLength: 1,
    default: "Ada",
  });
  assert.deepEqual((fields[3] as { choices: unknown }).choices, [
    { value: "red", title: "Red" },
    { value: "green", title: "Green" },
  ]);
  assert.deepEqual((fields[4] as { choices: unknown }).choices, [
    { value: "s", title: "Small" },
    { value: "l", title: "L" },
  ]);
});

Deno.test("decodeElicitRequest() refuses a malformed request instead of passing it on", async (t) => {
  const form = (schema: unknown) => ({ message: "m", requestedSchema: schema });
  const cases: [string, unknown, RegExp][] = [
    ["no params", undefined, /params are/],
    ["no message", { requestedSchema: { type: "object", properties: {} } }, /"message"/],
    ["an unknown mode", { message: "m", mode: "voice" }, /"mode" is "voice"/],
    ["a schema that is no object", form([]), /"requestedSchema" is/],
    ["a schema of another type", form({ type: "array" }), /has type "array"/],
    [
      "a nested object",
      form({ properties: { a: { type: "object" } } }),
      /field "a" has type "object"/,
    ],
    ["a required name that is no field", form({ properties: {}, required: ["x"] }), /names "x"/],
    ["an enum of numbers", form({ properties: { a: { type: "string", enum: [1] } } }), /choice 0/],
    ["an empty enum", form({ properties: { a: { type: "string", enum: [] } } }), /no choices/],
    [
      "a negative length",
      form({ properties: { a: { type: "string", maxLength: -1 } } }),
      /maxLength/,
    ],
    [
      "too many fields",
      form({
        properties: Object.fromEntries(
          Array.from({ length: MAX_ELICIT_FIELDS + 1 }, (_, i) => [`f${i}`, { type: "string" }]),
        ),
      }),
      /past 64/,
    ],
    [
      "a URL request without an id",
      { message: "m", mode: "url", url: "https://a" },
      /elicitationId/,
    ],
    [
      "a URL that is not one",
      { message: "m", mode: "url", url: "not a url", elicitationId: "e" },
      /"url" is/,
    ],
    [
      "a javascript: URL",
      { message: "m", mode: "url", url: "javascript:alert(1)", elicitationId: "e" },
      /scheme is "javascript:"/,
    ],
    [
      "a URL with a user name before its host",
      {
        message: "m",
        mode: "url",
        url: "https://accounts.example@evil.example/",
        elicitationId: "e",
      },
      /user name or password before its host \("evil\.example"\)/,
    ],
    [
      "a URL with a password before its host",
      { message: "m", mode: "url", url: "https://:pw@evil.example/", elicitationId: "e" },
      /user name or password/,
    ],
  ];
  for (const [name, input, pattern] of cases) {
    await t.step(name, () => {
      const asked = decodeElicitRequest(input === undefined ? undefined : wire(input));
      assert.ok(!asked.ok);
      assert.equal(asked.error.kind, "bad_request");
      assert.match(asked.error.message, /^Cannot accept elicitation\/create: /);
      assert.match(asked.error.message, pattern);
    });
  }
});

Deno.test("decodeElicitRequest() reads a URL request", () => {
  const asked = decodeElicitRequest(wire({
    mode: "url",
    message: "Sign in",
    url: "https://example.com/auth?x=1",
    elicitationId: "e-1",
  }));
  assert.deepEqual(asked, {
    ok: true,
    value: {
      mode: "url",
      message: "Sign in",
      url: "https://example.com/auth?x=1",
      elicitationId: "e-1",
    },
  });
});

Deno.test("decodeCreateMessageRequest() reads messages and maxTokens, and refuses the rest", () => {
  const asked = decodeCreateMessageRequest(wire({
    messages: [
      { role: "user", content: { type: "text", text: "hi" } },
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "tool_use", id: "1" }] },
    ],
    maxTokens: 50,
    systemPrompt: "be brief",
    includeContext: "thisServer",
    temperature: 0.5,
    stopSequences: ["\n"],
    tools: [{ name: "t", inputSchema: { type: "object" } }],
  }));
  assert.ok(asked.ok);
  assert.equal(asked.value.maxTokens, 50);
  assert.deepEqual(asked.value.messages[0]?.content, { type: "text", text: "hi" });
  const blocks = asked.value.messages[1]?.content as { type: string }[];
  assert.deepEqual(blocks.map((b) => b.type), ["text", "other"]);
  assert.equal(asked.value.includeContext, "thisServer");
  for (
    const input of [
      { messages: [], maxTokens: 0 },
      { messages: [], maxTokens: 1.5 },
      { messages: "x", maxTokens: 1 },
      { messages: [{ role: "system", content: { type: "text", text: "" } }], maxTokens: 1 },
      { messages: [], maxTokens: 1, includeContext: "everything" },
      { messages: [], maxTokens: 1, stopSequences: [1] },
    ]
  ) {
    const refused = decodeCreateMessageRequest(wire(input));
    assert.ok(!refused.ok, JSON.stringify(input));
    assert.match(refused.error.message, /^Cannot accept sampling\/createMessage: /);
  }
});

Deno.test("decodeLogMessage() knows the eight levels, least severe first", () => {
  assert.deepEqual([...LOG_LEVELS], [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
  ]);
  assert.deepEqual(decodeLogMessage(wire({ level: "error", logger: "db", data: { n: 1 } })), {
    ok: true,
    value: { level: "error", logger: "db", data: wire({ n: 1 }) },
  });
  assert.deepEqual(decodeLogMessage(wire({ level: "info" })), {
    ok: true,
    value: { level: "info", data: null },
  });
  assert.equal(decodeLogMessage(wire({ level: "warn", data: 1 })).ok, false);
  assert.equal(decodeLogMessage(wire({ level: "info", logger: 3 })).ok, false);
  assert.equal(isLogLevel("__proto__"), false);
});

Deno.test("decodeResourceUpdated() reads the URI and refuses a notification without one", () => {
  assert.deepEqual(decodeResourceUpdated(wire({ uri: "test://static/resource/1" })), {
    ok: true,
    value: "test://static/resource/1",
  });
  assert.equal(decodeResourceUpdated(wire({})).ok, false);
  assert.equal(decodeResourceUpdated(undefined).ok, false);
});

Deno.test("the feature decoders never throw on arbitrary JSON", () => {
  const field = fc.record({
    type: fc.oneof(fc.constantFrom("string", "number", "integer", "boolean", "array"), jsonValue),
    enum: jsonValue,
    oneOf: jsonValue,
    items: fc.oneof(
      jsonValue,
      fc.record({ enum: jsonValue, anyOf: jsonValue }, { requiredKeys: [] }),
    ),
    minLength: jsonValue,
    maximum: jsonValue,
    default: jsonValue,
  }, { requiredKeys: [] });
  const shaped = fc.record({
    prompts: fc.oneof(
      jsonValue,
      fc.array(fc.record({ name: jsonValue, arguments: jsonValue }), { maxLength: 3 }),
    ),
    messages: fc.oneof(
      jsonValue,
      fc.array(fc.record({ role: fc.constantFrom("user", "assistant"), content: jsonValue })),
    ),
    completion: fc.oneof(jsonValue, fc.record({ values: jsonValue, total: jsonValue })),
    resources: jsonValue,
    resourceTemplates: jsonValue,
    nextCursor: jsonValue,
    message: fc.oneof(fc.string(), jsonValue),
    mode: fc.oneof(fc.constantFrom("form", "url"), jsonValue),
    url: fc.oneof(fc.webUrl(), jsonValue),
    elicitationId: jsonValue,
    requestedSchema: fc.oneof(
      jsonValue,
      fc.record({
        type: jsonValue,
        properties: fc.dictionary(fc.string(), field),
        required: jsonValue,
      }),
    ),
    maxTokens: jsonValue,
    level: fc.oneof(fc.constantFrom(...LOG_LEVELS), jsonValue),
    uri: jsonValue,
  }, { requiredKeys: [] });
  fc.assert(
    fc.property(fc.oneof(jsonValue, shaped), (input) => {
      const value = wire(input);
      for (
        const decoded of [
          decodePromptsPage(value),
          decodeGetPromptResult(value),
          decodeCompleteResult(value),
          decodeResourcesPage(value),
          decodeResourceTemplatesPage(value),
          decodeElicitRequest(value),
          decodeCreateMessageRequest(value),
          decodeLogMessage(value),
          decodeResourceUpdated(value),
        ]
      ) {
        assert.equal(typeof decoded.ok, "boolean");
      }
    }),
    { numRuns: RUNS },
  );
});

// Prompts, completions, resource listings and templates: server-everything's
// own (its four prompts, a completion, its templates), and a loopback server's
// hostile lists refused as values.

import assert from "node:assert/strict";
import { MAX_LIST_PAGES } from "../../settings/limits.ts";
import { everything, fixture, withClient } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "server-everything's prompts, completions and templates arrive as values",
  OPENS_CUSTODIAN,
  async (t) => {
    await withClient(everything(), {}, async (client) => {
      await t.step("listPrompts() lists its four prompts with their arguments", async () => {
        const prompts = await client.listPrompts();
        assert.ok(prompts.ok, JSON.stringify(prompts));
        assert.deepEqual(prompts.value.map((prompt) => prompt.name), [
          "simple-prompt",
          "args-prompt",
          "completable-prompt",
          "resource-prompt",
        ]);
        const args = prompts.value.find((prompt) => prompt.name === "args-prompt");
        assert.deepEqual(args?.arguments.map((arg) => [arg.name, arg.required]), [
          ["city", true],
          ["state", false],
        ]);
      });
      await t.step("getPrompt() fills a prompt's arguments", async () => {
        const got = await client.getPrompt("args-prompt", { city: "Lyon" });
        assert.ok(got.ok, JSON.stringify(got));
        const first = got.value.messages[0];
        assert.equal(first?.role, "user");
        assert.ok(first?.content.type === "text" && first.content.text.includes("Lyon"));
      });
      await t.step("complete() completes a prompt's argument, with the context", async () => {
        const done = await client.complete(
          { type: "ref/prompt", name: "completable-prompt" },
          { name: "department", value: "E" },
        );
        assert.ok(done.ok, JSON.stringify(done));
        assert.deepEqual(done.value.values, ["Engineering"]);
        const named = await client.complete(
          { type: "ref/prompt", name: "completable-prompt" },
          { name: "name", value: "" },
          { arguments: { department: "Engineering" } },
        );
        assert.ok(named.ok && named.value.values.length > 0, JSON.stringify(named));
      });
      await t.step("listResources() and listResourceTemplates() list what it offers", async () => {
        const resources = await client.listResources();
        assert.ok(resources.ok && resources.value.length > 0, JSON.stringify(resources));
        const templates = await client.listResourceTemplates();
        assert.ok(templates.ok, JSON.stringify(templates));
        assert.ok(
          templates.value.some((entry) =>
            entry.uriTemplate === "demo://resource/dynamic/text/{resourceId}"
          ),
          JSON.stringify(templates.value),
        );
      });
    });
  },
);

function hostile(mode: string) {
  const spec = fixture(mode, "hostile_lists.ts");
  return { ...spec, args: [...spec.args, mode] };
}

Deno.test("a repeated prompts/list cursor is refused as result_malformed", async () => {
  await withClient(hostile("repeat"), {}, async (client) => {
    const listed = await client.listPrompts();
    assert.ok(!listed.ok && listed.error.kind === "result_malformed", JSON.stringify(listed));
    assert.match(listed.error.message, /repeated the prompts\/list cursor "again"/);
  });
});

Deno.test("a resources/list that never ends is refused after MAX_LIST_PAGES pages", async () => {
  await withClient(hostile("endless"), {}, async (client) => {
    const listed = await client.listResources();
    assert.ok(!listed.ok && listed.error.kind === "too_many_pages", JSON.stringify(listed));
    assert.equal(listed.error.pages, MAX_LIST_PAGES);
  });
});

Deno.test("a prompts/get result without roles and a completion past 100 values are malformed", async () => {
  await withClient(hostile("broken"), {}, async (client) => {
    const got = await client.getPrompt("any");
    assert.ok(!got.ok && got.error.kind === "result_malformed", JSON.stringify(got));
    const done = await client.complete({ type: "ref/prompt", name: "any" }, {
      name: "a",
      value: "",
    });
    assert.ok(!done.ok && done.error.kind === "result_malformed", JSON.stringify(done));
    assert.match(done.error.message, /101 values/);
  });
});

Deno.test("a server that declared no prompts or completions is refused before anything is sent", async () => {
  await withClient(fixture("echo", "echo_server.ts"), {}, async (client) => {
    const listed = await client.listPrompts();
    assert.ok(!listed.ok && listed.error.kind === "prompts_not_declared", JSON.stringify(listed));
    const done = await client.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "" });
    assert.ok(!done.ok && done.error.kind === "completions_not_declared", JSON.stringify(done));
    const templates = await client.listResourceTemplates();
    assert.ok(!templates.ok && templates.error.kind === "resources_not_declared");
  });
});

Deno.test("getPrompt() and complete() throw TypeError on arguments that are not strings", async () => {
  await withClient(hostile("broken"), {}, (client) => {
    assert.throws(() => client.getPrompt("p", { n: 3 as unknown as string }), TypeError);
    assert.throws(
      () => client.complete({ type: "ref/nothing" } as never, { name: "a", value: "" }),
      TypeError,
    );
    return Promise.resolve();
  });
});

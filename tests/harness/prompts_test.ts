// The harness's prompts, completions, resource listings and subscriptions:
// server-everything's, through boot; a server unknown to the catalog refused
// as a value before anything is sent.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { everything } from "../client/_fixtures.ts";

Deno.test("a harness lists, gets and completes server-everything's prompts and lists its resources", async (t) => {
  const harness = await boot([everything()]);
  try {
    await t.step("listPrompts() with no server gathers every server's, marked", async () => {
      const prompts = await harness.listPrompts();
      assert.ok(prompts.ok, JSON.stringify(prompts));
      assert.equal(prompts.value.length, 4);
      assert.ok(prompts.value.every((prompt) => prompt.server === "everything"));
    });
    await t.step("getPrompt() fills a prompt of the server named", async () => {
      const got = await harness.getPrompt("everything", "simple-prompt");
      assert.ok(got.ok && got.value.messages.length > 0, JSON.stringify(got));
    });
    await t.step("complete() completes an argument of the server named", async () => {
      const done = await harness.complete(
        "everything",
        { type: "ref/prompt", name: "completable-prompt" },
        { name: "department", value: "Sa" },
      );
      assert.ok(done.ok, JSON.stringify(done));
      assert.deepEqual(done.value.values, ["Sales"]);
    });
    await t.step("listResourceTemplates() names each template's server", async () => {
      const templates = await harness.listResourceTemplates("everything");
      assert.ok(templates.ok && templates.value.length > 0, JSON.stringify(templates));
      assert.equal(templates.value[0]?.server, "everything");
    });
    await t.step("a server not in the catalog is refused as unknown_server", async () => {
      const got = await harness.getPrompt("nowhere", "p");
      assert.ok(!got.ok && got.error.kind === "unknown_server", JSON.stringify(got));
      const listed = await harness.listResources("nowhere");
      assert.ok(!listed.ok && listed.error.kind === "unknown_server");
    });
  } finally {
    await harness.retire();
  }
});

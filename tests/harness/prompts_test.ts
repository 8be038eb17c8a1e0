// The harness's prompts, completions, resource listings and subscriptions:
// server-everything's, through boot; a server unknown to the catalog refused
// as a value before anything is sent.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { everything } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a harness lists, gets and completes server-everything's prompts and lists its resources",
  OPENS_CUSTODIAN,
  async (t) => {
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
      await t.step("subscribeResource() hears the server named until unsubscribed", async () => {
        const updated = Promise.withResolvers<string>();
        const uri = "demo://resource/dynamic/text/2";
        const watched = await harness.subscribeResource("everything", uri, updated.resolve);
        assert.ok(watched.ok, JSON.stringify(watched));
        assert.ok((await harness.call("everything", "toggle-subscriber-updates", {})).ok);
        // Bounded: a lost update fails the step instead of hanging the suite.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const lost = new Promise<string>((resolve) => timer = setTimeout(resolve, 30_000, "none"));
        assert.equal(await Promise.race([updated.promise, lost]), uri);
        clearTimeout(timer);
        assert.ok((await watched.value.unsubscribe()).ok);
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
  },
);

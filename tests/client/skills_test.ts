// The skills extension (SEP-2640) against a loopback server: a listing reads
// no file, a read checks every file against its entry, and each way a file
// can lie is a refusal naming it, with no file read after it.

import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import { checkSkillBounds, MAX_SKILL_BYTES, MAX_SKILL_FILES } from "../../client/skills.ts";
import { fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const SKILL = "skill://pdf-processing/SKILL.md";
const FORMS = "skill://pdf-processing/references/FORMS.md";

async function withSkills(mode: string, body: (client: Client) => Promise<void>): Promise<void> {
  const base = fixture("skills", "skills_server.ts");
  const spec = { ...base, args: [...base.args, mode] };
  const census = Census.prepare([spec]);
  const client = census.clients.get("skills") as Client;
  try {
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    await body(client);
  } finally {
    await census.retire();
  }
}

/** The URIs the fixture says were read, asked of its `reads` tool. */
async function reads(client: Client): Promise<string[]> {
  const called = await client.callTool("reads", {});
  assert.ok(called.ok, JSON.stringify(called));
  const block = called.value.content[0];
  assert.ok(block?.type === "text");
  return JSON.parse(block.text);
}

Deno.test(
  "listSkills() lists a skill's manifest and reads none of its files",
  OPENS_CUSTODIAN,
  async () => {
    await withSkills("honest", async (client) => {
      const listed = await client.listSkills();
      assert.ok(listed.ok, JSON.stringify(listed));
      assert.deepEqual(listed.value.map((skill) => skill.frontmatter.name), ["pdf-processing"]);
      const files = listed.value[0]?.resources;
      assert.ok(Array.isArray(files));
      assert.deepEqual(files.map((file) => file.uri), [SKILL, FORMS]);
      assert.deepEqual(await reads(client), []);
    });
  },
);

Deno.test("readSkill() reads every file of a skill, each checked against its entry", async () => {
  await withSkills("honest", async (client) => {
    const read = await client.readSkill("pdf-processing");
    assert.ok(read.ok, JSON.stringify(read));
    assert.equal(read.value.verified, true);
    assert.equal(read.value.body.trim(), "Skill body.");
    assert.deepEqual(read.value.frontmatter.metadata, { version: "2.1" });
    assert.deepEqual(read.value.files.map((file) => file.uri), [SKILL, FORMS]);
    assert.equal(read.value.files[1]?.text, "Supporting content.\n");
    assert.deepEqual(await reads(client), [SKILL, FORMS]);
  });
});

Deno.test("readSkill() refuses a file whose check fails, naming it, and reads no more", async (t) => {
  for (const mode of ["digest", "size", "frontmatter"] as const) {
    await t.step(`a SKILL.md that fails its ${mode} check`, async () => {
      await withSkills(mode, async (client) => {
        const read = await client.readSkill("pdf-processing");
        assert.ok(!read.ok);
        assert.equal(read.error.kind, "skill_mismatch");
        assert.ok(read.error.kind === "skill_mismatch");
        assert.equal(read.error.check, mode);
        assert.equal(read.error.uri, SKILL);
        assert.match(read.error.message, /skill:\/\/pdf-processing\/SKILL\.md/);
        assert.deepEqual(await reads(client), [SKILL]);
      });
    });
  }
});

Deno.test("readSkill() refuses a name two skills share, naming their URIs", async () => {
  await withSkills("twins", async (client) => {
    const read = await client.readSkill("pdf-processing");
    assert.ok(!read.ok && read.error.kind === "skill_ambiguous", JSON.stringify(read));
    assert.deepEqual(read.error.uris, [SKILL, "skill://legacy/pdf-processing/SKILL.md"]);
    const byUri = await client.readSkill("skill://legacy/pdf-processing/SKILL.md");
    assert.ok(byUri.ok, JSON.stringify(byUri));
  });
});

Deno.test("readSkill() asks skills/get for a URI its listing does not show", async () => {
  await withSkills("unlisted", async (client) => {
    const read = await client.readSkill(SKILL);
    assert.ok(read.ok, JSON.stringify(read));
    assert.equal(read.value.uri, SKILL);
    const missing = await client.readSkill("pdf-processing");
    assert.ok(!missing.ok && missing.error.kind === "skill_not_found");
  });
});

Deno.test("a server with skills and no tools connects, lists no tools and reads its skill", async () => {
  await withSkills("toolless", async (client) => {
    const tools = await client.listTools();
    assert.ok(tools.ok, JSON.stringify(tools));
    assert.deepEqual(tools.value, []);
    const read = await client.readSkill("pdf-processing");
    assert.ok(read.ok, JSON.stringify(read));
  });
});

Deno.test("a server without the skills extension is refused before anything is sent", async () => {
  const census = Census.prepare([fixture("plain", "echo_server.ts")]);
  const client = census.clients.get("plain") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const listed = await client.listSkills();
    assert.ok(!listed.ok && listed.error.kind === "skills_not_declared");
    const read = await client.readSkill("anything");
    assert.ok(!read.ok && read.error.kind === "skills_not_declared");
  } finally {
    await census.retire();
  }
});

Deno.test("a skill past its file or byte limits is refused from its entry alone", () => {
  const file = (n: number, size = 1) => ({
    uri: `skill://big/${n}`,
    digest: `sha256:${"0".repeat(64)}`,
    size,
  });
  const entry = (resources: ReturnType<typeof file>[]) => ({
    uri: "skill://big/SKILL.md",
    frontmatter: { name: "big", description: "Big" },
    resources,
  });
  const many = checkSkillBounds(
    "s",
    entry(Array.from({ length: MAX_SKILL_FILES + 1 }, (_, n) => file(n))),
  );
  assert.ok(!many.ok && many.error.kind === "skill_too_large" && many.error.what === "files");
  const heavy = checkSkillBounds(
    "s",
    entry([file(1, MAX_SKILL_BYTES / 2), file(2, MAX_SKILL_BYTES / 2), file(3)]),
  );
  assert.ok(!heavy.ok && heavy.error.kind === "skill_too_large" && heavy.error.what === "bytes");
  const one = checkSkillBounds("s", entry([file(1, MAX_SKILL_BYTES)]));
  assert.ok(!one.ok && one.error.kind === "skill_too_large" && one.error.what === "file_bytes");
});

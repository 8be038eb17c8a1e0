// The harness's skills: listed across its servers, each entry marked with
// its server, and read from the server named; a server without the
// extension is left out of a listing that names none.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

function skills(name: string) {
  const spec = fixture(name, "skills_server.ts");
  return { ...spec, args: [...spec.args, "honest"] };
}

Deno.test(
  "a harness lists the skills of every server that serves them and reads one",
  OPENS_CUSTODIAN,
  async (t) => {
    const harness = await boot([skills("docs"), fixture("plain", "echo_server.ts")]);
    try {
      await t.step("listSkills() with no server gathers each skills server's, marked", async () => {
        const listed = await harness.listSkills();
        assert.ok(listed.ok, JSON.stringify(listed));
        assert.deepEqual(
          listed.value.map((skill) => [skill.server, skill.frontmatter.name]),
          [["docs", "pdf-processing"]],
        );
      });
      await t.step("readSkill() reads the skill of the server named", async () => {
        const read = await harness.readSkill("docs", "pdf-processing");
        assert.ok(read.ok, JSON.stringify(read));
        assert.equal(read.value.files.length, 2);
      });
      await t.step("readSkill() of a server the catalog lacks is refused as a value", async () => {
        const read = await harness.readSkill("nowhere", "pdf-processing");
        assert.ok(!read.ok, JSON.stringify(read));
      });
    } finally {
      await harness.retire();
    }
  },
);

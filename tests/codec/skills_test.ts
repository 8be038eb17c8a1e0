// The skills extension's listing decoders: one lying entry fails the page.

import assert from "node:assert/strict";
import { decodeSkillResult, decodeSkillsPage } from "../../codec/skills.ts";

Deno.test("decodeSkillsPage() refuses an entry whose manifest lacks its own SKILL.md", () => {
  const page = decodeSkillsPage({
    skills: [{
      uri: "skill://a/SKILL.md",
      frontmatter: { name: "a", description: "A" },
      resources: [{ uri: "skill://a/other.md", digest: `sha256:${"1".repeat(64)}`, size: 1 }],
    }],
  });
  assert.ok(!page.ok);
  assert.match(
    page.error.message,
    /skill 0 "skill:\/\/a\/SKILL\.md" does not list its own SKILL\.md/,
  );
});

Deno.test("decodeSkillsPage() refuses a digest that is not sha256 and 64 lowercase hex digits", () => {
  const page = decodeSkillsPage({
    skills: [{
      uri: "skill://a/SKILL.md",
      frontmatter: { name: "a", description: "A" },
      resources: [{ uri: "skill://a/SKILL.md", digest: `sha256:${"A".repeat(64)}`, size: 1 }],
    }],
  });
  assert.ok(!page.ok);
  assert.match(page.error.message, /"digest"/);
});

Deno.test("decodeSkillResult() takes a dynamic skill, whose files have no digests", () => {
  const got = decodeSkillResult({
    skill: {
      uri: "skill://d/SKILL.md",
      frontmatter: { name: "d", description: "D" },
      resources: "dynamic",
    },
  });
  assert.ok(got.ok && got.value.resources === "dynamic");
});

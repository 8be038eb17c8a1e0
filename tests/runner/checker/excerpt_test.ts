import assert from "node:assert/strict";
import { excerpt, MAX_EXCERPT_CHARS } from "../../../runner/checker/_excerpt.ts";

Deno.test("excerpt() marks one character with ^ and a longer span with ~, under its column", () => {
  assert.equal(excerpt('const n: number = "x";', 7, 1), 'const n: number = "x";\n      ^');
  assert.equal(
    excerpt("export default r.txtx;", 18, 4),
    "export default r.txtx;\n                 ~~~~",
  );
});

Deno.test("excerpt() keeps a span within its line, and a place past the end on it", () => {
  assert.equal(excerpt("ab", 2, 10), "ab\n ^");
  assert.equal(excerpt("ab", 3, 1), "ab\n  ^");
  assert.equal(excerpt("ab   ", 1, 0), "ab\n^");
});

Deno.test("excerpt() keeps the tabs before the column, so the marker stays under its place", () => {
  assert.equal(
    excerpt('\t\tconst n: number = "x";', 9, 1),
    '\t\tconst n: number = "x";\n\t\t      ^',
  );
});

Deno.test("excerpt() cuts a long line around the column, marking each cut", () => {
  const line = `${"a".repeat(300)}HERE${"b".repeat(300)}`;
  const [shown, marker] = excerpt(line, 301, 4).split("\n") as [string, string];
  assert.ok(shown.startsWith("…") && shown.endsWith("…"));
  assert.equal(shown.length, MAX_EXCERPT_CHARS + 2);
  assert.equal(shown.slice(marker.indexOf("~"), marker.indexOf("~") + 4), "HERE");
  assert.equal(marker.trim(), "~~~~");
  const start = excerpt(`x${"b".repeat(400)}`, 1, 1).split("\n");
  assert.ok(!start[0]?.startsWith("…") && start[0]?.endsWith("…"));
  assert.equal(start[1], "^");
});

/**
 * What cutting a run's report to its budget costs (`runner/host/_cut.ts`): a
 * 5 MiB returned value of each shape cut to the default 256 KiB, and the
 * check that a small value fits (what every run pays).
 *
 * Run: `deno bench bench/budget_bench.ts`
 */

import { cutToBudget, measureJson } from "../runner/host/_cut.ts";
import { DEFAULT_MAX_OUTPUT_BYTES } from "../runner/host/limits.ts";

const FIVE_MIB = 5 * 1024 * 1024;
const string = "x".repeat(FIVE_MIB);
const records = Array.from(
  { length: 50_000 },
  (_, i) => ({ i, name: `row ${i}`, body: "z".repeat(80) }),
);
const keys = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`key_${i}`, i]));
const small = { rows: [{ id: 1, name: "a" }, { id: 2, name: "b" }], total: 2 };

for (
  const [name, value] of [
    ["one 5 MiB string", string],
    ["50,000 records (5.6 MiB)", records],
    ["an object of 200,000 keys (3.6 MiB)", keys],
  ] as const
) {
  Deno.bench({
    name: `cut ${name} to 256 KiB`,
    group: "cut",
    fn() {
      if (!cutToBudget(value, DEFAULT_MAX_OUTPUT_BYTES).cut) throw new Error("nothing was cut");
    },
  });
}

Deno.bench({
  name: "measure a small value against the budget",
  group: "fits",
  fn() {
    if (measureJson(small, DEFAULT_MAX_OUTPUT_BYTES) > DEFAULT_MAX_OUTPUT_BYTES) {
      throw new Error("a small value did not fit");
    }
  },
});

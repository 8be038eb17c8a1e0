// A program the compiler works on for minutes (each assignment compares two
// unions of ten thousand objects, each holding a union of ten thousand
// strings, against a target it has not met yet), for the tests of what a
// check's deadline and a harness's end leave behind.

const TARGETS = ["0000", "0001", "0002", "0003", "0004", "0005", "0006", "0007"];

/** A program the checker cannot finish within any deadline a test sets. */
export const ENDLESS_PROGRAM = `type D = "0"|"1"|"2"|"3"|"4"|"5"|"6"|"7"|"8"|"9";
type N = \`\${D}\${D}\${D}\${D}\`;
type F<K> = K extends N ? { a: K; b: Exclude<N, K> } : never;
declare const a: F<N>;
${TARGETS.map((target, index) => `const b${index}: F<Exclude<N, "${target}">> = a;`).join("\n")}
export {};
`;

/** This process's CPU time so far (user and system), in milliseconds, from `/proc`. */
export function cpuMs(pid: number | "self" = "self"): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // Fields after the name: state is the first; utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

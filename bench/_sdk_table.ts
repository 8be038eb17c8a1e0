// Private to the SDK bench (`sdk_bench.ts`): the table it prints, and the hot
// path's ratios against their bounds.

import type { Line } from "./_sdk_common.ts";

export function figure(value: number | undefined, unit: string): string {
  if (value === undefined || Number.isNaN(value)) return "-";
  if (unit === "calls/s") return Math.round(value).toLocaleString("en-US");
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function table(lines: readonly Line[]): string {
  const head = ["row", "unit", "ours", "SDK", "ours/SDK", "floor", "worker floor"];
  const body = lines.map((line) => {
    const ratio = line.ours / line.sdk;
    const leads = line.higherIsBetter === true ? ratio >= 1 : ratio <= 1;
    return [
      line.row,
      line.unit,
      figure(line.ours, line.unit),
      figure(line.sdk, line.unit),
      Number.isFinite(ratio) ? `${ratio.toFixed(2)}${leads ? "" : " !"}` : "-",
      figure(line.floor, line.unit),
      figure(line.workerFloor, line.unit),
    ];
  });
  const widths = head.map((cell, column) =>
    Math.max(cell.length, ...body.map((row) => (row[column] ?? "").length))
  );
  const render = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [
    render(head),
    render(widths.map((width) => "-".repeat(width))),
    ...body.map(render),
  ].join("\n");
}

/** One figure of the client's hot path against its floor, and the bound it should keep. */
export type Bound = {
  name: string;
  /** The row's name, up to its count of servers. */
  row: string;
  /** The figure: ours against the floor the target names. */
  ratio: (line: Line) => number | undefined;
  bound: number;
  atLeast?: boolean;
};

export const BOUNDS: readonly Bound[] = [
  {
    name: "64 in flight / worker floor",
    row: "4 echo 64 in flight",
    ratio: (line) => line.workerFloor && line.ours / line.workerFloor,
    bound: 0.8,
    atLeast: true,
  },
  {
    name: "sequential median / worker floor",
    row: "3 echo round trip, median",
    ratio: (line) => line.workerFloor && line.ours / line.workerFloor,
    bound: 1.1,
  },
  {
    name: "8 MiB result / pipe floor",
    row: "5 one 8 MiB text result",
    ratio: (line) => line.floor && line.ours / line.floor,
    bound: 1.3,
  },
  {
    name: "8 MiB result / the pipe floor that decodes and parses it",
    row: "5 one 8 MiB text result",
    ratio: (line) => line.parsedFloor && line.ours / line.parsedFloor,
    bound: 1.3,
  },
  {
    name: "connect CPU / empty workers",
    row: "2 harness CPU while connecting",
    ratio: (line) => line.workerFloor && line.ours / line.workerFloor,
    bound: 1.3,
  },
  {
    name: "shutdown CPU / SDK",
    row: "6 harness CPU while shutting down",
    ratio: (line) => line.ours / line.sdk,
    bound: 3,
  },
];

/** The hot path's ratios in this run, each against its bound; rows not run are left out. */
export function bounds(lines: readonly Line[]): string {
  const out: string[] = [];
  for (const bound of BOUNDS) {
    const line = lines.find((candidate) => candidate.row.startsWith(bound.row));
    const ratio = line === undefined ? undefined : bound.ratio(line);
    if (ratio === undefined || !Number.isFinite(ratio)) continue;
    const met = bound.atLeast === true ? ratio >= bound.bound : ratio <= bound.bound;
    const limit = `${bound.atLeast === true ? "≥" : "≤"} ${bound.bound}`;
    out.push(`${bound.name} ${ratio.toFixed(2)} (${limit}${met ? "" : ", not met"})`);
  }
  return out.length === 0 ? "" : `\nhot path, ratios in this run: ${out.join("; ")}`;
}

/**
 * What the design's least costs against rows 2 and 6's bounds, in this run:
 * sixteen workers that do nothing but spawn their servers detached, against
 * sixteen empty ones; and tearing down sixteen empty workers, against the
 * SDK's whole shutdown. A bound below its least is out of reach of any
 * client with a worker per server that owns its child.
 */
export function ceilings(lines: readonly Line[]): string {
  const out: string[] = [];
  const connect = lines.find((line) => line.row.startsWith("2 harness CPU"));
  if (connect?.floor !== undefined && connect.workerFloor !== undefined) {
    out.push(
      `workers that only spawn their servers detached: ${
        (connect.floor / connect.workerFloor).toFixed(2)
      }× empty workers' CPU (row 2's bound: 1.3)`,
    );
  }
  const shutdown = lines.find((line) => line.row.startsWith("6 harness CPU"));
  if (shutdown?.workerFloor !== undefined && shutdown.sdk > 0) {
    out.push(
      `tearing down one empty worker per server: ${
        (shutdown.workerFloor / shutdown.sdk).toFixed(2)
      }× the SDK's whole shutdown (row 6's bound: 3)`,
    );
  }
  return out.length === 0 ? "" : `\nthe design's least, in this run: ${out.join("; ")}`;
}

/**
 * The protocol eras a client may speak, and how one is chosen for a server.
 * Two words name them everywhere, in code and in prose: the **modern** era
 * is the stateless revision (2026-07-28: `server/discover`, a `_meta`
 * envelope on every request, no session); the **legacy** era is the
 * `initialize` handshake (2025-11-25 back to 2024-11-05). Defined once here;
 * the census, the catalog and the worker all read it.
 *
 * @module
 */

import { LEGACY_VERSIONS, MODERN_VERSIONS, type SupportedVersion } from "../codec/protocol.ts";

/**
 * How a client picks the protocol era of a server: probe and fall back
 * (`auto`, the default), or pinned to `modern` (no fallback) or `legacy`
 * (no probe).
 */
export type EraMode = (typeof ERA_MODES)[number];

/** Every {@linkcode EraMode}, the default first. */
export const ERA_MODES = ["auto", "modern", "legacy"] as const;

/** Whether a value is an {@linkcode EraMode}. */
export function isEraMode(value: unknown): value is EraMode {
  return (ERA_MODES as readonly unknown[]).includes(value);
}

/** The most a probe waits for its answer before `auto` falls back: 10 s. */
export const PROBE_TIMEOUT_MS = 10_000;

/** The share of the connect deadline a probe with a fallback may use at most. */
export const PROBE_DEADLINE_SHARE = 0.5;

/** What a start will try, from the mode and the versions offered. */
export type EraPlan = {
  /** Modern-era versions offered, newest first; empty: no probe. */
  modern: readonly string[];
  /** Legacy-era versions offered, newest first; empty: no handshake. */
  legacy: readonly string[];
};

function planOf(mode: EraMode, versions?: readonly SupportedVersion[]): EraPlan {
  const offered: readonly string[] = versions ?? [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
  const modern = MODERN_VERSIONS.filter((v) => offered.includes(v) && mode !== "legacy");
  const legacy = LEGACY_VERSIONS.filter((v) => offered.includes(v) && mode !== "modern");
  return { modern, legacy };
}

/**
 * What is wrong with a mode and the versions offered when together they
 * leave nothing to offer (an era pinned with versions of the other era
 * only, or no version at all), said of the versions; `undefined` when a
 * start has something to try. The one statement of that rule: the census,
 * the catalog and {@linkcode eraPlan} ask it.
 *
 * @example An era pinned with none of its versions
 * ```ts
 * import { offerProblem } from "./era.ts";
 * console.log(offerProblem("modern", ["2025-11-25"])); // era "modern" is pinned but ...
 * console.log(offerProblem("auto", ["2025-11-25"])); // undefined
 * ```
 */
export function offerProblem(
  mode: EraMode = "auto",
  versions?: readonly SupportedVersion[],
): string | undefined {
  const plan = planOf(mode, versions);
  if (plan.modern.length > 0 || plan.legacy.length > 0) return undefined;
  if (mode === "auto" || versions?.length === 0) return "no version is offered; offer at least one";
  return `era "${mode}" is pinned but none of these versions is of that era; ` +
    `offer one or set era to "auto"`;
}

/**
 * The plan of a start. `versions` (all by default) are filtered by the mode;
 * a mode left with nothing to offer ({@linkcode offerProblem}) is caller
 * misuse, refused before any spawn (`RangeError`).
 *
 * @example Auto with every version
 * ```ts
 * import { eraPlan } from "./era.ts";
 * console.log(eraPlan("auto")); // { modern: ["2026-07-28"], legacy: ["2025-11-25", ...] }
 * ```
 */
export function eraPlan(mode: EraMode = "auto", versions?: readonly SupportedVersion[]): EraPlan {
  const problem = offerProblem(mode, versions);
  if (problem !== undefined) {
    throw new RangeError(
      `Cannot connect with era "${mode}" and versions ${
        JSON.stringify(versions ?? "all")
      }: ${problem}`,
    );
  }
  return planOf(mode, versions);
}

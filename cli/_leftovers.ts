// Private to cli/: what to do about servers not confirmed retired. A server
// run here may have left a process behind; a remote one leaves no process on
// this machine, at most a session the server keeps until it expires it.

import { isRemote, type ServerSpec } from "../settings/mod.ts";
import type { RetirementReport } from "../client/census.ts";

/** The advice for one server not confirmed retired. */
export function leftoverAdvice(spec: ServerSpec | undefined): string {
  return spec !== undefined && isRemote(spec)
    ? "it runs nowhere here; the server may keep its session until it expires it"
    : "check for a leftover process before starting it again";
}

/** The advice for every server of `report` not confirmed retired, said once. */
export function leftoversAdvice(report: RetirementReport, specs: readonly ServerSpec[]): string {
  const unconfirmed = [...report.clients].filter(([, outcome]) => !outcome.ok).map(([name]) =>
    specs.find((spec) => spec.name === name)
  );
  if (unconfirmed.length > 0 && unconfirmed.every((spec) => spec !== undefined && isRemote(spec))) {
    return "no process of theirs runs here, but their servers may keep their sessions until " +
      "they expire them";
  }
  return "check for leftover processes";
}

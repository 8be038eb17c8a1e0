// Private to settings/: the checks of a spec's policies (which of its tools a
// harness exposes, what a result that breaks its schema becomes, the least
// level of log messages asked, when a dead
// server starts again), each rule stated once for the census and the catalog.

import { quote } from "../codec/quote.ts";
import { isLogLevel, LOG_LEVELS } from "../codec/server_requests.ts";
import { MAX_RESTART_ATTEMPTS } from "./restart.ts";
import { isResultCheck, RESULT_CHECKS } from "./server_spec.ts";
import {
  type Describe,
  isRecord,
  isTimeoutMs,
  oneOf,
  outOfRange,
  type SpecProblem,
  TIMEOUT_RULE,
  wrongType,
} from "./problem.ts";

/** The problem of a spec's lists of tools and its result check, if any. */
export function toolsProblem(
  spec: Record<string, unknown>,
  describe: Describe,
): SpecProblem | undefined {
  for (const key of ["enabledTools", "disabledTools"] as const) {
    const value = spec[key];
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      return wrongType(key, `expected an array of tool names, found ${describe(value)}`);
    }
    for (const [index, name] of value.entries()) {
      if (typeof name !== "string" || name === "") {
        return wrongType(
          key,
          `expected an array of tool names, found ${describe(name)} at index ${index}`,
        );
      }
    }
  }
  const { resultCheck, logLevel } = spec;
  if (resultCheck !== undefined && !isResultCheck(resultCheck)) {
    return wrongType(
      "resultCheck",
      `expected ${oneOf(RESULT_CHECKS)}, found ${describe(resultCheck)}`,
    );
  }
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    return wrongType("logLevel", `expected ${oneOf(LOG_LEVELS)}, found ${describe(logLevel)}`);
  }
  return undefined;
}

/** The problem of a spec's restart policy, if any. */
export function restartProblem(value: unknown, describe: Describe): SpecProblem | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    return wrongType("restart", `expected { max, backoffMs }, found ${describe(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (key !== "max" && key !== "backoffMs") {
      return wrongType("restart", `unknown field ${quote(key)}; expected max and backoffMs`);
    }
  }
  const { max, backoffMs } = value;
  if (
    max !== undefined && (!Number.isSafeInteger(max) || (max as number) < 1 ||
      (max as number) > MAX_RESTART_ATTEMPTS)
  ) {
    return outOfRange(
      "restart",
      `expected max to be a whole number of attempts from 1 to ${MAX_RESTART_ATTEMPTS}, ` +
        `found ${describe(max)}`,
    );
  }
  if (backoffMs !== undefined && !isTimeoutMs(backoffMs)) {
    return outOfRange(
      "restart",
      `expected backoffMs to be ${TIMEOUT_RULE}, found ${describe(backoffMs)}`,
    );
  }
  return undefined;
}

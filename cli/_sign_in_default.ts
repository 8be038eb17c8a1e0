// Private to cli/: which servers a command boots with a sign-in of their own.

import { isRemote, type ServerSpec } from "../settings/mod.ts";

/**
 * The specs a command boots: a remote server with neither sign-in settings
 * nor an `Authorization` header of its own signs in with none (`oauth: {}`),
 * so that a token `login` stored is used, and a server that asks for one
 * says where to sign in (`needs_auth`) instead of only failing.
 */
export function signInByDefault(specs: readonly ServerSpec[]): ServerSpec[] {
  return specs.map((spec) => {
    if (!isRemote(spec) || spec.oauth !== undefined) return spec;
    const named = Object.keys(spec.headers ?? {}).some((h) => h.toLowerCase() === "authorization");
    return named ? spec : { ...spec, oauth: {} };
  });
}

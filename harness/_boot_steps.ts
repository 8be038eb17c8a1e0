// Private to harness/: the steps `boot` takes for each server, held in one
// object so that a test can make any of them throw and check that boot still
// retires every server it started before the error leaves it.

import { generate } from "../codegen/generate.ts";
import type { Client } from "../client/client.ts";

/** The steps of one server's boot, in order. */
export const bootSteps = {
  connect: (client: Client): ReturnType<Client["connect"]> => client.connect(),
  list: (client: Client, options: { timeoutMs?: number }): ReturnType<Client["listing"]> =>
    client.listing(options),
  generate,
};

// Private to harness/: where a request for a server's prompts, completions,
// resource listings, subscriptions and skills goes. One that names a server is
// refused as a value before it leaves when the server is unknown or failed at
// boot (the client refuses one that declared no such capability); a listing
// that names none asks every ready server that declared the capability, in
// catalog order, each entry marked with its server, and fails with the first
// server's failure.

import { isJsonObject } from "../codec/json.ts";
import { ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { Census } from "../client/census.ts";
import type { Client, RequestOptions } from "../client/client.ts";
import { declaresSkills } from "../client/skills.ts";
import { refusal } from "./_resources.ts";
import type { Harness, ServerReport } from "./types.ts";

type Listing<T> = (
  client: Client,
  options: RequestOptions,
) => Promise<Result<T[], { kind: string; message: string }>>;

/** The client of `server`, or why a request to it is refused before it leaves. */
function clientOf(
  census: Census,
  reports: ReadonlyMap<string, ServerReport>,
  server: string,
  what: string,
) {
  const refused = refusal(reports, server, what);
  if (refused !== undefined) return refused;
  const client = census.clients.get(server);
  if (client === undefined) {
    throw new TypeError(`Server ${quote(server)} is missing from the census`);
  }
  return ok(client);
}

/** Lists of one server's, or of every ready server that declared `capability`. */
function listing<T>(
  census: Census,
  reports: ReadonlyMap<string, ServerReport>,
  capability: "prompts" | "resources" | "skills",
  what: string,
  list: Listing<T>,
) {
  const declared = (client: Client | undefined) =>
    capability === "skills"
      ? declaresSkills(client?.serverInfo)
      : isJsonObject(client?.serverInfo?.capabilities[capability]);
  return async (server?: string, options: RequestOptions = {}) => {
    const names = server === undefined
      ? [...reports].filter(([name, report]) =>
        report.state === "ready" && declared(census.clients.get(name))
      ).map(([name]) => name)
      : [server];
    const entries: (T & { server: string })[] = [];
    for (const name of names) {
      const client = clientOf(census, reports, name, what);
      if (!client.ok) return client;
      const listed = await list(client.value, options);
      if (!listed.ok) return listed;
      for (const entry of listed.value) entries.push({ ...entry, server: name });
    }
    return ok(entries);
  };
}

/** The harness's prompts, completions, resource listings and subscriptions, routed. */
export function routeAsks(
  census: Census,
  reports: ReadonlyMap<string, ServerReport>,
): Pick<
  Harness,
  | "listPrompts"
  | "getPrompt"
  | "complete"
  | "listResources"
  | "listResourceTemplates"
  | "subscribeResource"
  | "listSkills"
  | "readSkill"
> {
  const to = (server: string, what: string) => clientOf(census, reports, server, what);
  return {
    listPrompts: listing(
      census,
      reports,
      "prompts",
      "list the prompts of",
      (client, options) => client.listPrompts(options),
    ) as Harness["listPrompts"],
    listResources: listing(
      census,
      reports,
      "resources",
      "list the resources of",
      (client, options) => client.listResources(options),
    ) as Harness["listResources"],
    listResourceTemplates: listing(
      census,
      reports,
      "resources",
      "list the resource templates of",
      (client) => client.listResourceTemplates(),
    ) as Harness["listResourceTemplates"],
    listSkills: listing(
      census,
      reports,
      "skills",
      "list the skills of",
      (client) => client.listSkills(),
    ) as Harness["listSkills"],
    readSkill(server, name, options = {}) {
      const client = to(server, "read a skill of");
      return client.ok ? client.value.readSkill(name, options) : Promise.resolve(client);
    },
    getPrompt(server, name, args = {}, options = {}) {
      const client = to(server, "get a prompt of");
      return client.ok ? client.value.getPrompt(name, args, options) : Promise.resolve(client);
    },
    complete(server, ref, argument, context = {}) {
      const client = to(server, "complete an argument of");
      return client.ok ? client.value.complete(ref, argument, context) : Promise.resolve(client);
    },
    subscribeResource(server, uri, onUpdated, options = {}) {
      const client = to(server, "subscribe to a resource of");
      return client.ok
        ? client.value.subscribeResource(uri, onUpdated, options)
        : Promise.resolve(client);
    },
  };
}

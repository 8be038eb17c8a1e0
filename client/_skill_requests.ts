// Private to client/: a client's requests of skills: the listing, held for
// the reads that follow, and the read of one skill, from that listing (or
// one listed now) or, for a URI no listing has, by `skills/get`; then its
// files, the `SKILL.md` first, each checked against the entry as it is read,
// all under one deadline.

import { compactJson } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { decodeSkillResult, type SkillEntry } from "../codec/skills.ts";
import type { ClientError } from "./thread/outcomes.ts";
import type { Generation } from "./_generation.ts";
import { listOf, type RequestHost, SKILLS } from "./_lists.ts";
import type { ReadResourceResult, ResourceError } from "./resources.ts";
import {
  checkFrontmatter,
  checkSkillBounds,
  checkSkillFile,
  declaresSkills,
  findSkill,
  type SkillError,
  type SkillFile,
  skillsNotDeclared,
} from "./skills.ts";
import type { RequestOptions } from "./client_options.ts";

/** What a client's skill requests need of it: its requests' host, and its reads of resources. */
export type SkillHost = RequestHost & {
  /** Reads one resource, as `Client.readResource`. */
  readResource(
    uri: string,
    options: RequestOptions,
  ): Promise<Result<ReadResourceResult, ClientError | ResourceError>>;
};

/** The skill requests of one client. */
export class SkillRequests {
  #host: SkillHost;
  // The last skills listing, and the generation that answered it.
  #held: { generation: Generation; entries: SkillEntry[] } | undefined;

  /** The requests of the client `host` describes. */
  constructor(host: SkillHost) {
    this.#host = host;
  }

  /** Lists every skill, and holds the listing (see `Client.listSkills`). */
  async list(
    options: RequestOptions = {},
  ): Promise<Result<SkillEntry[], ClientError | SkillError>> {
    const generation = this.#host.generation();
    if (generation.state === "ready" && !declaresSkills(generation.info)) {
      return err(skillsNotDeclared(this.#host.server));
    }
    const listed = await listOf(this.#host, SKILLS, options);
    if (listed.ok) this.#held = { generation, entries: listed.value };
    return listed;
  }

  /** Reads one skill by its name or its `SKILL.md` URI (see `Client.readSkill`). */
  async read(
    name: string,
    options: RequestOptions = {},
  ): Promise<
    Result<
      SkillEntry & { body: string; files: SkillFile[]; verified: boolean },
      ClientError | ResourceError | SkillError
    >
  > {
    if (typeof name !== "string" || name === "") {
      throw new TypeError(
        `Cannot read a skill: its name ${String(name)} is not a non-empty string`,
      );
    }
    const timeoutMs = this.#host.timeout(options.timeoutMs);
    const deadlineAt = performance.now() + timeoutMs;
    const left = () => ({
      timeoutMs: Math.max(0, deadlineAt - performance.now()),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const generation = this.#host.generation();
    if (generation.state === "ready" && !declaresSkills(generation.info)) {
      return err(skillsNotDeclared(this.#host.server));
    }
    let entries = this.#held?.generation === generation ? this.#held.entries : undefined;
    if (entries === undefined) {
      const listed = await this.list(left());
      if (!listed.ok) return listed;
      entries = listed.value;
    }
    let found: Result<SkillEntry, ClientError | SkillError> = findSkill(
      this.#host.server,
      entries,
      name,
    );
    if (!found.ok && found.error.kind === "skill_not_found" && name.includes("://")) {
      // A skill a listing need not show is still served by its URI.
      const era = generation.era;
      found = await generation.request(
        "skills/get",
        compactJson({ uri: name }),
        left().timeoutMs,
        options.signal,
        (value): Result<SkillEntry, ClientError> => {
          const type = era.checkResult("skills/get", value);
          const decoded = type.ok ? decodeSkillResult(value) : type;
          if (decoded.ok && decoded.value.uri === name) return decoded;
          return err({
            kind: "result_malformed",
            method: "skills/get",
            message: `Server "${this.#host.server}" sent a malformed skills/get result for ${
              JSON.stringify(name)
            }: ${
              decoded.ok ? `it names another skill, ${decoded.value.uri}` : decoded.error.message
            }`,
          });
        },
      );
    }
    if (!found.ok) return found;
    const skill = found.value;
    const bounded = checkSkillBounds(this.#host.server, skill);
    if (!bounded.ok) return bounded;
    const listed = skill.resources === "dynamic" ? [] : skill.resources;
    const read = async (
      uri: string,
    ): Promise<Result<SkillFile, ClientError | ResourceError | SkillError>> => {
      const answered = await this.#host.readResource(uri, left());
      if (!answered.ok) return answered;
      const entry = listed.find((file) => file.uri === uri);
      return checkSkillFile(this.#host.server, uri, entry, answered.value.contents);
    };
    const manifest = await read(skill.uri);
    if (!manifest.ok) return manifest;
    const front = await checkFrontmatter(this.#host.server, skill, manifest.value);
    if (!front.ok) return front;
    const files = [manifest.value];
    for (const file of listed) {
      if (file.uri === skill.uri) continue;
      const got = await read(file.uri);
      if (!got.ok) return got;
      files.push(got.value);
    }
    return ok({ ...skill, body: front.value, files, verified: skill.resources !== "dynamic" });
  }
}

/**
 * Reading a server's resources (`resources/read`), for a server that
 * declares `resources`: what a read answers (its contents, text or blob),
 * why one is refused, and the decoder of its result. A URI the server did not
 * offer in a result or a listing is still sent (the server decides what it
 * serves); what comes back is bounded: each content at most
 * {@linkcode MAX_RESOURCE_BYTES}, a blob counted from its base64 length and
 * refused by that size before anything is decoded, and handed on as the
 * base64 text it came as.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "../codec/json.ts";
import type { Era, ResourceContents } from "../codec/protocol.ts";
import { describeValue, quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { utf8Bytes } from "../codec/_utf8.ts";
import { MAX_RESOURCE_BYTES } from "../settings/limits.ts";
import type { ClientError } from "./thread/outcomes.ts";
import type { ServerInfo } from "./thread/server_info.ts";
import { eraCodec } from "./thread/era.ts";

export type { ResourceContents } from "../codec/protocol.ts";

/** What `resources/read` answered: every content of the resource, in the server's order. */
export type ReadResourceResult = { contents: ResourceContents[] };

/** Why a read was refused before or after it reached the server, beyond a call's own failures. */
export type ResourceError =
  | {
    kind: "resources_not_declared" | "subscriptions_not_declared";
    server: string;
    message: string;
  }
  | {
    /**
     * A 2026-07-28 server's listen for the URI was not taken: its
     * acknowledgment left the URI out, or it ended the listen before
     * acknowledging it.
     */
    kind: "subscription_refused";
    server: string;
    uri: string;
    message: string;
  }
  | {
    kind: "resource_too_large";
    uri: string;
    /** The content's size in bytes (a blob's, counted from its base64 length). */
    bytes: number;
    limit: number;
    message: string;
  };

/** Whether a server declared `resources` when it connected. */
export function declaresResources(info: ServerInfo | undefined): boolean {
  return info !== undefined && isJsonObject(info.capabilities.resources);
}

/** The refusal of a read from a server that declared no resources. */
export function resourcesNotDeclared(server: string): ResourceError {
  return {
    kind: "resources_not_declared",
    server,
    message: `Cannot read a resource of server ${quote(server)}: it declared no resources ` +
      "when it connected",
  };
}

/** Whether a server declared `resources.subscribe` when it connected. */
export function declaresSubscriptions(info: ServerInfo | undefined): boolean {
  const resources = info?.capabilities.resources;
  return isJsonObject(resources) && resources.subscribe === true;
}

/** The refusal of a subscription to a server that takes none. */
export function subscriptionsNotDeclared(server: string): ResourceError {
  return {
    kind: "subscriptions_not_declared",
    server,
    message: `Cannot subscribe to a resource of server ${quote(server)}: it declared no ` +
      `"resources.subscribe" when it connected`,
  };
}

/**
 * The refusal of a 2026-07-28 subscription: the server left the URI out of
 * its acknowledgment (`left_out`), ended the listen first (`ended`), or ended
 * it later, while it still served (`closed`).
 */
export function subscriptionRefused(
  server: string,
  uri: string,
  why: "left_out" | "ended" | "closed",
): ResourceError {
  if (why === "closed") {
    return {
      kind: "subscription_refused",
      server,
      uri,
      message: `Server ${quote(server)} ended the subscription to ${JSON.stringify(uri)}: it ` +
        "closed the listen; subscribe again to hear its updates",
    };
  }
  const said = why === "left_out"
    ? "its acknowledgment of the listen left the URI out"
    : "it ended the listen before acknowledging it";
  return {
    kind: "subscription_refused",
    server,
    uri,
    message: `Server ${quote(server)} did not take a subscription to ${JSON.stringify(uri)}: ` +
      `${said}; check that it serves that resource and takes subscriptions to it`,
  };
}

/** A subscription to one resource's updates, as `Client.subscribeResource` made it. */
export type ResourceSubscription = {
  /** The URI subscribed to. */
  readonly uri: string;
  /**
   * Settles once the subscription has ended, however it ended: as
   * `unsubscribe()` answered; `ok` when the client was retired; an error when
   * the server ended the listen (`subscription_refused`), when its server
   * died with no restart to come (the death, `unavailable`), or when the
   * restarted server did not take it again. A subscription outlives a
   * restart: it is made again on the new server, and hears its updates.
   */
  readonly ended: Promise<Result<void, ClientError | ResourceError>>;
  /**
   * Ends the subscription: no update is told from now on, and the server is
   * told (`resources/unsubscribe`, or the listen request cancelled) unless it
   * is gone or ended the subscription itself. Calling it again answers the
   * same.
   */
  unsubscribe(): Promise<Result<void, ClientError>>;
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes a base64 text decodes to, from its length alone. */
function base64Bytes(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.floor(text.length / 4) * 3 + [0, 0, 1, 2][text.length % 4]! - padding;
}

function tooLarge(server: string, uri: string, bytes: number, what: string): ResourceError {
  return {
    kind: "resource_too_large",
    uri,
    bytes,
    limit: MAX_RESOURCE_BYTES,
    message: `Server ${quote(server)} sent ${what} of ${bytes} bytes for ${
      quote(uri)
    }, more than MAX_RESOURCE_BYTES (${MAX_RESOURCE_BYTES}); it was refused`,
  };
}

/**
 * Decodes a `resources/read` result: every content must have a string
 * `uri` and a string `text` or `blob` (valid base64), each within
 * {@linkcode MAX_RESOURCE_BYTES}; in a modern session its `resultType`
 * must be `complete`.
 *
 * @example A text resource
 * ```ts
 * import { decodeReadResult } from "@loom/mcp/client";
 * const read = decodeReadResult("docs", { contents: [{ uri: "a://1", text: "hi" }] });
 * console.log(read.ok && read.value.contents[0]); // { uri: "a://1", text: "hi" }
 * ```
 */
export function decodeReadResult(
  server: string,
  value: JsonValue,
  era?: Era,
): Result<ReadResourceResult, ClientError | ResourceError> {
  const malformed = (why: string) =>
    err<ClientError>({
      kind: "result_malformed",
      method: "resources/read",
      message: `Server ${quote(server)} sent a malformed resources/read result: ${why}`,
    });
  const type = eraCodec(era).checkResult("resources/read", value);
  if (!type.ok) return malformed(type.error.message);
  if (!isJsonObject(value)) return malformed(`it is ${describeValue(value)}, not an object`);
  const list = value.contents;
  if (!Array.isArray(list)) return malformed(`"contents" is ${describeValue(list)}, not an array`);
  const contents: ResourceContents[] = [];
  for (let index = 0; index < list.length; index++) {
    const item = list[index] as JsonValue;
    if (!isJsonObject(item) || typeof item.uri !== "string") {
      return malformed(`content ${index} has no string "uri"`);
    }
    const uri = item.uri;
    const mime = typeof item.mimeType === "string" ? { mimeType: item.mimeType } : {};
    if (typeof item.text === "string") {
      // Three bytes a UTF-16 unit at most: only a text that may be past the limit is counted.
      const bytes = item.text.length * 3 > MAX_RESOURCE_BYTES ? utf8Bytes(item.text) : 0;
      if (bytes > MAX_RESOURCE_BYTES) return err(tooLarge(server, uri, bytes, "a text"));
      contents.push({ uri, ...mime, text: item.text });
    } else if (typeof item.blob === "string") {
      // By its size first: a blob past the limit is never looked into.
      const bytes = base64Bytes(item.blob);
      if (bytes > MAX_RESOURCE_BYTES) return err(tooLarge(server, uri, bytes, "a blob"));
      if (item.blob.length % 4 === 1 || !BASE64.test(item.blob)) {
        return malformed(`content ${index} has a "blob" that is not base64`);
      }
      contents.push({ uri, ...mime, blob: item.blob });
    } else {
      return malformed(`content ${index} has neither a string "text" nor a string "blob"`);
    }
  }
  return ok({ contents });
}

/**
 * A server's whole listing, as `Client.listing` gives it.
 *
 * @module
 */

import type { ToolDescriptor } from "../codec/protocol.ts";

/**
 * A server's whole listing: its tools, and how long it stays fresh when the
 * server says (a stateless-era `ttlMs`, in milliseconds).
 */
export type ToolListing = { tools: ToolDescriptor[]; ttlMs?: number };

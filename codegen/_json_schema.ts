/**
 * The JSON Schema validator the library uses, pinned: `@cfworker/json-schema`
 * interprets a schema (it never compiles one to code), supports drafts 4, 7,
 * 2019-09 and 2020-12, and is what the official MCP SDK v2 validates with.
 * `validate.ts` is its only user.
 *
 * @module
 */

export {
  dereference,
  format,
  type OutputUnit,
  type Schema,
  type SchemaDraft,
  validate,
} from "npm:@cfworker/json-schema@4.1.6";

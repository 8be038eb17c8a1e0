// Private to catalog/: the one runtime dependency of the library, pinned here
// rather than in an import map, so that the library loads from a checkout or
// a URL without the project's deno.json. Moving to another TOML parser (such
// as `jsr:@std/toml`) changes this line only.

export { parse, TomlError } from "npm:smol-toml@1.9.1";

// Private to client/: the YAML parser a skill's frontmatter is read with,
// pinned here rather than in an import map, so that the library loads without
// the project's deno.json. Imported only when a skill is read.

export { parse as parseYaml } from "npm:yaml@2.9.1";

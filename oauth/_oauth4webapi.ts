// Private to oauth/: the OAuth 2 / OpenID client every flow of the room is
// built on (panva's oauth4webapi, certified, dependency-free, written for web
// runtimes), pinned here rather than in an import map so that the library
// loads from a checkout or a URL without the project's deno.json. Upgrading
// it changes this line only.

export * from "npm:oauth4webapi@3.8.8";

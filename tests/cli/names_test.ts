import assert from "node:assert/strict";
import { httpName, stdioName } from "../../cli/_names.ts";

Deno.test("stdioName() names a server after its package, script, image or executable", () => {
  const cases: [string, string | undefined][] = [
    ["npx -y @modelcontextprotocol/server-everything stdio", "everything"],
    ["npx -y @modelcontextprotocol/server-filesystem /tmp", "filesystem"],
    ["npx -y @scope/server-x", "x"],
    ["deno run -A npm:@modelcontextprotocol/server-memory@2026.8.31", "memory"],
    ["uvx mcp-server-fetch", "fetch"],
    ["docker run -i --rm -e TOKEN ghcr.io/github/github-mcp-server", "github"],
    ["npx -y @upstash/context7-mcp@latest", "context7"],
    ["python -m mcp_server_time", "time"],
    ["deno run --quiet /srv/tests/fixtures/echo_server.ts", "echo"],
    ["sleep 300", "sleep"],
  ];
  for (const [command, name] of cases) assert.equal(stdioName(command.split(" ")), name, command);
});

Deno.test("httpName() names a remote server after the telling label of its host", () => {
  assert.equal(httpName("https://mcp.linear.app/mcp"), "linear");
  assert.equal(httpName("https://mcp.notion.com/mcp"), "notion");
  assert.equal(httpName("http://127.0.0.1:8080/mcp"), "remote");
  assert.equal(httpName("http://localhost:3000/mcp"), "localhost");
});

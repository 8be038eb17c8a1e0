// A server's elicitation through the real command line, against the asking
// fixture: declined at once without a terminal, saying why; on a
// pseudo-terminal (util-linux's `script`), asked field by field, Ctrl-C
// cancelling the question alone.

import assert from "node:assert/strict";
import { catalogFolder, cli, DENO, fixture, Terminal, tomlEntry } from "./_cli.ts";

// The fixture's `elicit` tool sends these params and answers with the client's response.
const FORM = JSON.stringify({
  params: {
    message: "Your name?",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", title: "Name" },
        age: { type: "integer", minimum: 0, default: 30 },
      },
      required: ["name"],
    },
  },
});

// A failing test ends at the call's deadline, sooner than the default.
const ASKER = ["--stdio", fixture("asking_server.ts"), "--name", "asker", "--timeout", "30s"];

async function hasScript(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("script", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

const SCRIPT = await hasScript();
if (!SCRIPT) console.error("skipping the terminal tests: util-linux's script is not installed");

async function inTemp<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "loom_cli_elicit_" });
  try {
    return await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("without a terminal an elicitation is declined at once, and stderr says why", async () => {
  const run = await inTemp((dir) => cli(dir, [...ASKER, "call", "asker", "elicit", FORM]));
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, '{"result":{"action":"decline"}}\n');
  assert.match(
    run.stderr,
    /^warning: server "asker" asked a question \(elicitation during "elicit": "Your name\?"\) and it was declined, as every later question from it will be: standard input is not a terminal; run the command on a terminal to answer it$/m,
  );
});

Deno.test("the command line declares elicitation, and neither sampling nor roots", async () => {
  const run = await inTemp((dir) => cli(dir, [...ASKER, "call", "asker", "capabilities"]));
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { elicitation: { form: {}, url: {} } });
});

Deno.test({
  name: "on a terminal a form is asked field by field, and the answers are sent",
  ignore: !SCRIPT,
  fn: () =>
    inTemp(async (dir) => {
      const term = Terminal.start(dir, [...ASKER, "call", "asker", "elicit", FORM]);
      assert.ok(await term.waitFor(/decline: /), term.text());
      await term.type("\r");
      assert.ok(await term.waitFor(/"name": /), term.text());
      await term.type("Ad\u007fda\r");
      assert.ok(await term.waitFor(/"age" \[30\]: /), term.text());
      await term.type("\r");
      const code = await term.end();
      const shown = term.text();
      assert.equal(code, 0, shown);
      assert.match(
        shown,
        /^Server "asker" asks you \(elicitation, during its tool "elicit"\):\n {2}"Your name\?"$/m,
      );
      assert.match(shown, /^ {2}Field 1 of 2: "name" "Name", required$/m);
      assert.match(shown, /^ {4}a whole number of at least 0$/m);
      assert.match(
        shown,
        /^\{"result":\{"action":"accept","content":\{"name":"Ada","age":30\}\}\}$/m,
      );
    }),
});

Deno.test({
  name: "on a terminal Ctrl-C cancels the question, and the command goes on",
  ignore: !SCRIPT,
  fn: () =>
    inTemp(async (dir) => {
      const term = Terminal.start(dir, [...ASKER, "call", "asker", "elicit", FORM]);
      assert.ok(await term.waitFor(/decline: /), term.text());
      await term.type("\r");
      assert.ok(await term.waitFor(/"name": /), term.text());
      await term.type("\u0003");
      const code = await term.end();
      const shown = term.text();
      // Not interrupted (130): the server heard cancel, and the call returned its answer.
      assert.equal(code, 0, shown);
      assert.match(shown, /cancelled \(Ctrl-C\): server "asker" hears/);
      assert.match(shown, /^\{"result":\{"action":"cancel"\}\}$/m);
      assert.doesNotMatch(shown, /interrupted/);
    }),
});

Deno.test({
  name: "on a terminal a URL to visit is opened with $BROWSER, the URL one argument, no shell",
  ignore: !SCRIPT,
  fn: () =>
    inTemp(async (dir) => {
      // A shell would run the command substitution; the browser records what it was given,
      // renamed into place whole, so that the poll below never reads it half written.
      const url = "https://auth.example.com/start?a=1&b=$(touch pwned);c";
      const browser = `${dir}/browser`;
      await Deno.writeTextFile(
        browser,
        `#!/bin/sh\nprintf '%s\\n' "$#" "$1" > "${dir}/opening"\nmv "${dir}/opening" "${dir}/opened"\n`,
      );
      await Deno.chmod(browser, 0o755);
      const params = { params: { mode: "url", message: "Sign in", url, elicitationId: "e1" } };
      const term = Terminal.start(
        dir,
        [...ASKER, "call", "asker", "elicit", JSON.stringify(params)],
        { env: { BROWSER: browser } },
      );
      assert.ok(await term.waitFor(/decline: /), term.text());
      await term.type("o\r");
      assert.ok(await term.waitFor(/say d once you are done/), term.text());
      let opened: string | undefined;
      for (let tries = 0; tries < 100 && opened === undefined; tries++) {
        opened = await Deno.readTextFile(`${dir}/opened`).catch(() => undefined);
        if (opened === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await term.type("d\r");
      const code = await term.end();
      const shown = term.text();
      assert.equal(code, 0, shown);
      // One argument, the URL as parsed (the one a browser would open of the text).
      assert.equal(opened, `1\n${new URL(url).href}\n`);
      assert.equal(await Deno.stat(`${dir}/pwned`).catch(() => undefined), undefined);
      assert.match(
        shown,
        /^ {2}URL: "https:\/\/auth\.example\.com\/start\?a=1&b=\$\(touch%20pwned\);c"$/m,
      );
      assert.match(shown, /^\{"result":\{"action":"accept"\}\}$/m);
    }),
});

Deno.test({
  name: "on a terminal server-everything's form of every field kind is answered, defaults filled",
  ignore: !SCRIPT,
  fn: () =>
    inTemp(async (dir) => {
      const everything =
        `${DENO} run -A npm:@modelcontextprotocol/server-everything@2026.8.31 stdio`;
      const term = Terminal.start(dir, [
        "--stdio",
        everything,
        "--name",
        "everything",
        "call",
        "everything",
        "trigger-elicitation-request",
      ], { env: { NO_COLOR: "1" } });
      assert.ok(await term.waitFor(/decline: /), term.text());
      await term.type("\r");
      // The one required field is the first; every other takes its default or is left out.
      for (let field = 1; field <= 13; field++) {
        const prompt = new RegExp(String.raw`Field ${field} of 13[\s\S]*\n {2}"\w+"[^\n]*: $`);
        assert.ok(await term.waitFor(prompt), term.text());
        await term.type(field === 1 ? "Ada\r" : "\r");
      }
      const code = await term.end();
      const shown = term.text();
      assert.equal(code, 0, shown);
      assert.match(shown, /^ {6}2\) "Green Lantern" \("hero-2"\)$/m);
      assert.match(shown, /^ {4}a whole number from 1 to 100$/m);
      assert.match(shown, /"untitledMultipleSelectEnum" \["Guitar"\]: /);
      assert.match(shown, /"name": "Ada"/);
      assert.match(shown, /"integer": 42/);
      assert.match(shown, /"titledSingleSelectEnum": "hero-1"/);
    }),
});

Deno.test({
  name: "on a terminal Ctrl-C cancels a program's question, and the program goes on",
  ignore: !SCRIPT,
  fn: async () => {
    const dir = await catalogFolder("loom_cli_elicit_run_", tomlEntry("asker", "asking_server.ts"));
    try {
      await Deno.writeTextFile(
        `${dir}/p.ts`,
        `import { elicit } from "./mcp/asker.ts";\n` +
          `const first = (await elicit(${FORM})).text;\n` +
          `export default { first, after: "the program went on" };\n`,
      );
      const term = Terminal.start(dir, ["--catalog", "loom.toml", "run", "p.ts"], {
        env: { NO_COLOR: "1" },
      });
      assert.ok(await term.waitFor(/decline: /), term.text());
      await term.type("\u0003");
      const code = await term.end();
      const shown = term.text();
      assert.equal(code, 0, shown);
      assert.match(shown, /"first": "\{\\"result\\":\{\\"action\\":\\"cancel\\"\}\}"/);
      assert.match(shown, /"after": "the program went on"/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("a tool server-everything hides from a client without sampling is said to be hidden", async () => {
  const everything = `${DENO} run -A npm:@modelcontextprotocol/server-everything@2026.8.31 stdio`;
  const run = await inTemp((dir) =>
    cli(dir, [
      "--stdio",
      everything,
      "--name",
      "everything",
      "call",
      "everything",
      "trigger-sampling-request",
    ])
  );
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    /has no tool "trigger-sampling-request" .*; its tools: .*trigger-elicitation-request.* \(a server may list some tools only to a client that declares sampling or roots, which the command line does not: it has no model to sample and lists no roots\)$/m,
  );
});

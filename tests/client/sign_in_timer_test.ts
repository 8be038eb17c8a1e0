// The client's refresh of a token ahead of its expiry (client/_sign_in.ts),
// on a clock and a timer of the test's: a wait longer than a timer can keep
// (a token living 30 days) is waited in steps that only arm the next, never
// handed to setTimeout, which would fire it at once and print a warning.

import assert from "node:assert/strict";
import { type RefreshTimer, SignIn } from "../../client/_sign_in.ts";
import { OAuthSession } from "../../oauth/mod.ts";
import { MAX_TIMEOUT_MS } from "../../settings/limits.ts";
import { authServer, resourceServer, tokenAnswer, virtualNet } from "../oauth/_virtual.ts";

const AS = "https://as.example";
const RS = "https://mcp.example";
const DAY_S = 24 * 60 * 60;

/** A timer that runs nothing on its own: the test fires what it armed. */
function manualTimer() {
  const armed: Array<{ run: () => void; ms: number; done: boolean }> = [];
  const timer: RefreshTimer = (run, ms) => {
    const entry = { run, ms, done: false };
    armed.push(entry);
    return () => entry.done = true;
  };
  /** Fires a timer armed, as its wait ending would. */
  const fire = (entry: { run: () => void; done: boolean }) => {
    entry.done = true;
    entry.run();
  };
  return { timer, fire, live: () => armed.filter((entry) => !entry.done) };
}

async function signedIn(expiresIn: number, now: () => number) {
  const net = virtualNet({
    [RS]: resourceServer(RS, AS),
    [AS]: authServer(AS, () => tokenAnswer(expiresIn)),
  });
  const session = new OAuthSession(`${RS}/mcp`, {
    grant: "client_credentials",
    clientId: "svc",
    clientSecret: "svc-secret",
  }, { fetch: net.fetch, now });
  assert.ok((await session.accessToken()).ok);
  const tokens = () => net.asked.filter((a) => a.url.pathname === "/token").length;
  return { session, tokens };
}

Deno.test("a refresh due past what a timer can keep is waited in steps, each arming the next", async () => {
  let now = 1_700_000_000_000;
  const { session, tokens } = await signedIn(30 * DAY_S, () => now);
  const { timer, fire, live } = manualTimer();
  const signIn = new SignIn(session, { now: () => now, timer });
  const posted: unknown[] = [];
  const { promise: firstPost, resolve } = Promise.withResolvers<void>();
  try {
    signIn.watch((message) => {
      posted.push(message);
      resolve();
    });
    const refreshAt = session.status().refreshAt!;
    assert.ok(refreshAt - now > MAX_TIMEOUT_MS);
    let steps = 0;
    for (;;) {
      const [step, ...others] = live();
      assert.ok(step !== undefined && others.length === 0, "one timer armed at a time");
      assert.ok(step.ms <= MAX_TIMEOUT_MS, `a wait of ${step.ms} ms`);
      if (now + step.ms >= refreshAt) break;
      now += step.ms;
      fire(step);
      steps++;
      assert.equal(tokens(), 1, "a step asks nothing");
      assert.deepEqual(posted, []);
    }
    assert.equal(steps, 1);
    const last = live()[0]!;
    now += last.ms;
    fire(last);
    await firstPost;
    assert.equal(tokens(), 2, "refreshed once due");
  } finally {
    signIn.stop();
    await session.close();
  }
  assert.deepEqual(live(), [], "stop() cancels the timer");
});

Deno.test("a token living less than the refresh margin is refreshed at half its lifetime", async () => {
  const now = 1_700_000_000_000;
  const { session } = await signedIn(30, () => now);
  const { timer, live } = manualTimer();
  const signIn = new SignIn(session, { now: () => now, timer });
  try {
    signIn.watch(() => {});
    assert.deepEqual(live().map((entry) => entry.ms), [15_000]);
  } finally {
    signIn.stop();
    await session.close();
  }
});

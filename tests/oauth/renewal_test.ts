// Renewing a token: only a refusal of its grant ends it; a server failing
// for now leaves the grant (and a token still good is handed out); a token
// living less than the refresh margin is not replaced on every request; a
// stored token is judged before it is handed out; two sessions on one store
// share one refresh of a rotating token. The clock is the session's own.

import assert from "node:assert/strict";
import {
  MemoryTokenStore,
  OAuthSession,
  type OAuthSessionOptions,
  REFRESH_MARGIN_MS,
  REFRESH_RETRY_MS,
  type StoredGrant,
  type TokenStore,
} from "../../oauth/mod.ts";
import { type Asked, authServer, resourceServer, tokenAnswer, virtualNet } from "./_virtual.ts";

const AS = "https://as.example";
const RS = "https://mcp.example";
const KEY = { issuer: AS, client: "id c" };
const RESOURCE = `${RS}/mcp`;
const T0 = 1_700_000_000_000;

/** The answers of a token endpoint a test switches as it goes. */
type Endpoint = { answer: (form: URLSearchParams) => Response };

/** A session of `c` whose store holds `grant`, on a network whose token endpoint is `endpoint`. */
async function world(
  endpoint: Endpoint,
  grant: StoredGrant | undefined,
  options: OAuthSessionOptions & { store?: TokenStore } = {},
) {
  const net = virtualNet({
    [RS]: resourceServer(RS, AS),
    [AS]: authServer(AS, (form) => endpoint.answer(form)),
  });
  const store = options.store ?? new MemoryTokenStore();
  if (grant !== undefined) {
    await store.update(KEY, () => ({ grants: { [RESOURCE]: grant } }));
  }
  const session = new OAuthSession(RESOURCE, { clientId: "c" }, {
    fetch: net.fetch,
    store,
    ...options,
  });
  const tokenRequests = () => net.asked.filter((a) => a.url.pathname === "/token");
  return { net, store, session, tokenRequests };
}

function formOf(asked: Asked): URLSearchParams {
  return new URLSearchParams(asked.body);
}

function rotating(expiresIn = 3600): Endpoint["answer"] {
  return () => tokenAnswer(expiresIn, { refresh_token: `rt-${crypto.randomUUID()}` });
}

async function storedGrant(store: TokenStore): Promise<StoredGrant | undefined> {
  const entry = await store.read(KEY);
  assert.ok(entry.ok);
  return entry.value?.grants[RESOURCE];
}

const PASSING: Array<[string, () => Response]> = [
  ["HTTP 503 with a page", () => new Response("<html>Service Unavailable</html>", { status: 503 })],
  ["HTTP 500 with server_error", () => Response.json({ error: "server_error" }, { status: 500 })],
  [
    "HTTP 429 with temporarily_unavailable",
    () => Response.json({ error: "temporarily_unavailable" }, { status: 429 }),
  ],
  ["an unreachable server", () => {
    throw new TypeError("connection refused");
  }],
];

Deno.test("a refresh that fails for a passing reason keeps the grant: the token, its refresh token and the stored grant stay", async (t) => {
  for (const [name, failing] of PASSING) {
    await t.step(name, async () => {
      const endpoint: Endpoint = { answer: rotating() };
      const grant = {
        accessToken: "at-0",
        expiresAt: T0 + 3_600_000,
        refreshToken: "rt-0",
        scopes: [],
      };
      const { session, store, tokenRequests } = await world(endpoint, grant, { now: () => T0 });
      try {
        assert.ok((await session.accessToken()).ok);
        endpoint.answer = failing;
        const refreshed = await session.refresh();
        assert.ok(!refreshed.ok);
        assert.doesNotMatch(refreshed.error.message, /sign in again/);
        assert.equal(session.status().state, "signed_in");
        assert.deepEqual(await storedGrant(store), grant);
        const still = await session.accessToken();
        assert.ok(still.ok && still.value.value === "at-0", "the token still good is handed out");
        endpoint.answer = rotating();
        assert.ok((await session.refresh()).ok);
        assert.equal(formOf(tokenRequests().at(-1)!).get("refresh_token"), "rt-0");
      } finally {
        await session.close();
      }
    });
  }
});

Deno.test("a refusal of the grant itself ends it, in the session and in the store", async (t) => {
  for (const error of ["invalid_grant", "unauthorized_client"]) {
    await t.step(error, async () => {
      const endpoint: Endpoint = { answer: () => Response.json({ error }, { status: 400 }) };
      const grant = {
        accessToken: "at-0",
        expiresAt: T0 + 3_600_000,
        refreshToken: "rt-0",
        scopes: [],
      };
      const { session, store } = await world(endpoint, grant, { now: () => T0 });
      try {
        assert.ok((await session.accessToken()).ok);
        const refreshed = await session.refresh();
        assert.ok(!refreshed.ok && refreshed.error.kind === "token_refused");
        assert.equal(session.status().state, "signed_out");
        assert.equal(await storedGrant(store), undefined);
      } finally {
        await session.close();
      }
    });
  }
});

Deno.test("invalid_client for a client of the settings keeps its grant and says to check the settings", async () => {
  const endpoint: Endpoint = {
    answer: () => Response.json({ error: "invalid_client" }, { status: 401 }),
  };
  const grant = {
    accessToken: "at-0",
    expiresAt: T0 + 3_600_000,
    refreshToken: "rt-0",
    scopes: [],
  };
  const { session, store } = await world(endpoint, grant, { now: () => T0 });
  try {
    assert.ok((await session.accessToken()).ok);
    const refreshed = await session.refresh();
    assert.ok(!refreshed.ok);
    assert.match(refreshed.error.message, /check the client's id, secret or key/);
    assert.equal(session.status().state, "signed_in");
    assert.deepEqual(await storedGrant(store), grant);
  } finally {
    await session.close();
  }
});

Deno.test("a token living less than the refresh margin is renewed at half its lifetime, not on every request", async () => {
  let now = T0;
  const expired = { accessToken: "at-0", expiresAt: T0 - 1, refreshToken: "rt-0", scopes: [] };
  const { session, tokenRequests } = await world({ answer: rotating(30) }, expired, {
    now: () => now,
  });
  try {
    assert.ok(30_000 < REFRESH_MARGIN_MS);
    assert.ok((await session.accessToken()).ok);
    assert.equal(tokenRequests().length, 1);
    for (let i = 0; i < 10; i++) assert.ok((await session.credentials()).ok);
    assert.equal(tokenRequests().length, 1, "ten requests, no new token");
    assert.equal(session.status().refreshAt, now + 15_000);
    now += 15_000;
    assert.ok((await session.credentials()).ok);
    assert.equal(tokenRequests().length, 2, "renewed at half its lifetime");
  } finally {
    await session.close();
  }
});

Deno.test("a token ahead of expiry whose refresh fails for a passing reason is handed out until it expires", async () => {
  let now = T0;
  const endpoint: Endpoint = { answer: rotating() };
  const grant = {
    accessToken: "at-0",
    expiresAt: T0 + 3_600_000,
    refreshToken: "rt-0",
    scopes: [],
  };
  const { session, tokenRequests } = await world(endpoint, grant, { now: () => now });
  try {
    assert.ok((await session.accessToken()).ok);
    endpoint.answer = () => {
      throw new TypeError("connection refused");
    };
    now = grant.expiresAt - 50_000;
    const during = await session.credentials();
    assert.ok(during.ok && during.value?.headers.Authorization === "Bearer at-0", "handed out");
    assert.equal(tokenRequests().length, 1);
    // The retry waits: the next requests are not held up by the server that is down.
    assert.ok((await session.credentials()).ok);
    assert.equal(tokenRequests().length, 1);
    assert.equal(session.status().refreshAt, now + REFRESH_RETRY_MS);
    now += REFRESH_RETRY_MS;
    assert.ok((await session.credentials()).ok);
    assert.equal(tokenRequests().length, 2, "tried again once the wait is over");
    now = grant.expiresAt;
    const after = await session.credentials();
    assert.ok(
      !after.ok && after.error.kind === "unreachable",
      "an expired token is not handed out",
    );
  } finally {
    await session.close();
  }
});

Deno.test("accessToken() refreshes a stored token that expired, and never hands it out", async () => {
  const grant = { accessToken: "at-old", expiresAt: T0 - 1, refreshToken: "rt-0", scopes: [] };
  const { session, tokenRequests } = await world({ answer: rotating() }, grant, { now: () => T0 });
  try {
    const got = await session.accessToken();
    assert.ok(got.ok);
    assert.notEqual(got.value.value, "at-old");
    assert.ok(got.value.expiresAt! > T0);
    assert.equal(tokenRequests().length, 1);
    assert.equal(formOf(tokenRequests()[0]!).get("refresh_token"), "rt-0");
  } finally {
    await session.close();
  }
});

Deno.test("two sessions on one store refreshing the same rotating token share one refresh", async (t) => {
  for (const operation of ["accessToken", "credentials"] as const) {
    await t.step(operation, async () => {
      const used = new Set<string>();
      const endpoint: Endpoint = {
        answer: (form) => {
          const presented = form.get("refresh_token")!;
          if (used.has(presented)) {
            return Response.json({ error: "invalid_grant" }, { status: 400 });
          }
          used.add(presented);
          return tokenAnswer(3600, { refresh_token: `rt-${used.size}` });
        },
      };
      const grant = { accessToken: "at-old", expiresAt: T0 - 1, refreshToken: "rt-0", scopes: [] };
      const a = await world(endpoint, grant, { now: () => T0 });
      const b = new OAuthSession(RESOURCE, { clientId: "c" }, {
        fetch: a.net.fetch,
        store: a.store,
        now: () => T0,
      });
      try {
        const [ra, rb] = await Promise.all([a.session[operation](), b[operation]()]);
        assert.ok(ra.ok && rb.ok);
        assert.equal(a.tokenRequests().length, 1);
        assert.equal(a.session.status().state, "signed_in");
        assert.equal(b.status().state, "signed_in");
        assert.equal((await storedGrant(a.store))?.refreshToken, "rt-1");
      } finally {
        await a.session.close();
        await b.close();
      }
    });
  }
});

Deno.test("a refused refresh reads the store again and takes the grant another process stored meanwhile", async () => {
  let now = T0;
  const store = new MemoryTokenStore();
  const newer = {
    accessToken: "at-1",
    expiresAt: T0 + 7_200_000,
    refreshToken: "rt-1",
    scopes: [],
  };
  const endpoint: Endpoint = {
    // Another process presented rt-0 first; its grant lands in the store as this one is refused.
    answer: () => {
      void store.update(KEY, () => ({ grants: { [RESOURCE]: newer } }));
      return Response.json({ error: "invalid_grant" }, { status: 400 });
    },
  };
  const grant = {
    accessToken: "at-0",
    expiresAt: T0 + 3_600_000,
    refreshToken: "rt-0",
    scopes: [],
  };
  const { session } = await world(endpoint, grant, { now: () => now, store });
  try {
    assert.ok((await session.accessToken()).ok);
    now = grant.expiresAt;
    const got = await session.accessToken();
    assert.ok(got.ok);
    assert.equal(got.value.value, "at-1");
    assert.equal(session.status().state, "signed_in");
  } finally {
    await session.close();
  }
});

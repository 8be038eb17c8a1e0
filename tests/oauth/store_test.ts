import assert from "node:assert/strict";
import {
  defaultTokenDir,
  FileTokenStore,
  MemoryTokenStore,
  type StoredEntry,
} from "../../oauth/mod.ts";

const KEY = { issuer: "https://as.example.com", client: "dynamic http://127.0.0.1:1/callback" };

function entry(token: string): StoredEntry {
  return { grants: { "https://mcp.example.com/mcp": { accessToken: token, scopes: ["read"] } } };
}

async function inTempDir(test: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await test(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a token file is created with mode 0600, in a folder of mode 0700", async () => {
  await inTempDir(async (root) => {
    const dir = `${root}/loom-mcp/oauth`;
    const store = new FileTokenStore({ dir });
    assert.ok((await store.update(KEY, () => entry("token-one"))).ok);
    const path = await store.pathOf(KEY);
    assert.ok(path.ok);
    assert.equal((await Deno.stat(path.value)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    assert.match(path.value, /as\.example\.com-[0-9a-f]{24}\.json$/);
  });
});

Deno.test("a file another process left readable by others is replaced by one of mode 0600", async () => {
  await inTempDir(async (dir) => {
    const store = new FileTokenStore({ dir });
    const path = await store.pathOf(KEY);
    assert.ok(path.ok);
    await Deno.writeTextFile(path.value, JSON.stringify(entry("old")), { mode: 0o644 });
    await Deno.chmod(path.value, 0o644);
    assert.ok((await store.update(KEY, () => entry("new"))).ok);
    assert.equal((await Deno.stat(path.value)).mode! & 0o777, 0o600);
  });
});

Deno.test("a write is a new file renamed over the old one, and leaves no temporary file", async () => {
  await inTempDir(async (dir) => {
    const store = new FileTokenStore({ dir });
    assert.ok((await store.update(KEY, () => entry("first"))).ok);
    const path = await store.pathOf(KEY);
    assert.ok(path.ok);
    const before = (await Deno.stat(path.value)).ino;
    assert.ok((await store.update(KEY, () => entry("second"))).ok);
    // Written in place, the file would keep its inode; renamed over, it has a new one.
    assert.notEqual((await Deno.stat(path.value)).ino, before);
    const names = [];
    for await (const file of Deno.readDir(dir)) names.push(file.name);
    assert.deepEqual(names, [path.value.slice(dir.length + 1)]);
    const read = await store.read(KEY);
    assert.ok(read.ok);
    assert.equal(read.value?.grants["https://mcp.example.com/mcp"]?.accessToken, "second");
  });
});

Deno.test("updates of one key from many callers at once all land", async () => {
  await inTempDir(async (dir) => {
    const store = new FileTokenStore({ dir });
    const resources = Array.from({ length: 20 }, (_, i) => `https://mcp.example.com/${i}`);
    const results = await Promise.all(resources.map((resource) =>
      store.update(KEY, (old) => ({
        grants: { ...old?.grants, [resource]: { accessToken: `t-${resource}`, scopes: [] } },
      }))
    ));
    assert.ok(results.every((result) => result.ok));
    const read = await store.read(KEY);
    assert.ok(read.ok);
    assert.deepEqual(Object.keys(read.value?.grants ?? {}).sort(), [...resources].sort());
  });
});

Deno.test("an update that keeps nothing removes the file", async () => {
  await inTempDir(async (dir) => {
    const store = new FileTokenStore({ dir });
    assert.ok((await store.update(KEY, () => entry("t"))).ok);
    assert.ok((await store.update(KEY, () => undefined)).ok);
    const read = await store.read(KEY);
    assert.ok(read.ok);
    assert.equal(read.value, undefined);
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  });
});

Deno.test("a file the store did not write is store_failed, naming it, and is left as it was", async () => {
  await inTempDir(async (dir) => {
    const store = new FileTokenStore({ dir });
    const path = await store.pathOf(KEY);
    assert.ok(path.ok);
    await Deno.writeTextFile(path.value, "not json");
    const read = await store.read(KEY);
    assert.ok(!read.ok);
    assert.equal(read.error.kind, "store_failed");
    assert.equal(read.error.path, path.value);
    assert.match(read.error.message, /delete it/);
    assert.ok(!(await store.update(KEY, () => entry("t"))).ok);
    assert.equal(await Deno.readTextFile(path.value), "not json");
  });
});

Deno.test("the default folder is under XDG_CONFIG_HOME, else under HOME/.config", () => {
  const xdg = Deno.env.get("XDG_CONFIG_HOME");
  const home = Deno.env.get("HOME");
  try {
    Deno.env.set("XDG_CONFIG_HOME", "/x/config");
    assert.equal(defaultTokenDir(), "/x/config/loom-mcp/oauth");
    Deno.env.delete("XDG_CONFIG_HOME");
    Deno.env.set("HOME", "/home/someone");
    assert.equal(defaultTokenDir(), "/home/someone/.config/loom-mcp/oauth");
  } finally {
    if (xdg === undefined) Deno.env.delete("XDG_CONFIG_HOME");
    else Deno.env.set("XDG_CONFIG_HOME", xdg);
    if (home === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", home);
  }
});

Deno.test("a memory store hands out copies: what a caller changes is not kept", async () => {
  const store = new MemoryTokenStore();
  await store.update(KEY, () => entry("kept"));
  const read = await store.read(KEY);
  assert.ok(read.ok && read.value !== undefined);
  read.value.grants["https://mcp.example.com/mcp"]!.accessToken = "changed";
  const again = await store.read(KEY);
  assert.ok(again.ok);
  assert.equal(again.value?.grants["https://mcp.example.com/mcp"]?.accessToken, "kept");
});

Deno.test("a store folder open to others is refused, saying to run chmod 700, and nothing is written", async () => {
  await inTempDir(async (dir) => {
    await Deno.chmod(dir, 0o777);
    const store = new FileTokenStore({ dir });
    const wrote = await store.update(KEY, () => entry("t"));
    assert.ok(!wrote.ok);
    assert.equal(wrote.error.kind, "store_failed");
    assert.equal(wrote.error.path, dir);
    assert.match(wrote.error.message, /its mode is 0777, open to every user; run chmod 700 /);
    assert.deepEqual([...Deno.readDirSync(dir)], []);
    const read = await store.read(KEY);
    assert.ok(!read.ok);
    assert.match(read.error.message, /run chmod 700/);
  });
});

Deno.test("a store folder its group may enter is refused as well", async () => {
  await inTempDir(async (dir) => {
    await Deno.chmod(dir, 0o750);
    const wrote = await new FileTokenStore({ dir }).update(KEY, () => entry("t"));
    assert.ok(!wrote.ok);
    assert.match(wrote.error.message, /its mode is 0750, open to its group; run chmod 700 /);
  });
});

Deno.test("a file in a store folder open to others is not read", async () => {
  await inTempDir(async (dir) => {
    const store = new FileTokenStore({ dir });
    assert.ok((await store.update(KEY, () => entry("planted"))).ok);
    await Deno.chmod(dir, 0o733);
    const read = await store.read(KEY);
    assert.ok(!read.ok, "a token someone else could have put there is not taken");
    assert.equal(read.error.kind, "store_failed");
  });
});

Deno.test({
  name: "a store folder of another user's is refused, naming its owner",
  // Only root can give a folder away to another user.
  ignore: Deno.build.os === "windows" || Deno.uid() !== 0,
  fn: async () => {
    await inTempDir(async (dir) => {
      await Deno.chown(dir, 65534, 65534);
      const wrote = await new FileTokenStore({ dir }).update(KEY, () => entry("t"));
      assert.ok(!wrote.ok);
      assert.match(wrote.error.message, /it belongs to user 65534, not to this user \(0\)/);
      assert.deepEqual([...Deno.readDirSync(dir)], []);
    });
  },
});

import { describe, expect, it } from "vitest";
import { createSessionCache } from "./sessionCache.ts";

/** Sessions are opaque to the cache: here each is its text and an opening count. */
function cacheOf(options?: Parameters<typeof createSessionCache>[1]) {
  const opened: string[] = [];
  const cache = createSessionCache((text, file) => {
    opened.push(text);
    return { text, file, n: opened.length };
  }, options);
  return { cache, opened };
}

describe("the worker's recent sessions", () => {
  it.each([
    ["a text asked twice is analysed once", ["a", "a"], ["a"]],
    ["an edit undone reuses the text before it", ["a", "ab", "a"], ["a", "ab"]],
    ["a what-if applied and reverted twice is analysed twice in all", ["a", "b", "a", "b"], ["a", "b"]],
    ["only the newest two texts are kept", ["a", "b", "c", "a"], ["a", "b", "c", "a"]],
  ] as const)("%s", (_, asked, analysed) => {
    const { cache, opened } = cacheOf();
    for (const t of asked) expect(cache.open(t, "f.yaml").text).toBe(t);
    expect(opened).toEqual(analysed);
    expect(cache.current?.text).toBe(asked[asked.length - 1]);
  });

  it("the same text under another file name is another session (diagnostics name the file)", () => {
    const { cache, opened } = cacheOf();
    cache.open("a", "x.yaml");
    expect(cache.open("a", "y.yaml").file).toBe("y.yaml");
    expect(opened).toEqual(["a", "a"]);
  });

  it("the same text under another cluster profile is another session; each is reused", () => {
    const { cache, opened } = cacheOf();
    cache.open("a", "f.yaml");
    cache.open("a", "f.yaml", "calico");
    cache.open("a", "f.yaml", "calico");
    cache.open("a", "f.yaml");
    expect(opened).toEqual(["a", "a"]);
  });

  it("a text above the size limit is not kept once another is asked", () => {
    const { cache, opened } = cacheOf({ maxChars: 3 });
    cache.open("long text", "f.yaml");
    cache.open("long text", "f.yaml");
    cache.open("a", "f.yaml");
    cache.open("long text", "f.yaml");
    expect(opened).toEqual(["long text", "a", "long text"]);
  });
});

/** `#url=`: reading the parameter, checking the address, and the fetch's error wording and size cap. */
import { describe, expect, it } from "vitest";
import { checkImportUrl, fetchScenario, hashWithoutUrl, urlFromHash } from "./urlImport.ts";

const yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n";

describe("url= in the hash", () => {
  it.each([
    ["#url=https%3A%2F%2Fexample.com%2Fa.yaml", "https://example.com/a.yaml"],
    ["#url=https://example.com/a.yaml?x=1&y=2", "https://example.com/a.yaml?x=1&y=2"],
    ["#lesson=3&url=https://e.com/b.yaml", "https://e.com/b.yaml"],
    ["#share=abc", undefined],
    ["#curl=x", undefined],
  ])("%s -> %s", (hash, url) => {
    expect(urlFromHash(hash)).toBe(url);
  });

  it("removing it keeps the other parameters", () => {
    expect(hashWithoutUrl("#lesson=3&url=https://e.com/b.yaml")).toBe("#lesson=3");
    expect(hashWithoutUrl("#url=https://e.com/b.yaml")).toBe("");
  });

  it("only http(s) without credentials", () => {
    expect(checkImportUrl("https://raw.githubusercontent.com/o/r/main/x.yaml").ok).toBe(true);
    expect(checkImportUrl("javascript:alert(1)")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Only http and https/),
    });
    expect(checkImportUrl("https://u:p@e.com/x")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/user name or password/),
    });
    expect(checkImportUrl("not a url")).toMatchObject({ ok: false });
  });
});

describe("fetchScenario", () => {
  const url = new URL("https://files.example/shop/manifests.yaml");

  it("returns the text and the file's name, sending no credentials", async () => {
    let init: RequestInit | undefined;
    const r = await fetchScenario(
      url,
      (async (_u: string, i: RequestInit) => ((init = i), new Response(yaml))) as unknown as typeof fetch,
    );
    expect(r).toEqual({ ok: true, text: yaml, name: "manifests.yaml" });
    expect(init?.credentials).toBe("omit");
  });

  it("a network or CORS failure is explained with what to do instead", async () => {
    const r = await fetchScenario(url, (async () => {
      throw new TypeError("Failed to fetch");
    }) as unknown as typeof fetch);
    expect(r).toMatchObject({
      ok: false,
      error: expect.stringMatching(/files\.example could not be read from this page.*CORS.*Open file/),
    });
  });

  it("an HTTP error names the status", async () => {
    const r = await fetchScenario(
      url,
      (async () => new Response("no", { status: 404, statusText: "Not Found" })) as unknown as typeof fetch,
    );
    expect(r).toEqual({ ok: false, error: "files.example answered 404 Not Found for /shop/manifests.yaml." });
  });

  it("a file over the cap is refused, by its declared length or while reading", async () => {
    const big = "x".repeat(2000);
    const declared = await fetchScenario(
      url,
      (async () => new Response(big, { headers: { "content-length": "2000" } })) as unknown as typeof fetch,
      1000,
    );
    expect(declared).toMatchObject({ ok: false, error: expect.stringMatching(/MB/) });
    const streamed = await fetchScenario(
      url,
      (async () => new Response(new Blob([big]).stream())) as unknown as typeof fetch,
      1000,
    );
    expect(streamed).toMatchObject({ ok: false, error: expect.stringMatching(/larger than/) });
  });

  it("a binary file is refused as not UTF-8 text", async () => {
    const r = await fetchScenario(
      url,
      (async () => new Response(new Uint8Array([0xff, 0xfe, 0x00, 0xc3]))) as unknown as typeof fetch,
    );
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/not UTF-8/) });
  });

  // A server that answers at once and then sends a byte now and then, and a fetcher that ignores its signal:
  // the body's reads must race the deadline, or the dialog stays at "Opening…" (issue 31, lost work).
  const trickling = (): typeof fetch =>
    (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async pull(c) {
            await new Promise((r) => setTimeout(r, 20));
            c.enqueue(new TextEncoder().encode("#"));
          },
        }),
      )) as unknown as typeof fetch;

  it("a body that trickles past the time limit is stopped with a message", async () => {
    const r = await fetchScenario(url, trickling(), 1000, { timeoutMs: 150 });
    expect(r).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /files\.example did not send the whole file within 0\.15 s \(\d+ bytes arrived\)/,
      ),
    });
  });

  it("the user's Cancel stops it at any moment, answer or body", async () => {
    const body = new AbortController();
    setTimeout(() => body.abort(), 80);
    expect(await fetchScenario(url, trickling(), 1000, { signal: body.signal })).toEqual({
      ok: false,
      error: "opening was cancelled.",
    });
    const answer = new AbortController();
    setTimeout(() => answer.abort(), 50);
    const never = (() => new Promise<Response>(() => {})) as unknown as typeof fetch;
    expect(await fetchScenario(url, never, 1000, { signal: answer.signal })).toEqual({
      ok: false,
      error: "opening was cancelled.",
    });
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { deflateSync, strToU8 } from "fflate";
import {
  decodeShare,
  encodeShare,
  fromBase64Url,
  hashFor,
  MAX_INFLATED_BYTES,
  payloadFromHash,
  SHARE_VERSION,
  toBase64Url,
  type SharedInput,
} from "./codec.ts";

/**
 * One link per format version, kept forever (mermaid keeps its old `pako:`
 * links opening; excalidraw warns that its byte layout must never change).
 * Never edit these: add a new entry when a new version is made.
 */
const GOLDEN: { version: number; payload: string; input: SharedInput }[] = [
  {
    version: 1,
    payload:
      "ATWPQU7DMBBFrzIyWyzarVX1DKxYeTNxhsRq8sfyWKWi6oE4BxfDCbD8T3_-09xdk1tzwT3RpMsooCXjQtdjIMhVKqWZMQm1ORttVdLag-y1CC75TaplReg3EZeMMdCrjhGrNB65cYggAq8SKPH795c__AMrnDq1WcuGFh5ksUB3LiVQdKfh_CHD6WU4R_eIsCJp30qKxhldu0ci_zff27-AKK88dYIp4xbhnp0lAdes_dPD0bfazZ79pvacqpr5T4WYe_wA",
    input: {
      text: '# golden link v1: never change this text or the link\napiVersion: v1\nkind: Pod\nmetadata:\n  name: café-0\n  namespace: shop\n  labels: {app: "<b>web</b>"}\nspec:\n  containers:\n    - name: web\n      image: nginx\n',
      scenario: "01-trace-a-shop-across-zones",
    },
  },
  { version: 1, payload: "AatWKkmtKFGyUkpUqgUA", input: { text: "a" } },
  {
    version: 2,
    payload:
      "AmWRQU7DMBBFr2KZbaOWUiTkLaxRF4gNYTGJJ40VZybYTtqoyoE4Bxdj3NIVm2Q8_vP_s33WCU9JG32nDuwtkvKOOjVtjSKcMKi6BTqgSq2LKksVB1ngRVYSDO4dQ3RMRk33JXWOrFF7tiX1mMBCAlOSUgQ9GlVD8_NdbG6NOEAt3djyUJJe6VgjQXAsNJvHArznY8GERS0lhgKaJF-LDYw-yZ9mmZkcHrU5668RYxKMXDeBe_EY2JrsveZghVHEKVtHDJOT3MvWAHOPlKJ52u0eRDEETlyzF93b814vK904L7Ex-7bOSurrjVx6H7obKyziHBP2-lPmOeTLzG7rbLDSTH5-CTyIOoURxTFBJZIeUnCnfGpnMdMGrjz2GfNvSxKvdtntH9pKV7OURw6dZ7AZ1WOM1xsI8nTg0V4z8yxGOaajw60jwIM222VZfgE",
    input: {
      text: "# golden link v2: never change this text or the link\napiVersion: v1\nkind: Pod\nmetadata:\n  name: café-0\n  namespace: shop\n",
      scenario: "05-allow-one-caller-after-default-deny",
      view: {
        question: { from: "pod:shop/orders", to: "service:shop/payments:8443", protocol: "TCP" },
        filters: { hiddenNamespaces: ["kube-system"], port: "8443/TCP", onlyDrops: true },
        tab: "matrix",
        side: "problems",
        matrix: { port: 8443, protocol: "TCP", by: "workload" },
        lesson: { revealed: true, presenting: true, step: 2 },
      },
    },
  },
  {
    version: 3,
    payload:
      "AzVQQU4DMQz8ShSupKVwKIqEOPQOlag47cVk3cZq1glJdltU9UG8g4_hLOISxTPj8dgXXfFctdU36hBDj6wC8VFND1YxTpiV88AHVNVTUU2qYpYCZ1nHkOgdc6HIVjkKNA4LisvpvuMjcW_VZsZesJ5iPm5jIPfV8YAVeqhgO1aKYUCrxMeE9X9dEjgBi4-pY32ri0OGTFFirtYm434saMAkqN6cSB4wf8PFw-QxoPRMhCdtL_pzxFIlX_vvcxzEI8XeNu-lC4RcRVybdcE8kcydKQlkH--ESjnW6GIQwW6zFcDXmpqZbOFjL_D29W3XhJJGqiX0A_Hz-WnVtAi9nKfJfSztzOK7aAOEPBtZIwvmYP_zra_XqwSBDwEOGZIXhWNq9Lya8L8",
    input: {
      text: "# golden link v3: never change this text or the link\napiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata:\n  name: api-l7\n  namespace: shop\n",
      scenario: "17-refuse-a-path-with-a-cilium-l7-rule",
      view: {
        question: {
          from: "pod:shop/client",
          to: "service:shop/api:80",
          protocol: "TCP",
          http: { method: "POST", path: "/admin?x=1", headers: { host: "api.shop", "x-user": "café" } },
        },
        tab: "graph",
        cni: "cilium",
      },
    },
  },
  {
    version: 4,
    payload:
      "BF2QQU_DMAyF_0oUbmjrWsYB5YSE0MSNw8SFcvBSrw1r7ZKkHWjqf8fpNglxi-3P7-X5pCN-R230jaq5rZBU6-igxnujCEf0yjZANarYuKASqthLgTNWEvTuDX1wTImPR_YHR3XmQnScOV6NRUnSqYzaQMQj_JTUYYQKIpiSlCLo0Kgds0B7XtZX6DwJPdg_45JCj3beC9iijeyNOs1eRomtxxAuClNJeqFHh0dtTvprwARReu89dxJXkqAnaM1dvs7yrCjWWZE_Ele4BNmMLMxFy1z9V___aR5yYXvPkS23srF9epVGE2OfrCRpw5W0N8_bxEFspFgJXw029lBjghEquaDw0zSJMeySs4e-kaElJ5WF1lmWEkIYOkzSc-iXc2Rtoh9woR19yk3mmO_6-lXZutUfIv0L",
    input: {
      text: "# golden link v4: never change this text or the link\napiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata:\n  name: bookinfo-gateway\n  namespace: bookinfo\nspec:\n  selector: {istio: ingressgateway}\n",
      view: {
        question: {
          from: "external:203.0.113.10@node-a",
          to: "gateway:bookinfo/bookinfo-gateway:80",
          protocol: "TCP",
          http: { method: "GET", path: "/productpage", headers: {} },
        },
        tab: "graph",
        cni: "calico",
        assume: { istioIngress: true, injection: ["bookinfo", "*"] },
      },
    },
  },
  {
    version: 5,
    payload:
      "BXWPQWoDMQxFryLUbZrSRaH4EKVQ6MobxaPOiPFIxnYnDWHuXidDIIFk-b8e6L8jVv6r6PAJeosdK0TREeY3B8ozZwgDac9QBylwQsFyC3zGvFKSb85FTE983VseRfvt-F62Yi_zq9eWOwcf6-3TooSD14krdVTJeQVQmthBe314phgvTUkUWl0GS15L4nBmk3VfHDlUyw6Oi1fc4Cy8R9dEaNc8-kxpaG1QaSlIlN8Jlw3u-Mcy3xGF9fLI99bxyuiy8a7NOhuXfw",
    input: {
      text: "# golden link v5: never change this text or the link\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: deny-all\n  namespace: shop\nspec:\n  podSelector: {}\n",
      view: { tab: "graph", cni: "cilium" },
      before:
        "# golden link v5 before: never change this text\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n",
    },
  },
];

describe("golden share links open forever", () => {
  it.each(GOLDEN.map((g, i) => [i, g] as const))("golden link %i", (_, g) => {
    const r = decodeShare(g.payload);
    expect(r).toEqual({ ok: true, input: g.input, version: g.version });
  });

  it("a version 4 link's `before` is not ours: dropped, as every version drops keys it did not have", () => {
    const body = JSON.stringify({ text: "x: 1\n", before: "y: 2\n" });
    const packed = deflateSync(strToU8(body), { level: 9 });
    const r = decodeShare(toBase64Url(new Uint8Array([4, ...packed])));
    expect(r).toEqual({ ok: true, input: { text: "x: 1\n" }, version: 4 });
  });

  it("the newest version has a golden link", () => {
    expect(GOLDEN.some((g) => g.version === SHARE_VERSION)).toBe(true);
  });
});

describe("encode -> decode restores the input exactly", () => {
  it("for any text, including unicode, CRLF and HTML-looking names (fixed seed)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 400 }),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        (text, scenario) => {
          const input: SharedInput = scenario === undefined ? { text } : { text, scenario };
          const e = encodeShare(input);
          expect(e.ok).toBe(true);
          if (!e.ok) return;
          expect(decodeShare(e.payload)).toEqual({ ok: true, input, version: SHARE_VERSION });
        },
      ),
      { seed: 4242, numRuns: 200 },
    );
  });

  it("starts with the version byte", () => {
    const e = encodeShare({ text: "kind: Pod" });
    expect(e.ok && fromBase64Url(e.payload)![0]).toBe(SHARE_VERSION);
  });
});

describe("the view (format 2): question, filters, tabs, lesson step", () => {
  const deflated = (version: number, json: string) =>
    toBase64Url(new Uint8Array([version, ...deflateSync(strToU8(json))]));
  it("a view field this version does not understand is left out; the link still opens", () => {
    const r = decodeShare(
      deflated(
        2,
        JSON.stringify({
          text: "a",
          view: {
            tab: "3d",
            side: "problems",
            question: { from: "x", to: 7 },
            filters: { port: "80/TCP", hiddenNamespaces: ["b", "a", 3] },
            future: 1,
          },
        }),
      ),
    );
    expect(r).toEqual({
      ok: true,
      version: 2,
      input: {
        text: "a",
        view: {
          side: "problems",
          filters: { port: "80/TCP", hiddenNamespaces: ["a", "b"], onlyDrops: false },
        },
      },
    });
  });
  it("a version 2 link carries no profile and no HTTP request, even when its JSON has them", () => {
    const json = JSON.stringify({
      text: "a",
      view: {
        cni: "cilium",
        question: {
          from: "pod:a/b",
          to: "service:a/c:80",
          protocol: "TCP",
          http: { method: "GET", path: "/" },
        },
      },
    });
    expect(decodeShare(deflated(2, json))).toEqual({
      ok: true,
      version: 2,
      input: { text: "a", view: { question: { from: "pod:a/b", to: "service:a/c:80", protocol: "TCP" } } },
    });
    // The same JSON in version 3 keeps both.
    const r = decodeShare(deflated(3, json));
    expect(r.ok && r.input.view?.cni).toBe("cilium");
    expect(r.ok && r.input.view?.question?.http).toEqual({ method: "GET", path: "/", headers: {} });
  });
  it("the profile's assumptions (version 4) are dropped from a version 3 link and checked in version 4", () => {
    const json = JSON.stringify({
      text: "a",
      view: { cni: "calico", assume: { istioIngress: true, injection: ["shop", "Bad Name", "*"], extra: 1 } },
    });
    expect(decodeShare(deflated(3, json))).toEqual({
      ok: true,
      version: 3,
      input: { text: "a", view: { cni: "calico" } },
    });
    const r = decodeShare(deflated(4, json));
    expect(r.ok && r.input.view?.assume).toEqual({ istioIngress: true, injection: ["shop", "*"] });
  });
  it("a profile or HTTP request this version does not understand is left out", () => {
    const json = JSON.stringify({
      text: "a",
      view: {
        cni: "weave",
        question: { from: "p", to: "q", protocol: "TCP", http: { method: "G T", path: "/" } },
      },
    });
    expect(decodeShare(deflated(3, json))).toEqual({
      ok: true,
      version: 3,
      input: { text: "a", view: { question: { from: "p", to: "q", protocol: "TCP" } } },
    });
  });
  it("a version 1 link carries no view, even when its JSON has one", () => {
    expect(decodeShare(deflated(1, JSON.stringify({ text: "a", view: { tab: "matrix" } })))).toEqual({
      ok: true,
      version: 1,
      input: { text: "a" },
    });
  });
  it("round-trips a view", () => {
    const input: SharedInput = {
      text: "t",
      view: {
        question: { from: "pod:a/b", to: "service:a/c:80", protocol: "UDP" },
        tab: "rules",
        lesson: { revealed: false, presenting: true, step: 0 },
      },
    };
    const e = encodeShare(input);
    expect(e.ok && decodeShare(e.payload)).toEqual({ ok: true, version: SHARE_VERSION, input });
  });
});

describe("bad links are messages, never exceptions", () => {
  const deflated = (json: string) => toBase64Url(new Uint8Array([1, ...deflateSync(strToU8(json))]));
  const cases: [string, string, RegExp][] = [
    ["empty", "", /empty/],
    ["characters outside base64url", "AT+/==", /damaged/],
    ["cut short to one byte", "AQ", /damaged/],
    ["impossible base64 length", "ATWPQ", /damaged/],
    ["truncated DEFLATE data", GOLDEN[0]!.payload.slice(0, 60), /damaged/],
    ["a newer format", toBase64Url(new Uint8Array([9, 1, 2, 3])), /newer version/],
    ["format 0", toBase64Url(new Uint8Array([0, 1, 2, 3])), /unknown/],
    ["not JSON", deflated("not json"), /not readable/],
    ["JSON without text", deflated('{"scenario":"x"}'), /no text/],
    ["JSON list", deflated("[1,2]"), /does not hold a scenario/],
    ["text of the wrong type", deflated('{"text":42}'), /no text/],
  ];
  it.each(cases)("%s", (_, payload, message) => {
    const r = decodeShare(payload);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });

  it("refuses a zip bomb once it unpacks past the limit", () => {
    const huge = new Uint8Array(MAX_INFLATED_BYTES + 1024).fill(32);
    const payload = toBase64Url(new Uint8Array([1, ...deflateSync(huge, { level: 9 })]));
    const r = decodeShare(payload);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/larger than 8 MB/);
  });

  it("refuses to make a link past the size limit and says what to do", () => {
    let text = "";
    let seed = 7;
    for (let i = 0; i < 4000; i++) text += ((seed = (seed * 48271) % 2147483647) % 1e9).toString(36);
    const r = encodeShare({ text }, 1000);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/Download it as a file/);
  });
});

describe("hash", () => {
  it.each([
    ["#share=abc", "abc"],
    ["share=abc", "abc"],
    ["#x=1&share=abc", "abc"],
    ["#", undefined],
    ["#sharex=abc", undefined],
  ])("%s", (hash, payload) => {
    expect(payloadFromHash(hash)).toBe(payload);
  });
  it("round-trips", () => expect(payloadFromHash(hashFor("xyz"))).toBe("xyz"));
});

describe("base64url", () => {
  it("agrees with Node's base64url for every length mod 3 (fixed seed)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
        expect([...fromBase64Url(toBase64Url(bytes))!]).toEqual([...bytes]);
      }),
      { seed: 99, numRuns: 300 },
    );
  });

  it("agrees with Node's base64url on a megabyte (a large saved text, deflated)", () => {
    const bytes = new Uint8Array(1_000_001);
    let x = 7;
    for (let i = 0; i < bytes.length; i++) bytes[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
  });
});

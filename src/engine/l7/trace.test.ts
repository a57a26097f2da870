import { describe, expect, it } from "vitest";
import { backendsOf, canaryBehindPolicy, endpointsOf, l7 } from "./test-fixtures.ts";
import { parseL7Destination } from "./trace.ts";

describe("parseL7Destination (shared/contract/ktl-cli.md)", () => {
  it.each<[string, unknown]>([
    ["gateway:infra/gw:80", { kind: "gateway", gateway: "infra/gw", port: 80 }],
    ["ingress:app/web:443", { kind: "ingress", ingress: "app/web", port: 443 }],
    ["host:Reviews:9080", { kind: "host", host: "reviews", port: 9080 }],
    ["service:a/b:80", undefined],
  ])("%s", (text, want) => expect(parseL7Destination(text)).toEqual(want));
  it.each(["gateway:gw:80", "host:reviews", "ingress:a/b:0", "host:a b:80"])("rejects %s", (text) =>
    expect(parseL7Destination(text)).toHaveProperty("error"),
  );
});

// The "done when": an external client through a Gateway with a weighted HTTPRoute to pods
// behind NetworkPolicy shows every layer, with probabilities that multiply.
describe("external client -> Gateway (externalTrafficPolicy Local) -> 90/10 split -> NetworkPolicy", () => {
  const t = l7(canaryBehindPolicy());
  it("arriving at the node with the gateway pod: 0.45 + 0.45 allowed, 0.1 dropped by NetworkPolicy", () => {
    const r = t("external:203.0.113.10@node-1", "gateway:shop/web:80", "GET /");
    expect(backendsOf(r)).toBe("shop/canary:8080=0.1 shop/stable:8080=0.9");
    expect(endpointsOf(r)).toBe("10.244.1.11:3000=0.45 10.244.1.12:3000=0.1! 10.244.2.11:3000=0.45");
    expect(r.verdict).toBe("partial");
    const steps = r.hops.map((h) => h.step);
    for (const s of [
      "load balancer",
      "kube-proxy",
      "router",
      "listener",
      "route",
      "backend",
      "proxy to backend",
      "ingress policy at backend",
    ])
      expect(steps).toContain(s);
    const dropHop = r.hops.find((h) => h.verdict === "drop");
    expect(dropHop?.ref).toMatchObject({ kind: "NetworkPolicy", name: "canary-closed" });
  });
  it("arriving at a node without a gateway pod: kube-proxy drops it before any L7 proxy (no status)", () => {
    const r = t("external:203.0.113.10@node-2", "gateway:shop/web:80", "GET /");
    expect([r.verdict, r.decidedBy?.layer, r.httpStatus]).toEqual(["drop", "kube-proxy", undefined]);
  });
  it("a plain trace to the Service gets decidedBy too", () => {
    const r = t("pod:default/client", "service:shop/canary:8080");
    expect([r.verdict, r.decidedBy?.layer, r.httpStatus]).toEqual(["drop", "NetworkPolicy", undefined]);
  });
});
